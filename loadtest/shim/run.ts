// The shim runner: runs a k6 script under Bun against a live server.
//   bun loadtest/shim/run.ts loadtest/smoke.js [--iterations 3] [-e NAME=value]... [--json]
// Loads the script with `k6`, `k6/http` and `k6/metrics` served by the shim, checks its
// options, runs setup() once, the default function N times as VU 1, teardown(), then prints a
// summary. Exit code 0 only when no check failed and nothing threw.
import { plugin } from "bun";
import { resolve } from "node:path";
import * as k6 from "./k6.ts";
import * as k6Http from "./k6-http.ts";
import * as k6Metrics from "./k6-metrics.ts";
import { checkOptions } from "./options-check.ts";
import { metricTypes, recordError, summarize, type Summary } from "./recorder.ts";
import { startSyncFetch, stopSyncFetch } from "./sync-fetch.ts";

export type { Summary } from "./recorder.ts";

interface Args {
  script: string;
  iterations: number;
  env: Record<string, string>;
  json: boolean;
}

function parseArgs(argv: string[]): Args {
  const args: Args = { script: "", iterations: 3, env: {}, json: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--json") args.json = true;
    else if (arg === "--iterations") args.iterations = Number(argv[++i]);
    else if (arg === "-e" || arg === "--env") {
      const pair = argv[++i] ?? "";
      const eq = pair.indexOf("=");
      if (eq < 1) usage(`-e expects NAME=value, got ${pair}`);
      args.env[pair.slice(0, eq)] = pair.slice(eq + 1);
    } else if (!args.script && !arg.startsWith("-")) args.script = arg;
    else usage(`unknown argument ${arg}`);
  }
  if (!args.script) usage("no script given");
  if (!Number.isInteger(args.iterations) || args.iterations < 1) usage("--iterations must be a positive integer");
  return args;
}

function usage(problem: string): never {
  console.error(`${problem}\nusage: bun loadtest/shim/run.ts SCRIPT [--iterations N] [-e NAME=value]... [--json]`);
  process.exit(2);
}

/** k6's globals. Like `k6 run`, __ENV holds the environment plus the -e values. */
function setGlobals(env: Record<string, string>, vu: number, iteration: number): void {
  const global = globalThis as Record<string, unknown>;
  global.__ENV = { ...process.env, ...env };
  global.__VU = vu;
  global.__ITER = iteration;
}

function redirectK6Imports(): void {
  plugin({
    name: "k6-shim",
    setup(build) {
      build.module("k6", () => ({ loader: "object", exports: { ...k6 } }));
      build.module("k6/http", () => ({ loader: "object", exports: { ...k6Http } }));
      build.module("k6/metrics", () => ({ loader: "object", exports: { ...k6Metrics } }));
    },
  });
}

async function run(args: Args): Promise<Summary> {
  setGlobals(args.env, 0, 0); // init context and setup() run as VU 0, as in k6
  redirectK6Imports();
  await startSyncFetch();
  let completed = 0;
  let thresholdKeys: string[] = [];
  let optionProblems: string[] = [];
  try {
    const script = (await import(resolve(args.script))) as Record<string, unknown>;
    const options = script.options as { thresholds?: Record<string, unknown> } | undefined;
    thresholdKeys = Object.keys(options?.thresholds ?? {});
    optionProblems = checkOptions(script, metricTypes());
    // k6 hands setup()'s result to the VUs as a JSON copy: functions and classes do not survive.
    const data: unknown = typeof script.setup === "function" ? JSON.parse(JSON.stringify(script.setup() ?? null)) : undefined;
    const iterate = script.default as (data: unknown) => void;
    for (let i = 0; i < args.iterations; i++) {
      setGlobals(args.env, 1, i);
      try {
        iterate(data);
        completed++;
      } catch (error) {
        recordError(`iteration ${i}`, error); // k6 too logs it and goes on with the next one
      }
    }
    if (typeof script.teardown === "function") script.teardown(data);
  } catch (error) {
    recordError("init/setup/teardown", error);
  } finally {
    stopSyncFetch();
  }
  return summarize({ script: args.script, iterations: args.iterations, completedIterations: completed, thresholdKeys, optionProblems });
}

function report(summary: Summary): string {
  const lines = [`${summary.script}: ${summary.completedIterations}/${summary.iterations} iterations, ${summary.requests} requests (${summary.failedRequests} failed)`];
  for (const [endpoint, e] of Object.entries(summary.byEndpoint)) {
    lines.push(`  ${endpoint.padEnd(18)} ${String(e.count).padStart(4)} req  statuses ${JSON.stringify(e.statuses)}  max ${e.maxDurationMs} ms`);
  }
  for (const [name, c] of Object.entries(summary.checks)) {
    lines.push(`  ${c.fails === 0 ? "✓" : "✗"} ${name} (${c.passes} passed, ${c.fails} failed)`);
  }
  for (const [name, m] of Object.entries(summary.metrics)) lines.push(`  ${name} (${m.type}): ${m.sum} over ${m.count} adds`);
  if (summary.sleeps.length > 0) lines.push(`  sleep() asked for: ${summary.sleeps.map((s) => s.toFixed(2)).join(", ")} s`);
  for (const tag of summary.thresholdTagsWithoutTraffic) lines.push(`  note: no request carried endpoint tag ${tag}`);
  for (const problem of summary.optionProblems) lines.push(`  options: ${problem}`);
  for (const error of summary.errors) lines.push(`  error: ${error}`);
  return lines.join("\n");
}

if (import.meta.main) {
  const args = parseArgs(process.argv.slice(2));
  const summary = await run(args);
  console.log(args.json ? JSON.stringify(summary) : report(summary));
  const ok = summary.failedChecks === 0 && summary.errors.length === 0 && summary.optionProblems.length === 0;
  process.exit(ok ? 0 : 1);
}
