// `bun run bench`: builds the binary if needed, seeds the datasets, starts the product, the
// bare-Bun ceiling and the commit-per-request baseline pinned to one core, drives them with
// wrk pinned to the other, in interleaved rounds, and writes bench/RESULTS.md.
//
//   bun bench/run.ts [--1m] [--rounds N] [--duration S] [--filter-duration S]
//                    [--cold-samples N] [--connections N] [--retries N] [--only id,id,…|filters|search|seed|import|webhooks|feed-run|feed-run-control|feed-run-one-core|portal-feed|portal-feed-burst|inbound|own-leads|status-lists|recording]
//                    [--compare BINARY] [--one-core-listings N]
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { hashSecret } from "../src/security/secrets.ts";
import { API_KEY, API_SECRET, type Captured, capture, issueToken, timeGet } from "./lib/api.ts";
import { DEFAULT_FEED_RUN_PACE, runFeedRunBench, writeFeedRunSection } from "./lib/feed-run-bench.ts";
import { feedRunOneCoreSection, runFeedRunOneCore, writeFeedRunOneCoreSection } from "./lib/feed-run-one-core.ts";
import { type ImportBenchResult, importSection, runImportBench } from "./lib/import-bench.ts";
import { inboundSection, runInboundBench, writeInboundSection } from "./lib/inbound-bench.ts";
import { describeMachine, loadAverage } from "./lib/machine.ts";
import { coldAndWarm, commandFor, type LoadSettings, measure, measureQuietly, type Sample } from "./lib/measure.ts";
import { ownLeadsSection, runOwnLeadsBench, writeOwnLeadsSection } from "./lib/own-leads.ts";
import {
  DEFAULT_PORTAL_FEED_PACE,
  portalFeedSection,
  runPortalFeedBench,
  writePortalFeedSection,
} from "./lib/portal-feed-bench.ts";
import { portalFeedBurstSection, runPortalFeedBurst, writePortalFeedBurstSection } from "./lib/portal-feed-burst.ts";
import { freePort, killAll, type Server, startRedisServer, startServer } from "./lib/proc.ts";
import {
  BINARY,
  DATASET_1K,
  DATASET_1M,
  DATASETS,
  type Dataset,
  ensureBinary,
  ensureDataset,
  measureSeed,
  OUT,
  ROOT,
  removeDatabase,
  sandboxArgv,
  seedCommand,
  seededBy,
  serveArgv,
  workingCopy,
} from "./lib/product.ts";
import {
  compareSection,
  compareTable,
  nameSecondColumn,
  renderReport,
  scenarioTable,
  verdictTable,
} from "./lib/report.ts";
import type { DatasetResult, FilterResult, RunSettings, ScenarioResult } from "./lib/results.ts";
import { discover, filterQueries, type Scenario, scenarios, type Target } from "./lib/scenarios.ts";
import { runSearchBench } from "./lib/search-bench.ts";
import { runSearchMix } from "./lib/search-mix.ts";
import { recordSection, writeMarkedSection } from "./lib/sections.ts";
import { runStatusListsBench, statusListsSection, writeStatusListsSection } from "./lib/status-lists.ts";
import { pinSelf, requireCores, requireTools } from "./lib/tools.ts";
import { ownerControl, parseVariant, signedInConsole, variantLabel, writeColumnConfig } from "./lib/variant.ts";
import { runWebhookScenario, webhookSection, writeWebhookSection } from "./lib/webhooks.ts";
import { wrkCommandLine } from "./lib/wrk.ts";

const COMPARE_START = "<!-- compare:start -->";
const COMPARE_END = "<!-- compare:end -->";
const SERVER_CORE = 0;
const LOAD_CORE = 1;
/** A short unmeasured run per read scenario, so the first round is not the JIT's warm-up. */
const WARMUP_S = 1;

const { values: flags } = parseArgs({
  options: {
    "1m": { type: "boolean", default: false },
    rounds: { type: "string", default: "3" },
    duration: { type: "string", default: "4" },
    "filter-duration": { type: "string", default: "1" },
    "cold-samples": { type: "string", default: "5" },
    connections: { type: "string", default: "50" },
    retries: { type: "string", default: "1" },
    only: { type: "string" },
    compare: { type: "string" },
    "variant-config": { type: "string" },
    console: { type: "boolean", default: false },
    "one-core-listings": { type: "string" },
  },
});

