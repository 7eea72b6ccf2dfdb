// The servers under test: started pinned to one core, ready when /health answers, watched
// through /proc (resident memory, CPU time) and stopped with SIGTERM.

import { readFileSync } from "node:fs";
import type { Subprocess } from "bun";

export interface Server {
  name: string;
  pid: number;
  base: string;
  command: string;
  stop(): Promise<void>;
}

const running = new Set<Subprocess>();

/** A free loopback port: other engineers share this machine, so fixed ports could collide. */
export function freePort(): number {
  const probe = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const port = probe.port!;
  probe.stop(true);
  return port;
}

export async function startServer(options: {
  name: string;
  argv: string[];
  /** A core, or a list of them ("0,1") for a server of several processes. */
  core: number | string;
  port: number;
  logFile: string;
  readyTimeoutMs?: number;
}): Promise<Server> {
  const argv = ["taskset", "-c", String(options.core), ...options.argv];
  // stdout (a log line per request for the product) goes to /dev/null: writing it is part of
  // the cost being measured, keeping it is not. stderr is kept for when a start fails.
  const proc = Bun.spawn(argv, { stdout: "ignore", stderr: Bun.file(options.logFile), stdin: "ignore" });
  running.add(proc);
  const base = `http://127.0.0.1:${options.port}`;
  const deadline = Date.now() + (options.readyTimeoutMs ?? 60_000);
  for (;;) {
    if (proc.exitCode !== null)
      throw new Error(`${options.name} exited with ${proc.exitCode} before it was ready; see ${options.logFile}`);
    try {
      const health = await fetch(`${base}/health`);
      await health.arrayBuffer();
      if (health.status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      proc.kill("SIGKILL");
      throw new Error(`${options.name} not ready after ${options.readyTimeoutMs ?? 60_000} ms; see ${options.logFile}`);
    }
    await Bun.sleep(50);
  }
  return {
    name: options.name,
    // taskset execs the program, so the pid is the server's own.
    pid: proc.pid,
    base,
    command: argv.join(" "),
    async stop() {
      proc.kill("SIGTERM");
      const timer = setTimeout(() => proc.kill("SIGKILL"), 15_000);
      await proc.exited;
      clearTimeout(timer);
      running.delete(proc);
    },
  };
}

/** Registers a short-lived child (wrk) so an interrupted run stops it too. */
export function track(proc: Subprocess): void {
  running.add(proc);
  void proc.exited.then(() => running.delete(proc));
}

/** Last resort on an interrupted run: nothing the bench started may outlive it. */
export function killAll(): void {
  for (const proc of running) proc.kill("SIGKILL");
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

/** CPU seconds (user+system, all threads) a process has used. */
export function processCpuS(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name, which may itself hold spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / USER_HZ;
  } catch {
    return 0;
  }
}

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
  running.add(proc);
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
      running.delete(proc);
    },
  };
}
