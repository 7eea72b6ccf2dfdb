// Work that must give way to the server's requests: a feed run's process (cli/feed-child.ts)
// shares the server's cores. Under SCHED_IDLE a thread runs only when nothing else wants the
// core, and a normal thread that wakes takes it back at once; at nice 10 its slices still held
// the server's reads back by milliseconds. nice 10 comes first, and stays where SCHED_IDLE
// cannot be had.
//
// Not for work that holds a lock the server waits for while it runs: starved behind a busy
// server, it holds the lock (see db/checkpoint-worker.ts).
import { setPriority } from "node:os";

/** Below the server's priority where SCHED_IDLE cannot be had. */
const IDLE_NICENESS = 10;

/**
 * Moves a process, every thread it has and the threads they start later, to nice 10, then to
 * SCHED_IDLE with util-linux's chrt. Resolves to why either was refused (no chrt, a sandbox
 * that forbids it), in words for a debug log; empty when both took. `chrt`: the program's
 * path, looked up at each call by default (calls are rare, a run's start; a command that makes
 * none never looks).
 */
export async function lowerToIdle(pid: number, chrt: string | null = Bun.which("chrt")): Promise<string[]> {
  const refused: string[] = [];
  try {
    setPriority(pid, IDLE_NICENESS);
  } catch (error) {
    refused.push(`nice ${IDLE_NICENESS}: ${(error as Error).message}`);
  }
  if (chrt === null) return [...refused, "chrt not found, so no SCHED_IDLE"];
  const proc = Bun.spawn([chrt, "--all-tasks", "--idle", "--pid", "0", String(pid)], { stdin: "ignore", stdout: "ignore", stderr: "pipe" });
  const [code, err] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
  if (code !== 0) refused.push(`chrt: ${err.trim() || `exit code ${code}`}`);
  return refused;
}