function integer(name: string, value: string | undefined, min: number): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) {
    console.error(`--${name} must be an integer ≥ ${min}`);
    process.exit(2);
  }
  return n;
}
const positive = (name: string, value: string | undefined) => integer(name, value, 1);

const settings: RunSettings = {
  rounds: positive("rounds", flags.rounds),
  durationS: positive("duration", flags.duration),
  filterDurationS: positive("filter-duration", flags["filter-duration"]),
  coldSamples: positive("cold-samples", flags["cold-samples"]),
  connections: positive("connections", flags.connections),
  retries: integer("retries", flags.retries, 0),
  serverCore: SERVER_CORE,
  loadCore: LOAD_CORE,
};
/** Another build of the product, measured beside this one on every read scenario (before/after a change). */
const compareBinary = flags.compare ?? null;
/** This build changed one way (a config overlay, a signed-in console), measured beside it instead (bench/lib/variant.ts). */
const variant = (() => {
  try {
    return parseVariant(flags["variant-config"], flags.console === true);
  } catch (error) {
    console.error((error as Error).message);
    process.exit(2);
  }
})();
if (variant !== null && compareBinary !== null) {
  console.error("--compare and --variant-config/--console each fill the second column: give one or the other");
  process.exit(2);
}
if (variant !== null) nameSecondColumn(variantLabel(variant));
/** Whether a second column (another build, or this one changed) is measured beside the product. */
const comparing = compareBinary !== null || variant !== null;
const only = flags.only ? new Set(flags.only.split(",").map((s) => s.trim())) : null;
const wanted = (id: string) => only === null || only.has(id);
/** Scenarios run on their own, outside the datasets' rounds; the import needs no wrk either. */
const STANDALONE = [
  "import",
  "webhooks",
  "feed-run",
  "feed-run-control",
  "feed-run-one-core",
  "portal-feed",
  "portal-feed-burst",
  "inbound",
  "own-leads",
  "status-lists",
  "recording",
];
const datasetsWanted = only === null || [...only].some((id) => !STANDALONE.includes(id));
const wrkWanted = only === null || [...only].some((id) => id !== "import");
const runId = Date.now().toString(36);
const log = (line: string) => console.log(line);

const commands: string[] = [];
/** Records a command for RESULTS.md as a reader would type it from the project's root. */
const note = (command: string) => {
  const typed = command.replaceAll(process.execPath, "bun").replaceAll(ROOT + "/", "");
  if (!commands.includes(typed)) commands.push(typed);
};

/** Alternating which server goes first cancels any drift within a round between them. */
function orderFor(targets: Target[], round: number): Target[] {
  return round % 2 === 0 ? targets : [...targets].reverse();
}

function describe(sample: Sample): string {
  const probe = sample.probe ? `  probe p99 ${sample.probe.p99Ms.toFixed(2)} ms` : "";
  const errors =
    sample.non2xx + sample.socketErrors > 0 ? `  non-2xx ${sample.non2xx} socket ${sample.socketErrors}` : "";
  const tries = sample.attempts > 1 ? `  (${sample.attempts} attempts)` : "";
  const perRequest = (n: number | undefined) => Math.round((n ?? Number.NaN) / Math.max(1, sample.requests));
  const cost = `  cpu ${perRequest((sample.serverCpuS ?? Number.NaN) * 1e6)} µs/req  wrote ${perRequest(sample.serverWriteBytes)} B/req`;
  return `${Math.round(sample.rps).toLocaleString("en-US").padStart(8)} req/s  p50 ${sample.p50Ms.toFixed(2)} ms  p99 ${sample.p99Ms.toFixed(2)} ms  rss ${(sample.rssKb / 1024).toFixed(0)} MB  others ${(sample.foreign * 100).toFixed(0)}/${(sample.foreignLoad * 100).toFixed(0)} %${cost}${probe}${errors}${tries}`;
}

