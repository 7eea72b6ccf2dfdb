// Work that must give way to the server without ever being starved by it: a feed run's process
// (cli/crm-feed-child.ts) shares the server's cores, and holds SQLite's write lock for each chunk
// of its writes, which it gives up once the server's writer has waited for it (agency/apply.ts).
//
// It used to run under SCHED_IDLE, which runs a thread only when nothing else wants the core.
// On one core kept busy by partners' reads that is never: a run made no progress for a whole
// minute of load, and the write lock it held when the server took the core back stayed held
// with it, so one lead creation waited 5 s. Now it runs under SCHED_BATCH at the server's own
// nice value: its wake-ups never preempt a request being answered (it waits for the server's
// slice to end), and it has the same weight as each of the server's busy threads, so a run
// always progresses and a chunk that holds the write lock is never left waiting long for the
// core. A lower weight was measured first (nice 1, bench feed-run-one-core): the run took
// 2.45 to 4.11 times its unloaded time on a saturated core, the server's checkpointer thread
// competing too, and a chunk preempted while holding the lock kept leads waiting accordingly.

import { readlinkSync } from "node:fs";
import { getPriority, setPriority } from "node:os";

/**
 * Moves a process, every thread it has and the threads they start later, to SCHED_BATCH with
 * util-linux's chrt; its nice value stays the one it inherited (the server's). Resolves to why
 * it was refused (no chrt, a sandbox that forbids it), in words for a debug log; empty when it
 * took. Without SCHED_BATCH the run is an ordinary process: the same share of the core, only
 * its wake-ups may preempt a request. `chrt`: the program's path, looked up at each call by
 * default (calls are rare, a run's start).
 */
export async function lowerToBackground(pid: number, chrt: string | null = Bun.which("chrt")): Promise<string[]> {
  if (chrt === null) return ["chrt not found, so no SCHED_BATCH"];
  const proc = Bun.spawn([chrt, "--all-tasks", "--batch", "--pid", "0", String(pid)], {
    stdin: "ignore",
    stdout: "ignore",
    stderr: "pipe",
  });
  const [code, err] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
  return code === 0 ? [] : [`chrt: ${err.trim() || `exit code ${code}`}`];
}

/**
 * Lowers the calling thread alone by `steps` of nice (Linux: a thread is a task with a nice value
 * of its own; at most 19), for a worker thread that must never take a busy core from the event loop when it wakes:
 * the figures' writer (usage/writer-thread.ts) does a few milliseconds of SQLite work every half
 * second, which on a saturated core would otherwise hold up the requests in flight meanwhile.
 * Returns why it did not take (no /proc, a platform without per-thread nice); empty when it did.
 */
export function lowerThisThread(steps: number): string[] {
  try {
    // "/proc/thread-self" links to "<pid>/task/<tid>": the id setpriority() takes for one thread.
    const tid = Number(readlinkSync("/proc/thread-self").split("/").at(-1));
    if (!Number.isInteger(tid) || tid <= 0) return ["no thread id in /proc/thread-self"];
    setPriority(tid, Math.min(19, getPriority(tid) + steps));
    return [];
  } catch (error) {
    return [`lowering the thread's priority: ${(error as Error).message}`];
  }
}
