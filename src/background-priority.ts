// Work that must give way to the server without ever being starved by it: a feed run's process
// (cli/feed-child.ts) shares the server's cores, and holds SQLite's write lock for the few
// milliseconds of each chunk of its writes.
//
// It used to run under SCHED_IDLE, which runs a thread only when nothing else wants the core.
// On one core kept busy by partners' reads that is never: a run made no progress for a whole
// minute of load, and the write lock it held when the server took the core back stayed held
// with it, so one lead creation waited 5 s. Now it runs under SCHED_BATCH at nice 1: a floor
// of about 44 % of a core the server keeps busy (CFS/EEVDF weights 820 against the server's
// 1024), so a run takes at most a little over twice as long on a saturated core, and a chunk's
// lock is never held for longer than the chunk plus one of the scheduler's slices. SCHED_BATCH
// also means the run, waking from its pauses, never preempts a request being answered: it
// waits for the server's slice to end.
import { setPriority } from "node:os";

/** The run's nice value: weight 820 against the server's 1024 at nice 0. */
export const BACKGROUND_NICENESS = 1;

/**
 * Moves a process, every thread it has and the threads they start later, to nice 1 and
 * SCHED_BATCH (util-linux's chrt). Resolves to why either was refused (no chrt, a sandbox that
 * forbids it), in words for a debug log; empty when both took. Either alone still leaves the
 * run its floor: nice 1 alone is the same share, and SCHED_BATCH alone a larger one. `chrt`:
 * the program's path, looked up at each call by default (calls are rare, a run's start).
 */
export async function lowerToBackground(pid: number, chrt: string | null = Bun.which("chrt")): Promise<string[]> {
  const refused: string[] = [];
  try {
    setPriority(pid, BACKGROUND_NICENESS);
  } catch (error) {
    refused.push(`nice ${BACKGROUND_NICENESS}: ${(error as Error).message}`);
  }
  if (chrt === null) return [...refused, "chrt not found, so no SCHED_BATCH"];
  const proc = Bun.spawn([chrt, "--all-tasks", "--batch", "--pid", "0", String(pid)], { stdin: "ignore", stdout: "ignore", stderr: "pipe" });
  const [code, err] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
  if (code !== 0) refused.push(`chrt: ${err.trim() || `exit code ${code}`}`);
  return refused;
}