async function startCeiling(dataset: Dataset, routes: Captured[]): Promise<Server> {
  const file = join(OUT, `ceiling-${dataset.label}.json`);
  writeFileSync(file, JSON.stringify(routes));
  const port = freePort();
  const server = await startServer({
    name: "ceiling",
    argv: [process.execPath, join(ROOT, "bench/ceiling.ts"), "--port", String(port), "--routes", file],
    core: SERVER_CORE,
    port,
    logFile: join(OUT, "ceiling.log"),
  });
  note(server.command);
  return server;
}

/** The product from source with its rate-limit step on, off, or in Redis (bench/baselines/limiter-switch.ts). */
async function startLimiterSwitch(
  dataset: Dataset,
  db: string,
  limiter: "on" | "off" | "redis",
  redisUrl?: string,
): Promise<Server> {
  const port = freePort();
  const argv = [
    process.execPath,
    join(ROOT, "bench/baselines/limiter-switch.ts"),
    "--port",
    String(port),
    "--db",
    db,
    "--limiter",
    limiter,
    ...(redisUrl ? ["--redis", redisUrl] : []),
  ];
  const server = await startServer({
    name: `limiter-${limiter}`,
    argv,
    core: SERVER_CORE,
    port,
    logFile: join(OUT, `limiter-${limiter}-${dataset.label}.log`),
    readyTimeoutMs: 300_000,
  });
  note(server.command);
  return server;
}

/**
 * `serve` on the dataset copy with a config like the sandbox's (its credentials, a limit never
 * reached) and the limits in Redis: one process pinned to the server's core, or `--workers 2`
 * allowed on both cores (the second is wrk's too: the figure says what two workers get here).
 */
async function startWorkers(dataset: Dataset, db: string, count: 1 | 2, redisUrl: string): Promise<Server> {
  const config = join(OUT, `workers-${dataset.label}.json`);
  writeFileSync(
    config,
    JSON.stringify({
      environment: "sandbox",
      jwtSecret: "bench-secret-long-enough-for-the-workers-scenario",
      databases: { bench: db },
      clients: [
        {
          id: "sandbox",
          apiKey: API_KEY,
          secretHash: hashSecret(API_SECRET),
          database: "bench",
          rateLimitPerMinute: 1_000_000_000,
        },
      ],
      redis: { url: redisUrl, keyPrefix: `bench-workers-${count}:` },
    }),
  );
  const port = freePort();
  const argv = [
    BINARY,
    "serve",
    "--config",
    config,
    "--port",
    String(port),
    "--host",
    "127.0.0.1",
    ...(count === 2 ? ["--workers", "2"] : []),
  ];
  const server = await startServer({
    name: `workers-${count}`,
    argv,
    core: count === 2 ? `${SERVER_CORE},${LOAD_CORE}` : SERVER_CORE,
    port,
    logFile: join(OUT, `workers-${count}-${dataset.label}.log`),
    readyTimeoutMs: 300_000,
  });
  note(server.command);
  return server;
}

async function startBaseline(dataset: Dataset): Promise<Server> {
  const db = join(OUT, `baseline-${dataset.label}.sqlite`);
  removeDatabase(db);
  const port = freePort();
  const server = await startServer({
    name: "baseline",
    argv: [process.execPath, join(ROOT, "bench/baselines/commit-per-request.ts"), "--port", String(port), "--db", db],
    core: SERVER_CORE,
    port,
    logFile: join(OUT, "baseline.log"),
  });
  note(server.command);
  return server;
}

/** Every route the ceiling must answer, each captured once from the product. */
async function captureRoutes(product: Server, token: string, list: Scenario[]): Promise<Captured[]> {
  const seen = new Map<string, Captured>();
  for (const scenario of list) {
    for (const { method, path } of scenario.captures) {
      const key = `${method} ${path}`;
      if (!seen.has(key)) seen.set(key, await capture(product.base, token, method, path));
    }
  }
  return [...seen.values()];
}

