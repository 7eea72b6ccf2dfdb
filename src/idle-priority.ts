// Work that must give way to the server's requests: a feed run's process (cli/feed-child.ts)
// and the checkpointer's thread (db/checkpoint-worker.ts) share the server's cores. Under
// SCHED_IDLE a thread runs only when nothing else wants the core, and a normal thread that
// wakes takes it back at once; at nice 10 its slices still held the server's reads back by
// milliseconds. nice 10 comes first, and stays where SCHED_IDLE cannot be had.
import { readlinkSync } from "node:fs";
import { setPriority } from "node:os";

/** Below the server's priority where SCHED_IDLE cannot be had. */
export const IDLE_NICENESS = 10;

/**
 * Moves a process (every thread it has, and the threads they start later) or one thread to
 * nice 10, then to SCHED_IDLE with util-linux's chrt. Resolves to why either was refused (no
 * chrt, a sandbox that forbids it), in words for a debug log; empty when both took. `chrt`:
 * the program's path, looked up at each call by default (calls are rare: a run, a thread's
 * start; a command that makes none never looks).
 */
export async function lowerToIdle(id: number, what: "process" | "thread", chrt: string | null = Bun.which("chrt")): Promise<string[]> {
  const refused: string[] = [];
  try {
    setPriority(id, IDLE_NICENESS); // on Linux, for a thread id, that thread alone
  } catch (error) {
    refused.push(`nice ${IDLE_NICENESS}: ${(error as Error).message}`);
  }
  if (chrt === null) return [...refused, "chrt not found, so no SCHED_IDLE"];
  const argv = [chrt, ...(what === "process" ? ["--all-tasks"] : []), "--idle", "--pid", "0", String(id)];
  const proc = Bun.spawn(argv, { stdin: "ignore", stdout: "ignore", stderr: "pipe" });
  const [code, err] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
  if (code !== 0) refused.push(`chrt: ${err.trim() || `exit code ${code}`}`);
  return refused;
}

/** The id of the calling thread (Linux), for lowerToIdle; null where there is no /proc. */
export function currentThreadId(): number | null {
  try {
    // "<pid>/task/<tid>"
    return Number(readlinkSync("/proc/thread-self").split("/").pop());
  } catch {
    return null;
  }
}
