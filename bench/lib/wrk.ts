// Driving wrk pinned to its own core and reading its report (requests/s, the latency
// distribution printed by --latency, non-2xx responses, socket errors).
import { resolve } from "node:path";
import { track } from "./proc.ts";

export const WRK_DIR = resolve(import.meta.dir, "../wrk");

export interface WrkRun {
  /** Full URL; its path and query are what wrk sends unless the script builds requests. */
  url: string;
  /** A file name in bench/wrk/, or none for a bare GET. */
  script?: string;
  /** Passed to the script's init(args) after `--`. */
  args?: string[];
  connections: number;
  durationS: number;
  core: number;
  /** BENCH_TOKEN and friends: secrets go through the environment, never argv. */
  env?: Record<string, string>;
}

export interface WrkResult {
  rps: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  non2xx: number;
  socketErrors: number;
  /** wrk's own CPU seconds, to tell its core's foreign load from its own. */
  cpuS: number;
  /**
   * The latency distribution as equally spaced quantile points in microseconds (point i: the
   * latency i/length of the requests stayed under), when the script prints it (paced.lua);
   * windows are pooled from these (stats.ts, pooledPercentile).
   */
  quantilesUs: number[] | null;
}

/** wrk reports slow responses past this as timeouts; generous, so a slow page still counts. */
const TIMEOUT_S = 10;

export function wrkArgv(run: WrkRun): string[] {
  const argv = [
    "taskset",
    "-c",
    String(run.core),
    "wrk",
    "-t1",
    `-c${run.connections}`,
    `-d${run.durationS}s`,
    "--latency",
    `--timeout`,
    `${TIMEOUT_S}s`,
  ];
  if (run.script) argv.push("-s", resolve(WRK_DIR, run.script));
  argv.push(run.url);
  if (run.args && run.args.length > 0) argv.push("--", ...run.args);
  return argv;
}

export async function runWrk(run: WrkRun): Promise<WrkResult> {
  const proc = Bun.spawn(wrkArgv(run), { env: { ...process.env, ...run.env }, stdout: "pipe", stderr: "pipe" });
  track(proc);
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  if (code !== 0) throw new Error(`wrk exited ${code}: ${err.trim() || out.trim()}`);
  const cpu = proc.resourceUsage()?.cpuTime.total;
  return { ...parseWrk(out), cpuS: cpu === undefined ? 0 : Number(cpu) / 1e6 };
}

const UNIT_MS: Record<string, number> = { us: 0.001, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

function latencyMs(text: string, percentile: string): number {
  const match = new RegExp(`^\\s*${percentile}%\\s+([\\d.]+)(us|ms|s|m|h)\\s*$`, "m").exec(text);
  if (!match) return Number.NaN;
  return Number(match[1]) * UNIT_MS[match[2]!]!;
}

function count(text: string, pattern: RegExp): number {
  const match = pattern.exec(text);
  return match ? Number(match[1]) : 0;
}

export function parseWrk(text: string): Omit<WrkResult, "cpuS"> {
  const rps = /^Requests\/sec:\s+([\d.]+)/m.exec(text);
  if (!rps) throw new Error(`cannot read wrk's report:\n${text}`);
  const quantiles = /^latency quantiles \(us\): (.+)$/m.exec(text);
  const sockets = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(text);
  return {
    rps: Number(rps[1]),
    p50Ms: latencyMs(text, "50"),
    p99Ms: latencyMs(text, "99"),
    requests: count(text, /^\s*(\d+) requests in/m),
    // wrk prints these lines only when the count is not zero.
    non2xx: count(text, /Non-2xx or 3xx responses: (\d+)/),
    socketErrors: sockets ? sockets.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0,
    quantilesUs: quantiles ? quantiles[1]!.trim().split(/\s+/).map(Number) : null,
  };
}

/** The command as a reader can paste it, the token left as the variable the scripts read. */
export function wrkCommandLine(run: WrkRun): string {
  const env = run.env && "BENCH_TOKEN" in run.env ? 'BENCH_TOKEN="$TOKEN" ' : "";
  const argv = wrkArgv(run).map((a) => (a.startsWith(WRK_DIR) ? a.replace(WRK_DIR, "bench/wrk") : a));
  return env + argv.map((a) => (/[^\w@%+=:,./-]/.test(a) ? `'${a}'` : a)).join(" ");
}