async function runDataset(dataset: Dataset, version: string): Promise<DatasetResult> {
  let seed: DatasetResult["seed"];
  if (wanted("seed")) {
    log(`[${dataset.label}] seeding the dataset afresh, timed …`);
    seed = await measureSeed(dataset);
    note(seed.command.replace(/seed-[^ ]+\.sqlite/, "FILE"));
    log(`[${dataset.label}] seed: ${seed.seconds.toFixed(1)} s, peak RSS ${seed.peakRssMb.toFixed(0)} MiB`);
  }
  const source = ensureDataset(dataset, log);
  note(seedCommand(dataset, source).join(" "));
  log(`[${dataset.label}] copying the dataset for this run …`);
  const db = workingCopy(dataset, source);
  const servers: Partial<Record<Target, Server>> = {};
  let redis: Awaited<ReturnType<typeof startRedisServer>> | null = null;
  let compareDb: string | null = null;
  let consoleSession: Awaited<ReturnType<typeof signedInConsole>> | null = null;
  try {
    const port = freePort();
    // Beside a variant, the product runs `serve` on the same config less the variant's change.
    const productConfig = join(OUT, `product-${dataset.label}.json`);
    // Each run's columns start from new control databases: one left by an earlier build may hold
    // another layout of the figures' tables, which this build's recorder could not write.
    for (const column of ["product", "variant"]) removeDatabase(join(OUT, `${column}-control-${dataset.label}.sqlite`));
    if (variant !== null)
      writeColumnConfig(productConfig, db, join(OUT, `product-control-${dataset.label}.sqlite`), null);
    const product = await startServer({
      name: "product",
      argv: variant !== null ? serveArgv(productConfig, port) : sandboxArgv(db, port),
      core: SERVER_CORE,
      port,
      logFile: join(OUT, `product-${dataset.label}.log`),
      readyTimeoutMs: 300_000,
    });
    servers.product = product;
    note(product.command);
    let token = await issueToken(product.base);
    const found = await discover(product.base, token);
    const list = scenarios(found)
      .filter((s) => wanted(s.id))
      // The compared build serves its own file, so write scenarios compare too (each grows its own).
      // Measured right after the product (right before it in the reversed rounds): the pair's ratio is taken per round.
      .map((s) =>
        comparing && s.targets.includes("product")
          ? {
              ...s,
              targets: s.targets.flatMap((t) => (t === "product" ? ["product" as const, "compare" as const] : [t])),
            }
          : s,
      );
    const filters: FilterResult[] = wanted("filters") ? filterQueries(found).map((query) => ({ query, warm: [] })) : [];
    log(
      `[${dataset.label}] ${version}: ${list.map((s) => s.id).join(", ")}${filters.length ? `, ${filters.length} filter queries` : ""}`,
    );

    servers.ceiling = await startCeiling(dataset, await captureRoutes(product, token, list));
    if (list.some((s) => s.targets.includes("baseline"))) servers.baseline = await startBaseline(dataset);
    // Each has its own signing secret (a sandbox config), so each gets its own token.
    const tokens: Partial<Record<Target, string>> = {};
    const needsRedis = list.some((s) => s.targets.some((t) => t === "limiter-redis" || t.startsWith("workers-")));
    if (needsRedis) redis = await startRedisServer(SERVER_CORE, join(OUT, `redis-${dataset.label}.log`));
    for (const limiter of ["on", "off", "redis"] as const) {
      const target = `limiter-${limiter}` as const;
      if (!list.some((s) => s.targets.includes(target))) continue;
      servers[target] = await startLimiterSwitch(dataset, db, limiter, limiter === "redis" ? redis!.url : undefined);
      tokens[target] = await issueToken(servers[target].base);
    }
    for (const count of [1, 2] as const) {
      const target = `workers-${count}` as const;
      if (!list.some((s) => s.targets.includes(target))) continue;
      servers[target] = await startWorkers(dataset, db, count, redis!.url);
      tokens[target] = await issueToken(servers[target].base);
    }
    if (compareBinary !== null) {
      // Its own file, seeded by itself: it may not open a file of this build's newer schema.
      compareDb = seededBy(compareBinary, dataset, (line) => log(`[${dataset.label}] ${line}`));
      const comparePort = freePort();
      servers.compare = await startServer({
        name: "compare",
        argv: sandboxArgv(compareDb, comparePort, compareBinary),
        core: SERVER_CORE,
        port: comparePort,
        logFile: join(OUT, `compare-${dataset.label}.log`),
        readyTimeoutMs: 300_000,
      });
      note(servers.compare.command);
      tokens.compare = await issueToken(servers.compare.base);
    }
    if (variant !== null) {
      // Its own copy of the dataset: the write scenarios grow each column's file alike.
      compareDb = workingCopy({ ...dataset, label: `${dataset.label}-variant` }, source);
      const control = variant.console
        ? await ownerControl(OUT, dataset.label)
        : join(OUT, `variant-control-${dataset.label}.sqlite`);
      const config = join(OUT, `variant-${dataset.label}.json`);
      writeColumnConfig(config, compareDb, control, variant.overlay);
      const variantPort = freePort();
      servers.compare = await startServer({
        name: "variant",
        argv: serveArgv(config, variantPort),
        core: SERVER_CORE,
        port: variantPort,
        logFile: join(OUT, `variant-${dataset.label}.log`),
        readyTimeoutMs: 300_000,
      });
      note(`${servers.compare.command}   # the variant: ${variantLabel(variant)}`);
      tokens.compare = await issueToken(servers.compare.base);
      if (variant.console) {
        consoleSession = await signedInConsole(servers.compare.base);
        log(`[${dataset.label}] an owner is signed in to the variant's console, loading a page every 2 s`);
      }
    }
    const tokenFor = (target: Target) => tokens[target] ?? token;

    const results: ScenarioResult[] = list.map((scenario) => ({
      scenario,
      samples: {},
      command: commandFor(product, scenario, token, loadSettings(settings.durationS)),
    }));
    for (const r of results) note(r.command);

    // Cold and warm single requests first, while the database is as seeded.
    log(`[${dataset.label}] single requests, cold and warm …`);
    for (const r of results) {
      if (r.scenario.writes || r.scenario.script !== "bearer.lua" || !r.scenario.targets.includes("product")) continue;
      r.single = await coldAndWarm(product, token, r.scenario.path, settings.coldSamples);
    }
    for (const f of filters) f.single = await coldAndWarm(product, token, f.query.path, settings.coldSamples);
    // The website's search queries, one request at a time, never from the page cache.
    const search = wanted("search")
      ? await runSearchBench(
          { base: product.base, token },
          Math.max(9, settings.coldSamples),
          (line) => log(`[${dataset.label}] ${line}`),
          servers.compare ? { base: servers.compare.base, token: tokenFor("compare") } : null,
        )
      : [];

    // Hundreds of searches drawn from what websites send, then /health under four dear ones.
    const searchMix = wanted("search-mix")
      ? await runSearchMix(product.base, token, (line) => log(`[${dataset.label}] ${line}`))
      : undefined;

    const reads = results.filter((r) => !r.scenario.writes);
    const writes = results.filter((r) => r.scenario.writes);
    log(`[${dataset.label}] warm-up …`);
    for (const r of reads) {
      for (const target of r.scenario.targets)
        await measure(servers[target]!, r.scenario, tokenFor(target), loadSettings(WARMUP_S), false);
    }

    // Reads before writes: the write scenarios grow the database, which would drift the reads.
    for (const group of [reads, writes]) {
      for (let round = 0; round < settings.rounds; round++) {
        // A fresh token per round, as a client refreshes.
        token = await issueToken(product.base);
        for (const target of Object.keys(tokens) as Target[]) tokens[target] = await issueToken(servers[target]!.base);
        for (const r of group) {
          for (const target of orderFor(r.scenario.targets, round)) {
            const sample = await measureQuietly(
              servers[target]!,
              r.scenario,
              tokenFor(target),
              loadSettings(settings.durationS),
              target === "product" || target === "compare",
            );
            (r.samples[target] ??= []).push(sample);
            log(
              `[${dataset.label} r${round + 1}/${settings.rounds}] ${r.scenario.id.padEnd(13)} ${target.padEnd(8)} ${describe(sample)}`,
            );
          }
        }
        if (group === reads) {
          for (const f of filters) {
            // One request first: the warm figure is the cached page's. Without it, 50 connections
            // would all compute the same cold page at once (the product does not coalesce them).
            await timeGet(product.base, token, f.query.path);
            // No retries here: 28 queries per round, and their warm figures are the page cache's.
            const sample = await measureQuietly(
              product,
              {
                id: "filter",
                title: f.query.filter,
                script: "bearer.lua",
                path: f.query.path,
                captures: [],
                targets: ["product"],
                writes: false,
              },
              token,
              { ...loadSettings(settings.filterDurationS), retries: 0 },
              false,
            );
            f.warm.push(sample);
          }
          if (filters.length)
            log(`[${dataset.label} r${round + 1}/${settings.rounds}] ${filters.length} filter queries done`);
        }
      }
    }
    if (filters[0])
      note(
        wrkCommandLine({
          url: product.base + filters[0].query.path,
          script: "bearer.lua",
          connections: settings.connections,
          durationS: settings.filterDurationS,
          core: LOAD_CORE,
          env: { BENCH_TOKEN: "" },
        }) + "   # and so on for each filter query",
      );

    if (consoleSession !== null) {
      await consoleSession.stop();
      const { pages, failures } = consoleSession.loads;
      log(`[${dataset.label}] console pages loaded during the run: ${pages}, answers other than 200: ${failures}`);
      if (failures > 0) throw new Error(`the variant's console session failed ${failures} times: see its log`);
    }
    const productSamples = [...results.flatMap((r) => r.samples.product ?? []), ...filters.flatMap((f) => f.warm)];
    return {
      dataset,
      scenarios: results,
      filters,
      search,
      ...(searchMix ? { searchMix } : {}),
      productRssMaxKb: Math.max(0, ...productSamples.map((s) => s.rssKb)),
      ...(seed ? { seed } : {}),
    };
  } finally {
    await consoleSession?.stop();
    for (const server of Object.values(servers)) await server.stop();
    await redis?.stop();
    if (compareDb !== null) removeDatabase(compareDb);
    removeDatabase(db);
    removeDatabase(join(OUT, `baseline-${dataset.label}.sqlite`));
  }
}

