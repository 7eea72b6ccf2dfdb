// The servers under test: started pinned to one core, ready when /health answers, watched
// through /proc (resident memory, CPU time) and stopped with SIGTERM.

import { readFileSync } from "node:fs";
import { freePort, killAll, launch, processCpuS, track } from "../harness/launch.ts";

export { freePort, killAll, processCpuS, track };

export interface Server {
  name: string;
  pid: number;
  base: string;
  command: string;
  stop(): Promise<void>;
}

/** A server of the bench, pinned to its core(s): the shared launcher (bench/harness/launch.ts). */
export async function startServer(options: {
  name: string;
  argv: string[];
  /** A core, or a list of them ("0,1") for a server of several processes. */
  core: number | string;
  port: number;
  logFile: string;
  readyTimeoutMs?: number;
}): Promise<Server> {
  const server = await launch({
    name: options.name,
    argv: options.argv,
    port: options.port,
    core: options.core,
    // stdout (a log line per request for the product) is dropped: writing it is part of the
    // cost being measured, keeping it is not. stderr is kept for when a start fails.
    stderrFile: options.logFile,
    readyTimeoutMs: options.readyTimeoutMs,
  });
  return { name: server.name, pid: server.pid, base: server.base, command: server.command, stop: () => server.stop() };
}

/** VmRSS of a process in kB, and its anonymous part (heap, SQLite caches; not the mapped binary). 0 once it is gone. */
export function rssKb(pid: number): { rss: number; anon: number } {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? 0);
    return { rss: field("VmRSS"), anon: field("RssAnon") };
  } catch {
    return { rss: 0, anon: 0 };
  }
}

/** Samples VmRSS every `everyMs` until stopped and keeps the maxima. */
export function sampleRss(pid: number, everyMs = 100): { stop(): { rss: number; anon: number } } {
  const max = rssKb(pid);
  const take = () => {
    const now = rssKb(pid);
    max.rss = Math.max(max.rss, now.rss);
    max.anon = Math.max(max.anon, now.anon);
  };
  const timer = setInterval(take, everyMs);
  return {
    stop() {
      clearInterval(timer);
      take();
      return max;
    },
  };
}

/** /proc reports times in USER_HZ, which Linux fixes at 100 for user space. */
const USER_HZ = 100;

/**
 * Bytes a process (all its threads: the WAL's sync, the checkpointer) has sent towards the disk:
 * /proc/<pid>/io write_bytes, its files' pages dirtied, never its sockets. 0 once it is gone.
 */
export function processWriteBytes(pid: number): number {
  try {
    return Number(/^write_bytes: (\d+)$/m.exec(readFileSync(`/proc/${pid}/io`, "utf8"))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

/** Busy and total seconds of one core since boot. */
function coreSeconds(core: number): { busy: number; total: number } {
  const line = readFileSync("/proc/stat", "utf8")
    .split("\n")
    .find((l) => l.startsWith(`cpu${core} `));
  if (!line) return { busy: 0, total: 0 };
  const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = line
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  const total = user + nice + system + idle + iowait + irq + softirq + steal;
  return { busy: (total - idle - iowait) / USER_HZ, total: total / USER_HZ };
}

/**
 * Share of a core used by anything but the bench's own process(es) on it during a round. The
 * machine is shared: when other work lands on the server's or wrk's core, the figures say so.
 * Kernel time spent on loopback networking (softirq) is not charged to any process, so a
 * few percent show up here even on a quiet machine.
 */
export function coreMeter(core: number): { stop(ownCpuS: number): number } {
  const before = coreSeconds(core);
  return {
    stop(ownCpuS) {
      const after = coreSeconds(core);
      const total = after.total - before.total;
      if (total <= 0) return Number.NaN;
      return Math.min(1, Math.max(0, (after.busy - before.busy - ownCpuS) / total));
    },
  };
}

/**
 * Waits, up to `maxWaitS`, for a moment when other processes leave both cores nearly idle (the
 * bench's own servers are idle between measurements). Returns the seconds waited. On a shared
 * machine this keeps a neighbour's burst out of a round instead of averaging it in.
 */
export async function waitForQuiet(cores: number[], threshold: number, maxWaitS: number): Promise<number> {
  const started = performance.now();
  for (;;) {
    const meters = cores.map((core) => coreMeter(core));
    await Bun.sleep(500);
    const busiest = Math.max(...meters.map((m) => m.stop(0)));
    const waited = (performance.now() - started) / 1000;
    if (busiest <= threshold || waited >= maxWaitS) return waited;
  }
}

/** A redis-server for the shared-limit scenarios: no persistence, pinned like the servers. */
export async function startRedisServer(
  core: number,
  logFile: string,
): Promise<{ url: string; command: string; stop(): Promise<void> }> {
  const port = freePort();
  const argv = [
    "taskset",
    "-c",
    String(core),
    "redis-server",
    "--port",
    String(port),
    "--bind",
    "127.0.0.1",
    "--save",
    "",
    "--appendonly",
    "no",
  ];
  const proc = Bun.spawn(argv, { stdout: Bun.file(logFile), stderr: "inherit", stdin: "ignore" });
  track(proc);
  const deadline = Date.now() + 10_000;
  for (;;) {
    const open = await Bun.connect({ hostname: "127.0.0.1", port, socket: { data() {} } }).then(
      (socket) => (socket.end(), true),
      () => false,
    );
    if (open) break;
    if (proc.exitCode !== null || Date.now() > deadline) throw new Error(`redis-server did not start; see ${logFile}`);
    await Bun.sleep(20);
  }
  return {
    url: `redis://127.0.0.1:${port}/0`,
    command: argv.join(" "),
    async stop() {
      proc.kill("SIGTERM");
      await proc.exited;
    },
  };
}
