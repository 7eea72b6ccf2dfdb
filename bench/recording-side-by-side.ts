// Recording's cost on the read hot path, side by side (docs/operators/console.md#how-it-is-recorded):
// two `serve` processes of the compiled build on copies of one dataset, one recording usage and
// the request log (the default) and one with `"usage": {"record": false}`, pinned together to one
// core and driven at the same moment by two wrk on the other, round after round.
//
// Why at once rather than one after the other, as the runner's `--variant-config` does: this
// machine's host takes a share of the CPU that changes from second to second, more than the few
// per cent measured here; two servers sharing a core in the same seconds lose the same share.
// What counts is each server's CPU per request (all its threads, from /proc/…/schedstat, so the
// writer thread's share is in it): on a saturated core a server's throughput is the inverse, so
// off ÷ on is the share of its throughput the recording server keeps. The requests per second of
// each are printed too, but the scheduler gives the recording server's writer thread a time slice
// of its own, which flatters the recording server's figure.
//
//   bun bench/recording-side-by-side.ts [--launches 5] [--rounds 5] [--duration 4] [--connections 25]
//
// Prints its Markdown section and records it for bench/RESULTS.md
// (bench/results/*-recording-side-by-side.md).
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { freePort, killAll, type Launched, launch } from "./harness/launch.ts";
import { getJson, issueToken } from "./lib/api.ts";
import { describeMachine } from "./lib/machine.ts";
import {
  DATASET_1K,
  ensureBinary,
  ensureDataset,
  OUT,
  ROOT,
  removeDatabase,
  serveArgv,
  workingCopy,
} from "./lib/product.ts";
import { PROPS_FEW } from "./lib/scenarios.ts";
import { recordSection } from "./lib/sections.ts";
import { writeColumnConfig } from "./lib/variant.ts";
import { runWrk, type WrkResult } from "./lib/wrk.ts";

const { values } = parseArgs({
  options: {
    launches: { type: "string", default: "5" },
    rounds: { type: "string", default: "5" },
    duration: { type: "string", default: "4" },
    connections: { type: "string", default: "25" },
  },
});
const LAUNCHES = Number(values.launches);
const ROUNDS = Number(values.rounds);
const DURATION_S = Number(values.duration);
const CONNECTIONS = Number(values.connections);
const SERVER_CORE = 0;
const LOAD_CORE = 1;
/** Long enough for both servers' JIT to settle on the route, the recording server's writer thread included. */
const WARM_UP_S = 5;

const log = (line: string) => console.error(line);
/** Time the host took from this machine (jiffies of /proc/stat's steal column, 10 ms each). */
const stealS = async () => Number((await Bun.file("/proc/stat").text()).split("\n")[0]!.trim().split(/\s+/)[8]) / 100;

interface Column {
  label: "on" | "off";
  server: Launched;
  token: string;
}

async function start(label: Column["label"], source: string): Promise<Column> {
  const db = workingCopy({ ...DATASET_1K, label: `recording-${label}` }, source);
  const control = join(OUT, `recording-${label}-control.sqlite`);
  removeDatabase(control);
  const config = join(OUT, `recording-${label}.json`);
  writeColumnConfig(config, db, control, label === "off" ? { usage: { record: false } } : null);
  const port = freePort();
  const server = await launch({
    name: `recording ${label}`,
    argv: serveArgv(config, port),
    port,
    core: SERVER_CORE,
    stderrFile: join(OUT, `recording-${label}.stderr.log`),
  });
  return { label, server, token: await issueToken(server.base) };
}

/**
 * CPU seconds a thread has run, from its schedstat (nanoseconds; /proc/…/stat counts 10 ms
 * ticks, too coarse for a per cent of a 4 s round); 0 once it is gone.
 */
function threadCpuS(pid: number, tid: number): number {
  try {
    return Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0]) / 1e9;
  } catch {
    return 0;
  }
}

/** CPU seconds of a process's threads, the main one (its event loop) apart. */
function processCpu(pid: number): { all: number; loop: number } {
  let all = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) all += threadCpuS(pid, Number(tid));
  return { all, loop: threadCpuS(pid, pid) };
}

interface Pair {
  on: WrkResult;
  off: WrkResult;
  /** CPU µs per request of each server, all its threads. */
  onUs: number;
  offUs: number;
  /** CPU µs per request of each server's event loop. */
  onLoopUs: number;
  offLoopUs: number;
  stealS: number;
}

