// How the kernel schedules a process or thread, read from /proc (proc(5)): for tests of the
// work that must give way to the server (src/background-priority.ts).
import { readdirSync, readFileSync } from "node:fs";

/** SCHED_BATCH, as /proc/…/stat's policy field shows it. */
export const SCHED_BATCH = 3;

/** Field `n` (numbered from 1, as in proc(5)) of a /proc/…/stat file; the name in field 2 may hold spaces. */
export function statField(path: string, n: number): number {
  const stat = readFileSync(path, "utf8");
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[n - 3]);
}

/** The scheduling policy (field 41) and nice value (field 19) of a process or thread, by its stat file's folder. */
export function scheduling(proc: string): { policy: number; nice: number } {
  return { policy: statField(`${proc}/stat`, 41), nice: statField(`${proc}/stat`, 19) };
}

/** The scheduling policy of each thread of `pid`. */
export function threadPolicies(pid: number): number[] {
  return readdirSync(`/proc/${pid}/task`).map((tid) => scheduling(`/proc/${pid}/task/${tid}`).policy);
}

/** Pids whose parent (field 4) is `pid`. */
export function childrenOf(pid: number): number[] {
  return readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        return statField(`/proc/${entry}/stat`, 4) === pid;
      } catch {
        return false; // gone meanwhile
      }
    })
    .map(Number);
}