function loadSettings(durationS: number): LoadSettings {
  return {
    connections: settings.connections,
    durationS,
    serverCore: SERVER_CORE,
    loadCore: LOAD_CORE,
    runId,
    retries: settings.retries,
  };
}

async function main(): Promise<void> {
  if (wrkWanted) requireTools();
  requireCores(SERVER_CORE, LOAD_CORE);
  const machine = describeMachine(ROOT); // before pinning, or nproc would say 1
  pinSelf(LOAD_CORE);
  mkdirSync(OUT, { recursive: true });
  const started = performance.now();
  const date = new Date();
  log(`partner-api bench: ${machine.nproc} cores, ${machine.cpu}, Bun ${machine.bun}, load ${machine.loadStart}`);
  const version = ensureBinary(log);
  note("bun run build   # when dist/partner-api is missing or older than src/");

  // `--only webhooks` runs that scenario alone and rewrites only its section of RESULTS.md;
  // `--only import` runs the import alone and writes its report to bench/out.
  const datasets = !datasetsWanted ? [] : flags["1m"] ? [DATASET_1K, DATASET_1M] : [DATASET_1K];
  const results: DatasetResult[] = [];
  for (const dataset of datasets) {
    const result = await runDataset(dataset, version);
    results.push(result);
    log(`\n${scenarioTable(result)}\n`);
  }
  let imported: ImportBenchResult | null = null;
  if (wanted("import")) {
    imported = await runImportBench({ command: [BINARY], datasets: DATASETS, core: SERVER_CORE, log });
    note(imported.command);
    log(`\n${importSection(imported)}\n`);
  }

  if (datasets.length > 0) writeReport(results, imported, machine, version, date, started);
  else if (imported !== null) {
    // The import without the datasets, a partial run: RESULTS.md keeps the last full run's figures.
    const file = join(OUT, `RESULTS-${runId}.md`);
    writeFileSync(file, `${importSection(imported)}\n`);
    log(`wrote ${file.replace(ROOT + "/", "")}`);
  }
  if (wanted("webhooks")) {
    const source = ensureDataset(DATASET_1K, log);
    const result = await runWebhookScenario({
      source,
      settings: loadSettings(settings.durationS),
      rounds: settings.rounds,
      serverCore: SERVER_CORE,
      loadCore: LOAD_CORE,
      log,
    });
    const context = {
      date,
      machine: `${machine.nproc} cores, ${machine.cpu}`,
      version,
      rounds: settings.rounds,
      durationS: settings.durationS,
      connections: settings.connections,
      load: loadAverage(),
    };
    writeWebhookSection(webhookSection(result, context));
    log("wrote the webhooks section of bench/RESULTS.md");
  }
  // 30 s of quiet on each side: the reference of the goal's ratio; a 10 s p99 of this load moved 2x between the two sides of one run.
  const feedRun = async (controlWindows?: number) => {
    const result = await runFeedRunBench({
      serverCore: SERVER_CORE,
      loadCore: LOAD_CORE,
      ...DEFAULT_FEED_RUN_PACE,
      quietS: 30,
      windowS: 10,
      controlWindows,
      log,
    });
    log(
      `wrote the ${writeFeedRunSection(result, { date, version, machine: `${machine.nproc} cores, ${machine.cpu}` })} section of bench/RESULTS.md`,
    );
  };
  // Needs the 1M dataset: part of a full run with --1m, or asked for by name.
  if (only?.has("feed-run") || (only === null && flags["1m"])) await feedRun();
  // About as many windows as a run of the scenario above lasts on this machine (130–195 s).
  if (only?.has("feed-run-control")) await feedRun(15);
  if (wanted("inbound")) {
    const source = ensureDataset(DATASET_1K, log);
    const result = await runInboundBench({
      source,
      settings: loadSettings(settings.durationS),
      rounds: settings.rounds,
      log,
    });
    writeInboundSection(
      inboundSection(result, { date, version, machine: `${machine.nproc} cores, ${machine.cpu}`, load: loadAverage() }),
    );
    log("wrote the inbound section of bench/RESULTS.md");
  }
  // Asked for by name only: two runs of a 20k-listing feed, one of them on a saturated core.
  if (only?.has("feed-run-one-core")) {
    const listings =
      flags["one-core-listings"] === undefined ? undefined : positive("one-core-listings", flags["one-core-listings"]);
    const result = await runFeedRunOneCore({ serverCore: SERVER_CORE, loadCore: LOAD_CORE, log, listings });
    const written = writeFeedRunOneCoreSection(
      feedRunOneCoreSection(result, { date, version, machine: `${machine.nproc} cores, ${machine.cpu}` }),
      result.listings,
    );
    log(`wrote the feed-run-one-core section of ${written}`);
  }
  if (wanted("portal-feed")) {
    const result = await runPortalFeedBench({
      serverCore: SERVER_CORE,
      loadCore: LOAD_CORE,
      ...DEFAULT_PORTAL_FEED_PACE,
      quietS: 10,
      windowS: 5,
      log,
    });
    writePortalFeedSection(
      portalFeedSection(result, { date, version, machine: `${machine.nproc} cores, ${machine.cpu}` }),
    );
    log("wrote the portal-feed section of bench/RESULTS.md");
  }
  // Asked for by name only: a minute of 100 downloads and the settling after them.
  if (only?.has("portal-feed-burst")) {
    const result = await runPortalFeedBurst({ serverCore: SERVER_CORE, loadCore: LOAD_CORE, log });
    writePortalFeedBurstSection(
      portalFeedBurstSection(result, { date, version, machine: `${machine.nproc} cores, ${machine.cpu}` }),
    );
    log("wrote the portal-feed-burst section of bench/RESULTS.md");
  }
  // Needs the 1M dataset, like the feed-run: part of a full run with --1m, or asked for by name.
  if (only?.has("own-leads") || (only === null && flags["1m"])) {
    const result = await runOwnLeadsBench({
      settings: loadSettings(settings.durationS),
      rounds: settings.rounds,
      coldSamples: settings.coldSamples,
      serverCore: SERVER_CORE,
      warmupS: WARMUP_S,
      log,
    });
    writeOwnLeadsSection(ownLeadsSection(result, { date, version, machine: `${machine.nproc} cores, ${machine.cpu}` }));
    log("wrote the own-leads section of bench/RESULTS.md");
  }
  // Recording on against off, both servers loaded at once (the script says why): its own script,
  // which records its own section.
  if (wanted("recording") && !comparing) {
    const script = join(ROOT, "bench/recording-side-by-side.ts");
    note(`${process.execPath} ${script}`);
    const run = Bun.spawnSync([process.execPath, script], { stdout: "inherit", stderr: "inherit" });
    if (run.exitCode !== 0) throw new Error(`${script} exited ${run.exitCode}`);
    log("wrote the recording-side-by-side section of bench/RESULTS.md");
  }
  // Asked for by name only, with --compare: the CRM's status lists at 1M, cold, beside the other build.
  if (only?.has("status-lists")) {
    if (compareBinary === null) {
      console.error("--only status-lists needs --compare BINARY (the build to time beside this one)");
      process.exit(2);
    }
    const result = await runStatusListsBench({
      compareBinary,
      samples: settings.coldSamples,
      serverCore: SERVER_CORE,
      log,
    });
    writeStatusListsSection(
      statusListsSection(result, {
        date,
        version,
        commit: machine.commit,
        compareCommit: commitOf(compareBinary),
      }),
    );
    log("wrote the status-lists section of bench/RESULTS.md");
  }
}

