// `bun run loadtest SCENARIO [--target URL] [--db FILE] [--pin] [-e NAME=VALUE]…`: runs one
// k6 scenario of loadtest/ and keeps what a performance engineer looks at afterwards: k6's HTML
// report and JSON summary under loadtest/reports/ (and, against the sandbox, the server's own
// /metrics at the end). Without --target it starts the compiled binary as a sandbox on a copy
// of the data and stops it afterwards. Exits with k6's code (99: a threshold failed), or 2 when
// the command itself cannot run, saying why.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { parseArgs } from "node:util";
import { findTool } from "../test/helpers/tools.ts";
import {
  k6Candidates,
  REPORTS_DIR,
  type ReportPaths,
  ROOT,
  reportEnv,
  scenarioNames,
  scenarioPath,
} from "./loadtest/k6.ts";
import { describeLoad, type MachineLoad, watchMachine } from "./loadtest/machine.ts";
import { type Sandbox, startSandbox } from "./loadtest/sandbox.ts";

const USAGE = `usage: bun run loadtest SCENARIO [--target URL] [--db FILE] [--pin] [--reports DIR] [-e NAME=VALUE]...

  SCENARIO      one of: ${scenarioNames().join(", ")}
  --target URL  drive this server (its address, without /v1) instead of a local sandbox
  --db FILE     the sandbox serves a copy of FILE (default: a copy of data/sandbox.sqlite if
                present, else a freshly seeded dataset); not with --target
  --pin         the sandbox on core 0 and k6 on core 1 (taskset), so they do not compete
  --reports DIR where to write the reports (default loadtest/reports, ignored by git)
  -e NAME=VALUE passed to k6 as is (VUS=200, MAX_RATE=3000, API_KEY=…; see loadtest/README.md)

Reports: <scenario>-<time>.html (k6's web dashboard export) and .json (the end-of-test
summary); against the sandbox also .metrics.txt (its /metrics after the run).`;

const BINARY = join(ROOT, "dist/partner-api");
const SERVER_CORE = 0;
const K6_CORE = 1;

/** What keeps the command from running, said plainly; with the usage when the command line was wrong. */
class CommandError extends Error {
  constructor(
    message: string,
    readonly showUsage = false,
  ) {
    super(message);
  }
}

const usageError = (message: string) => new CommandError(message, true);

interface Invocation {
  scenario: string;
  script: string;
  target: string | null;
  db: string | null;
  pin: boolean;
  reports: string;
  env: string[];
}

/** The flags of the command line; a usage error for any it does not take. */
function parseFlags(argv: string[]) {
  try {
    return parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        target: { type: "string" },
        db: { type: "string" },
        pin: { type: "boolean", default: false },
        reports: { type: "string", default: REPORTS_DIR },
        e: { type: "string", short: "e", multiple: true, default: [] },
        help: { type: "boolean", short: "h", default: false },
      },
    });
  } catch (error) {
    throw usageError((error as Error).message);
  }
}

function parse(argv: string[]): Invocation {
  const { values, positionals } = parseFlags(argv);
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  if (positionals.length !== 1)
    throw usageError(
      positionals.length === 0 ? "which scenario?" : `one scenario at a time, got ${positionals.join(" ")}`,
    );
  const scenario = positionals[0]!.replace(/\.js$/, "");
  const script = scenarioPath(scenario);
  if (script === null)
    throw usageError(`unknown scenario "${scenario}"; the scenarios are ${scenarioNames().join(", ")}`);
  for (const setting of values.e) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*=/.test(setting)) throw usageError(`-e takes NAME=VALUE, got "${setting}"`);
  }
  if (values.target !== undefined && values.db !== undefined)
    throw usageError("--db picks the sandbox's data; with --target there is no sandbox");
  if (values.db !== undefined && !existsSync(values.db)) throw usageError(`--db ${values.db}: no such file`);
  return {
    scenario,
    script,
    target: values.target ?? null,
    db: values.db ?? null,
    pin: values.pin,
    reports: resolve(values.reports),
    env: values.e,
  };
}

/** k6 from the K6 variable (which must then exist), beside the repository, or on PATH. */
function locateK6(): string {
  const explicit = process.env.K6?.trim();
  const candidates = k6Candidates();
  const found = findTool(explicit ? candidates.slice(0, 1) : candidates);
  if (found !== null) return found;
  if (explicit) throw new CommandError(`K6=${explicit}: no k6 there`);
  throw new CommandError(`k6 not found (looked for ${candidates.join(", ")}); install k6 or set K6=/path/to/k6`);
}