/** Both servers loaded at the same moment on `path`; each one's CPU over the same seconds. */
async function pair(on: Column, off: Column, path: string, durationS: number): Promise<Pair> {
  const run = (column: Column) =>
    runWrk({
      url: column.server.base + path,
      script: "bearer.lua",
      connections: CONNECTIONS,
      durationS,
      core: LOAD_CORE,
      env: { BENCH_TOKEN: column.token },
    });
  const cpu = () =>
    [on, off].flatMap(({ server }) => {
      const { all, loop } = processCpu(server.pid);
      return [all, loop];
    });
  const cpuBefore = cpu();
  const stealBefore = await stealS();
  const [onRun, offRun] = await Promise.all([run(on), run(off)]);
  const cpuAfter = cpu();
  const usPer = (i: number, requests: number) => ((cpuAfter[i]! - cpuBefore[i]!) / requests) * 1e6;
  for (const [column, result] of [
    [on, onRun],
    [off, offRun],
  ] as const)
    if (result.non2xx > 0 || result.socketErrors > 0)
      throw new Error(`${column.server.name}: ${result.non2xx} non-2xx, ${result.socketErrors} socket errors`);
  return {
    on: onRun,
    off: offRun,
    onUs: usPer(0, onRun.requests),
    onLoopUs: usPer(1, onRun.requests),
    offUs: usPer(2, offRun.requests),
    offLoopUs: usPer(3, offRun.requests),
    stealS: (await stealS()) - stealBefore,
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const ratio = (x: number) => x.toFixed(3);
const signed = (x: number) => `${x >= 0 ? "+" : "−"}${Math.abs(x).toFixed(2)}`;

const version = ensureBinary(log);
const source = ensureDataset(DATASET_1K, log);
let running: Column[] = [];
// Interrupted or stopped, the servers go with it.
for (const signal of ["SIGINT", "SIGTERM"] as const)
  process.on(signal, () => {
    killAll();
    process.exit(130);
  });

/** Each route's rounds, over every launch. */
const byRoute = new Map<string, Pair[]>();
/** Each launch's median kept share per route, to show how far one pair of processes can lean. */
const perLaunch = new Map<string, string[]>();
for (let launchNo = 0; launchNo < LAUNCHES; launchNo++) {
  // Alternately started first: the order two processes start in is one of the things that differ.
  const order: Column["label"][] = launchNo % 2 === 0 ? ["on", "off"] : ["off", "on"];
  try {
    for (const label of order) running.push(await start(label, source));
    const on = running.find((c) => c.label === "on")!;
    const off = running.find((c) => c.label === "off")!;
    const fields = (await getJson<{ data: { properties: object } }>(on.server.base, on.token, "/v1/fields")).data;
    const paths = [
      { id: "props-few", path: PROPS_FEW },
      { id: "props-all", path: `/v1/properties?fields=${Object.keys(fields.properties).join(",")}&limit=20` },
    ];
    for (const { id, path } of paths) {
      log(`[launch ${launchNo + 1}, ${id}] warming both up …`);
      await pair(on, off, path, WARM_UP_S);
      const pairs: Pair[] = [];
      for (let i = 0; i < ROUNDS; i++) {
        const p = await pair(on, off, path, DURATION_S);
        pairs.push(p);
        log(
          `[launch ${launchNo + 1}, ${id}] round ${i + 1}: CPU per request off ÷ on ${ratio(p.offUs / p.onUs)} (event loop ${signed(p.onLoopUs - p.offLoopUs)} µs), req/s on ÷ off ${ratio(p.on.rps / p.off.rps)}, steal ${p.stealS.toFixed(1)} s`,
        );
      }
      byRoute.set(id, [...(byRoute.get(id) ?? []), ...pairs]);
      perLaunch.set(id, [...(perLaunch.get(id) ?? []), ratio(median(pairs.map((p) => p.offUs / p.onUs)))]);
    }
  } finally {
    for (const column of running) await column.server.stop();
    running = [];
  }
}

/** The goal (docs/performance.md): the recording server keeps at least this share, median of the rounds. */
const GOAL = 0.97;
const keptOf = (pairs: Pair[]) => median(pairs.map((p) => p.offUs / p.onUs));
const met = [...byRoute.values()].every((pairs) => keptOf(pairs) >= GOAL);
const rows = [...byRoute].map(([id, pairs]) => {
  const kept = pairs.map((p) => p.offUs / p.onUs);
  const m = (f: (p: Pair) => number) => median(pairs.map(f));
  return `| ${id} | **${ratio(keptOf(pairs))}** | ${ratio(Math.min(...kept))} | ${perLaunch.get(id)!.join(", ")} | ${m((p) => p.onUs).toFixed(1)} / ${m((p) => p.offUs).toFixed(1)} | ${signed(m((p) => p.onLoopUs - p.offLoopUs))} / ${signed(m((p) => p.onUs - p.onLoopUs - (p.offUs - p.offLoopUs)))} | ${ratio(m((p) => p.on.rps / p.off.rps))} | ${m((p) => p.on.rps).toFixed(0)} / ${m((p) => p.off.rps).toFixed(0)} | ${pairs.reduce((sum, p) => sum + p.stealS, 0).toFixed(0)} s |`;
});
const machine = describeMachine(ROOT);
const lines = [
  "## Recording on against off, side by side at once (`bench/recording-side-by-side.ts`)",
  "",
  `- Date: ${new Date().toISOString()}; ${version}, commit ${machine.commit}; ${machine.nproc} cores (${machine.cpu}); Bun ${machine.bun}.`,
  `- Two \`serve\` processes of this build on copies of the 1k dataset, one recording usage and the request log (the default), one with \`{"usage":{"record":false}}\`, both pinned to core ${SERVER_CORE}; two wrk (\`-t1 -c${CONNECTIONS}\`, bearer token) on core ${LOAD_CORE} load them in the same seconds. ${LAUNCHES} launches of a fresh pair (started in alternate order), each running ${ROUNDS} rounds of ${DURATION_S} s per route after a ${WARM_UP_S} s warm-up. The host's steal hits both alike.`,
  "- **Kept**: the recording server's throughput as a share of the other's on a saturated core, i.e. CPU per request (all threads, the writer thread's included) off ÷ on: the median of every round, the worst round, and each launch's median (a pair of processes leans a per cent or two one way for its whole life, which is why there are several). The CPU per request on ÷ off is split into what the event loop and the other threads spend more. The requests per second on ÷ off are shown too: the scheduler gives the recording server's extra thread a slice of its own, which flatters it.",
  `- Goal: kept ≥ ${GOAL} on each route: **${met ? "met" : "missed"}**.`,
  "",
  "| route | kept (median) | worst round | each launch | CPU µs per request on / off | more on the event loop / in other threads (µs) | req/s on ÷ off | req/s on / off | steal in the rounds |",
  "|---|---|---|---|---|---|---|---|---|",
  ...rows,
];
console.log(lines.join("\n"));
recordSection("recording-side-by-side", lines.join("\n"));
