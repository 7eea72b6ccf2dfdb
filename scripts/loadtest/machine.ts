// How busy the machine was with other work during a run: the machine may be shared, and a
// figure taken while a neighbour used half the cores is not the server's capacity.
import { readFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";

/** /proc reports times in USER_HZ, which Linux fixes at 100 for user space. */
const USER_HZ = 100;

function machineSeconds(): { busy: number; total: number } {
  const line = readFileSync("/proc/stat", "utf8")
    .split("\n")
    .find((l) => l.startsWith("cpu "))!;
  const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = line
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  const total = user + nice + system + idle + iowait + irq + softirq + steal;
  return { busy: (total - idle - iowait) / USER_HZ, total: total / USER_HZ };
}

export interface MachineLoad {
  cores: number;
  /** Share of all cores that processes other than `pids` used (kernel networking included). */
  others: number;
  loadBefore: number;
  loadAfter: number;
}

/** Starts watching; `stop(ownCpuS)` is told the CPU seconds the run's own processes used. */
export function watchMachine(): { stop(ownCpuS: number): MachineLoad } {
  const before = machineSeconds();
  const loadBefore = loadavg()[0]!;
  return {
    stop(ownCpuS) {
      const after = machineSeconds();
      const total = after.total - before.total;
      return {
        cores: cpus().length,
        others: total > 0 ? Math.min(1, Math.max(0, (after.busy - before.busy - ownCpuS) / total)) : Number.NaN,
        loadBefore,
        loadAfter: loadavg()[0]!,
      };
    },
  };
}

export function describeLoad(load: MachineLoad): string {
  return (
    `other processes used ${(load.others * 100).toFixed(0)} % of the machine's ${load.cores} cores during the run ` +
    `(load average ${load.loadBefore.toFixed(2)} before, ${load.loadAfter.toFixed(2)} after)`
  );
}