/** The --target as a base URL, checked to answer at all (any HTTP status will do). */
async function reachableTarget(target: string): Promise<string> {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    throw new CommandError(`--target ${target}: not a URL (expected something like http://127.0.0.1:8080)`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new CommandError(`--target ${target}: not an http(s) URL`);
  const base = url.href.replace(/\/+$/, "");
  try {
    const health = await fetch(`${base}/health`, { signal: AbortSignal.timeout(5_000) });
    if (health.status !== 200) console.error(`loadtest: warning: ${base}/health answered ${health.status}`);
  } catch (error) {
    throw new CommandError(`--target ${target}: cannot reach it (${(error as Error).message})`);
  }
  return base;
}

function requireTwoCores(): void {
  if (findTool(["taskset"]) === null) throw new CommandError("--pin needs taskset (util-linux)");
  if (navigator.hardwareConcurrency < 2) throw new CommandError("--pin needs two cores");
}

function reportPaths(dir: string, scenario: string): ReportPaths & { metrics: string } {
  const stamp = new Date().toISOString().replace(/[:.]/g, "-").replace(/Z$/, "");
  const base = join(dir, `${scenario}-${stamp}`);
  return { html: `${base}.html`, json: `${base}.json`, metrics: `${base}.metrics.txt` };
}

/** setup() returns the run's bearer token, and k6 writes it into the summary: drop it. */
function stripSetupData(summaryPath: string): void {
  if (!existsSync(summaryPath)) return;
  const summary = JSON.parse(readFileSync(summaryPath, "utf8")) as Record<string, unknown>;
  delete summary.setup_data;
  writeFileSync(summaryPath, JSON.stringify(summary, null, 2) + "\n");
}

/** k6's exit code and the CPU seconds it used. */
async function runK6(
  k6: string,
  run: Invocation,
  baseUrl: string,
  paths: ReportPaths,
): Promise<{ exitCode: number; cpuSeconds: number }> {
  const pin = run.pin ? ["taskset", "-c", String(K6_CORE)] : [];
  const argv = [
    ...pin,
    k6,
    "run",
    "-e",
    `BASE_URL=${baseUrl}`,
    ...run.env.flatMap((setting) => ["-e", setting]),
    "--summary-export",
    paths.json,
    run.script,
  ];
  console.error(`loadtest: ${argv.map((a) => (a.includes(" ") ? JSON.stringify(a) : a)).join(" ")}`);
  const proc = Bun.spawn(argv, {
    cwd: ROOT,
    env: { ...process.env, ...reportEnv(paths, run.scenario, process.env) },
    stdio: ["inherit", "inherit", "inherit"],
  });
  const exitCode = await proc.exited;
  const usage = proc.resourceUsage();
  return { exitCode, cpuSeconds: usage === undefined ? 0 : Number(usage.cpuTime.total) / 1e6 };
}

async function main(): Promise<number> {
  const run = parse(process.argv.slice(2));
  const baseUrl = run.target === null ? null : await reachableTarget(run.target);
  if (baseUrl === null && !existsSync(BINARY)) {
    throw new CommandError("no dist/partner-api to start a sandbox from: run `bun run build` first, or give --target");
  }
  const k6 = locateK6();
  if (run.pin) requireTwoCores();

  // Ctrl-C reaches k6 too, which stops the test and still writes its reports; then clean up.
  process.on("SIGINT", () => {});
  mkdirSync(run.reports, { recursive: true });
  const paths = reportPaths(run.reports, run.scenario);
  const workDir = baseUrl === null ? mkdtempSync(join(tmpdir(), "pa-loadtest-")) : null;
  let sandbox: Sandbox | null = null;
  let exitCode: number;
  let machineLoad: MachineLoad;
  let cpuShares: { seconds: number; k6: number; server: number | null };
  try {
    if (workDir !== null) {
      const source =
        run.db ?? (existsSync(join(ROOT, "data/sandbox.sqlite")) ? join(ROOT, "data/sandbox.sqlite") : null);
      console.error(
        `loadtest: starting dist/partner-api (built ${statSync(BINARY).mtime.toISOString()}) as a sandbox on ` +
          (source === null ? "a freshly seeded dataset" : `a copy of ${relative(ROOT, source) || source}`),
      );
      sandbox = await startSandbox({ binary: BINARY, workDir, sourceDb: source, cpu: run.pin ? SERVER_CORE : null });
      console.error(`loadtest: sandbox serving at ${sandbox.url} (its /metrics is open while the run lasts)`);
    }
    const serverCpuBefore = sandbox?.cpuSeconds() ?? 0;
    const machine = watchMachine();
    const started = performance.now();
    const k6Run = await runK6(k6, run, baseUrl ?? sandbox!.url, paths);
    exitCode = k6Run.exitCode;
    const serverCpu = sandbox === null ? null : sandbox.cpuSeconds() - serverCpuBefore;
    machineLoad = machine.stop(k6Run.cpuSeconds + (serverCpu ?? 0));
    cpuShares = { seconds: (performance.now() - started) / 1000, k6: k6Run.cpuSeconds, server: serverCpu };
    stripSetupData(paths.json);
    const scrape = await sandbox?.metrics();
    if (scrape) writeFileSync(paths.metrics, scrape);
  } finally {
    await sandbox?.stop();
    if (workDir !== null) rmSync(workDir, { recursive: true, force: true });
  }

  console.error("");
  for (const [what, path] of [
    ["HTML report", paths.html],
    ["JSON summary", paths.json],
    ["server /metrics", paths.metrics],
  ] as const) {
    if (existsSync(path)) console.error(`loadtest: ${what}: ${relative(process.cwd(), path)}`);
    else if (what === "HTML report")
      console.error("loadtest: no HTML report (k6 writes none for a run shorter than a few seconds)");
  }
  const share = (cpu: number) => `${((cpu / cpuShares.seconds) * 100).toFixed(0)} % of a core`;
  console.error(
    `loadtest: k6 used ${share(cpuShares.k6)}${cpuShares.server === null ? "" : `, the sandbox ${share(cpuShares.server)}`}`,
  );
  console.error(`loadtest: ${describeLoad(machineLoad)}`);
  console.error(`loadtest: k6 exited ${exitCode}${exitCode === 99 ? " (a threshold failed)" : ""}`);
  return exitCode;
}

try {
  process.exit(await main());
} catch (error) {
  const message =
    error instanceof CommandError && error.showUsage ? `${error.message}\n\n${USAGE}` : (error as Error).message;
  console.error(`loadtest: ${message}`);
  process.exit(2);
}