/** The commit of the worktree a binary was built in, when it is in another one (not a copy kept in this one). */
function commitOf(binary: string): string | null {
  if (resolve(binary).startsWith(`${ROOT}/`)) return null;
  const proc = Bun.spawnSync(["git", "-C", dirname(binary), "rev-parse", "--short", "HEAD"], {
    stdout: "pipe",
    stderr: "ignore",
  });
  return proc.exitCode === 0 ? proc.stdout.toString().trim() : null;
}

function writeReport(
  results: DatasetResult[],
  imported: ImportBenchResult | null,
  machine: ReturnType<typeof describeMachine>,
  version: string,
  date: Date,
  started: number,
): void {
  const report = renderReport({
    date,
    machine,
    loadEnd: loadAverage(),
    version,
    settings,
    argv: process.argv.slice(2),
    commands,
    results,
    imported,
    durationS: (performance.now() - started) / 1000,
  });
  // A full run records its report as the page's first section (the other sections stay as their
  // runs recorded them); a partial run (--only, --compare, a variant) writes its own file instead.
  const full = only === null && !comparing;
  const reportPath = full ? join(ROOT, "bench/RESULTS.md") : join(OUT, `RESULTS-${runId}.md`);
  if (full) recordSection("full-run", report);
  else writeFileSync(reportPath, report);
  // A run that measured no scenario beside the other build (search alone) leaves that section as it is.
  if (compareBinary !== null && results.some((r) => compareTable(r) !== "")) {
    // The ratios of the last --compare run keep a section of RESULTS.md; the rest of the file stays as the last full run wrote it.
    const section = compareSection(
      results,
      {
        date,
        version,
        commit: machine.commit,
        compareBinary,
        compareCommit: commitOf(compareBinary),
        settings,
        argv: process.argv.slice(2),
        load: { start: machine.loadStart, end: loadAverage() },
      },
      { start: COMPARE_START, end: COMPARE_END },
    );
    writeMarkedSection(COMPARE_START, COMPARE_END, section);
    log("wrote the before/after (--compare) section of bench/RESULTS.md");
  }
  writeFileSync(join(OUT, `results-${runId}.json`), JSON.stringify(results, null, 1));
  log(
    `${verdictTable(results)}\n\nwrote ${reportPath.replace(ROOT + "/", "")} (and raw figures in bench/out/results-${runId}.json)`,
  );
}

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    killAll();
    process.exit(130);
  });
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  killAll();
  process.exit(1);
});
