// The one way the bench (bench/), the fault scripts (scripts/faults) and the load tests
// (scripts/loadtest) start a server under test: a free loopback port, the process pinned to a
// core or not, its stderr kept in a file (a pipe nobody reads would stall it), ready when
// /health answers 200, watched through /proc, and stopped by SIGTERM (SIGKILL after a grace)
// or killed with everything else when the script is interrupted.
import { readdirSync, readFileSync } from "node:fs";
import type { Subprocess } from "bun";

/** A free loopback port: other engineers share this machine, so fixed ports could collide. */
export function freePort(): number {
  const probe = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const port = probe.port!;
  probe.stop(true);
  return port;
}

const running = new Set<Subprocess>();

/** Registers a short-lived child (wrk, curl) so an interrupted run stops it too. */
export function track(proc: Subprocess): void {
  running.add(proc);
  void proc.exited.then(() => running.delete(proc));
}

/** Last resort on an interrupted run: nothing a script started may outlive it. */
export function killAll(): void {
  for (const proc of running) proc.kill("SIGKILL");
}

export interface LaunchOptions {
  /** For messages: "product", "sandbox", "server"… */
  name: string;
  /** The program and its arguments; `--port` is the caller's to add (see `port`). */
  argv: string[];
  /** The port the argv makes it listen on (freePort() when the caller picked none). */
  port: number;
  /** A core, or a list of them ("0,1"); null runs it unpinned. */
  core: number | string | null;
  /** Where its stderr goes (a file); its stdout (a log line per request) is dropped. */
  stderrFile: string;
  cwd?: string;
  env?: Record<string, string>;
  readyTimeoutMs?: number;
}

/** A process's resident memory (MiB, one decimal) and open file descriptors; null once it is gone. */
export function procStats(pid: number): { rssMiB: number; fds: number } | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const rssKiB = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN);
    return { rssMiB: Math.round((rssKiB / 1024) * 10) / 10, fds: readdirSync(`/proc/${pid}/fd`).length };
  } catch {
    return null;
  }
}

/** /proc reports times in USER_HZ, which Linux fixes at 100 for user space. */
const USER_HZ = 100;

/** CPU seconds (user+system, all threads) a process has used; 0 once it is gone. */
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

export interface Launched {
  name: string;
  proc: Subprocess;
  /** The server's own pid (taskset execs the program). */
  pid: number;
  port: number;
  /** http://127.0.0.1:<port> */
  base: string;
  /** The command line, as run. */
  command: string;
  /** Milliseconds from spawn to the first 200 from /health. */
  startupMs: number;
  readonly alive: boolean;
  signal(signal: NodeJS.Signals): void;
  /** Exit code, or the signal's name when one killed it. */
  exit(): Promise<number | string>;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once it is gone. */
  stop(graceMs?: number): Promise<void>;
}

/** Starts the server and waits for /health; kills it and says why (its stderr file) when it never gets there. */
export async function launch(options: LaunchOptions): Promise<Launched> {
  const argv = options.core === null ? options.argv : ["taskset", "-c", String(options.core), ...options.argv];
  const started = performance.now();
  const proc = Bun.spawn(argv, {
    cwd: options.cwd,
    env: options.env ? { ...process.env, ...options.env } : undefined,
    stdin: "ignore",
    stdout: "ignore",
    stderr: Bun.file(options.stderrFile),
  });
  running.add(proc);
  void proc.exited.then(() => running.delete(proc));
  const base = `http://127.0.0.1:${options.port}`;
  const timeoutMs = options.readyTimeoutMs ?? 60_000;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (proc.exitCode !== null || proc.signalCode !== null)
      throw new Error(
        `${options.name} exited (${proc.exitCode ?? proc.signalCode}) before it was ready; see ${options.stderrFile}`,
      );
    try {
      const health = await fetch(`${base}/health`, { signal: AbortSignal.timeout(1_000) });
      await health.arrayBuffer();
      if (health.status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      proc.kill("SIGKILL");
      throw new Error(`${options.name} not ready on ${base} after ${timeoutMs} ms; see ${options.stderrFile}`);
    }
    await Bun.sleep(20);
  }
  return {
    name: options.name,
    proc,
    pid: proc.pid,
    port: options.port,
    base,
    command: argv.join(" "),
    startupMs: Math.round(performance.now() - started),
    get alive() {
      return proc.exitCode === null && proc.signalCode === null;
    },
    signal: (signal) => proc.kill(signal),
    async exit() {
      await proc.exited;
      return proc.signalCode ?? proc.exitCode ?? -1;
    },
    async stop(graceMs = 15_000) {
      proc.kill("SIGTERM");
      const timer = setTimeout(() => proc.kill("SIGKILL"), graceMs);
      await proc.exited;
      clearTimeout(timer);
    },
  };
}
