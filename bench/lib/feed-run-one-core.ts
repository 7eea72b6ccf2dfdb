// The feed-run-one-core scenario (issue #42): a 1-vCPU server, as small agencies run. `serve`
// pinned to one core runs a scheduled 20,000-listing feed twice, each time on a fresh copy of
// the 1k dataset: once with nothing else to do but a few partners creating leads (unloaded),
// once while wrk saturates list reads from the other core (loaded). The run's time loaded over
// unloaded, from the same run of the runner; lead creation p99 and max during each run. The
// run's process is the server's child, on the server's core, under background-priority.ts.
import { Database } from "bun:sqlite";
import { copyFileSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { hashSecret } from "../../src/security/secrets.ts";
import { API_KEY, API_SECRET, issueToken } from "./api.ts";
import { ensureCrmFeed } from "./import-bench.ts";
import { loadAverage, READ_PATH } from "./paced.ts";
import { freePort, startServer } from "./proc.ts";
import { DATASET_1K, ensureDataset, OUT, ROOT, removeDatabase, serveArgv } from "./product.ts";
import { markedSection, writeMarkedSection } from "./sections.ts";
import { pooledPercentile } from "./stats.ts";
import { runWrk, type WrkResult, type WrkRun, wrkCommandLine } from "./wrk.ts";

export const ONE_CORE_LISTINGS = 20_000;
/** The issue's goals: the run within 3× its unloaded time; lead p99 ≤ 100 ms, max < 1 s. */
export const ONE_CORE_TARGETS = { runRatio: 3, leadP99Ms: 100, leadMaxMs: 1000 } as const;
const WINDOW_S = 5;
const CONTROL_WINDOWS = 3;
const LEADS = { connections: 4, pauseMs: 20 };
/** Saturating: a closed loop of 32 connections with no pause. */
const READS = { connections: 32, pauseMs: 0 };

/** The bench's token for GET /metrics. */
const METRICS_TOKEN = "bench-metrics-token-one-core";

/** A histogram of the server's group commit over the run: batches, and how many took longer than 25 and 100 ms. */
export interface BatchTimes {
  batches: number;
  meanMs: number;
  over25: number;
  over100: number;
  over1000: number;
}

export interface OneCorePhase {
  /** The lead batches' wait for the lock (and gathering), and their commit with the WAL's sync, during the run. */
  batches: { wait: BatchTimes; commit: BatchTimes } | null;
  loaded: boolean;
  /** The same load with no run, just before it (CONTROL_WINDOWS windows): what the machine gives leads anyway. */
  control: { leads: WrkResult[]; reads: WrkResult[] };
  runSeconds: number;
  /** Bytes the run's process had written (its /proc/<pid>/io write_bytes, last seen): the disk's share of the run. */
  runWriteBytes: number;
  outcome: string;
  summary: unknown;
  leads: WrkResult[];
  reads: WrkResult[];
}

export interface OneCoreResult {
  listings: number;
  feedMiB: number;
  unloaded: OneCorePhase;
  loaded: OneCorePhase;
  serverCore: number;
  loadCore: number;
  commands: string[];
  loadAverage: { before: string; after: string };
}

function writeConfig(path: string, db: string, feedUrl: string | null): void {
  writeFileSync(
    path,
    JSON.stringify({
      environment: "sandbox",
      jwtSecret: "bench-secret-long-enough-for-the-one-core-feed-run",
      databases: { bench: db },
      metrics: { token: METRICS_TOKEN },
      clients: [
        {
          id: "sandbox",
          apiKey: API_KEY,
          secretHash: hashSecret(API_SECRET),
          database: "bench",
          rateLimitPerMinute: 1_000_000_000,
        },
      ],
      feeds:
        feedUrl === null
          ? []
          : [{ id: "crm", database: "bench", url: feedUrl, every: "1h", mode: "partial", timeout: "30m" }],
    }),
    { mode: 0o600 },
  );
}

/** The children of a process (the feed run's, for `serve`), by /proc. */
function childrenOf(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((tid) =>
      readFileSync(`/proc/${pid}/task/${tid}/children`, "utf8").split(" ").filter(Boolean).map(Number),
    );
  } catch {
    return [];
  }
}

/** Watches the bytes written by the children of `pid`: the last figure seen of each, summed. */
function watchChildWrites(pid: number): { stop(): number } {
  const seen = new Map<number, number>();
  const look = () => {
    for (const child of childrenOf(pid)) {
      try {
        const bytes = Number(/^write_bytes: (\d+)$/m.exec(readFileSync(`/proc/${child}/io`, "utf8"))?.[1] ?? NaN);
        if (Number.isFinite(bytes)) seen.set(child, Math.max(bytes, seen.get(child) ?? 0));
      } catch {
        // Gone already.
      }
    }
  };
  const timer = setInterval(look, 200);
  return {
    stop() {
      clearInterval(timer);
      look();
      return [...seen.values()].reduce((a, b) => a + b, 0);
    },
  };
}

type Histograms = Map<string, number>;

/** The server's metrics as `name{labels}` → value (null when they cannot be read). */
async function scrapeMetrics(base: string): Promise<Histograms | null> {
  try {
    const response = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    if (!response.ok) return null;
    const values: Histograms = new Map();
    for (const line of (await response.text()).split("\n")) {
      const match =
        /^(partner_api_group_commit_(?:wait|duration)_seconds_(?:bucket|sum|count))(\{[^}]*\})? ([0-9.e+-]+)$/.exec(
          line,
        );
      if (match) values.set(`${match[1]}${match[2] ?? ""}`, Number(match[3]));
    }
    return values;
  } catch {
    return null;
  }
}

/** One histogram's change between two scrapes. */
function batchTimes(before: Histograms, after: Histograms, name: string): BatchTimes {
  const delta = (key: string) => (after.get(key) ?? 0) - (before.get(key) ?? 0);
  const batches = delta(`${name}_count`);
  const upTo = (le: string) => delta(`${name}_bucket{le="${le}"}`);
  return {
    batches,
    meanMs: batches === 0 ? 0 : (delta(`${name}_sum`) / batches) * 1000,
    over25: batches - upTo("0.025"),
    over100: batches - upTo("0.1"),
    over1000: batches - upTo("1"),
  };
}

function wrkRun(base: string, token: string, core: number, mode: "leads" | "reads", durationS: number): WrkRun {
  const pace = mode === "leads" ? LEADS : READS;
  return {
    url: `${base}${mode === "reads" ? READ_PATH : "/v1/leads"}`,
    script: "paced.lua",
    args: [mode, String(pace.pauseMs)],
    connections: pace.connections,
    durationS,
    core,
    env: { BENCH_TOKEN: token, BENCH_RUN: `one-core-${mode}-${Date.now().toString(36)}` },
  };
}

/**
 * One window of wrk, run again when wrk was killed from outside (exit 143 or 137: on a machine
 * shared with other engineers, someone's clean-up), at most a few times.
 */
async function runWindow(run: WrkRun, log: (line: string) => void): Promise<WrkResult> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await runWrk(run);
    } catch (error) {
      const killed = /wrk exited (143|137)\b/.test((error as Error).message);
      if (!killed || attempt === 5) throw error;
      log(`feed-run-one-core: wrk was killed from outside (${(error as Error).message.trim()}); the window again`);
    }
  }
}

async function phase(
  loaded: boolean,
  feedUrl: string,
  settings: { serverCore: number; loadCore: number; log: (line: string) => void },
  commands: string[],
): Promise<OneCorePhase> {
  const { log } = settings;
  const db = join(OUT, "feed-run-one-core.sqlite");
  removeDatabase(db);
  copyFileSync(ensureDataset(DATASET_1K, log), db);
  const config = join(OUT, "feed-run-one-core.json");
  writeConfig(config, db, null);
  const port = freePort();
  const argv = serveArgv(config, port);
  const server = await startServer({
    name: "feed-run-one-core",
    argv,
    core: settings.serverCore,
    port,
    logFile: join(OUT, "feed-run-one-core.log"),
  });
  try {
    const token = await issueToken(server.base);
    if (commands.length === 0)
      commands.push(
        server.command,
        wrkCommandLine(wrkRun(server.base, token, settings.loadCore, "leads", WINDOW_S)),
        wrkCommandLine(wrkRun(server.base, token, settings.loadCore, "reads", WINDOW_S)),
      );
    // Warm-up, unmeasured: the server's caches and JIT, the load at its pace.
    await Promise.all([
      runWindow(wrkRun(server.base, token, settings.loadCore, "leads", 2), log),
      ...(loaded ? [runWindow(wrkRun(server.base, token, settings.loadCore, "reads", 2), log)] : []),
    ]);
    const control: OneCorePhase["control"] = { leads: [], reads: [] };
    for (let i = 0; i < CONTROL_WINDOWS; i++) {
      const [l, r] = await Promise.all([
        runWindow(wrkRun(server.base, token, settings.loadCore, "leads", WINDOW_S), log),
        loaded
          ? runWindow(wrkRun(server.base, token, settings.loadCore, "reads", WINDOW_S), log)
          : Promise.resolve(null),
      ]);
      control.leads.push(l);
      if (r !== null) control.reads.push(r);
      log(
        `feed-run-one-core ${loaded ? "loaded" : "unloaded"} control window ${i + 1} (no run): leads p99 ${l.p99Ms.toFixed(1)} ms max ${((l.quantilesUs?.at(-1) ?? 0) / 1000).toFixed(0)} ms${r ? `, reads ${r.rps.toFixed(0)}/s` : ""}`,
      );
    }
    const state = new Database(db, { readonly: true });
    const triggered = Date.now();
    const finished = () =>
      state
        .query<{ outcome: string; started: number; finished: number; summary: string | null }, [number]>(
          "SELECT last_outcome AS outcome, last_started_at AS started, last_finished_at AS finished, last_summary AS summary FROM feed_runs WHERE feed_id = 'crm' AND last_finished_at > ?",
        )
        .get(triggered);
    writeConfig(config, db, feedUrl);
    const metricsBefore = await scrapeMetrics(server.base);
    const writes = watchChildWrites(server.pid);
    process.kill(server.pid, "SIGHUP");
    const leads: WrkResult[] = [];
    const reads: WrkResult[] = [];
    let ran = finished();
    while (ran === null) {
      const [l, r] = await Promise.all([
        runWindow(wrkRun(server.base, token, settings.loadCore, "leads", WINDOW_S), log),
        loaded
          ? runWindow(wrkRun(server.base, token, settings.loadCore, "reads", WINDOW_S), log)
          : Promise.resolve(null),
      ]);
      leads.push(l);
      if (r !== null) reads.push(r);
      const maxMs = (l.quantilesUs?.at(-1) ?? 0) / 1000;
      log(
        `feed-run-one-core ${loaded ? "loaded" : "unloaded"} window ${leads.length}: leads ${l.rps.toFixed(0)}/s p99 ${l.p99Ms.toFixed(1)} ms max ${maxMs.toFixed(0)} ms${r ? `, reads ${r.rps.toFixed(0)}/s p99 ${r.p99Ms.toFixed(1)} ms` : ""}`,
      );
      ran = finished();
    }
    state.close();
    const runWriteBytes = writes.stop();
    const metricsAfter = await scrapeMetrics(server.base);
    const batches =
      metricsBefore === null || metricsAfter === null
        ? null
        : {
            wait: batchTimes(metricsBefore, metricsAfter, "partner_api_group_commit_wait_seconds"),
            commit: batchTimes(metricsBefore, metricsAfter, "partner_api_group_commit_duration_seconds"),
          };
    const runSeconds = (ran.finished - ran.started) / 1000;
    log(
      `feed-run-one-core ${loaded ? "loaded" : "unloaded"}: ${ran.outcome} in ${runSeconds.toFixed(1)} s, ${(runWriteBytes / 2 ** 20).toFixed(0)} MiB written by the run's process`,
    );
    return {
      loaded,
      control,
      runSeconds,
      runWriteBytes,
      batches,
      outcome: ran.outcome,
      summary: ran.summary ? JSON.parse(ran.summary) : null,
      leads,
      reads,
    };
  } finally {
    await server.stop();
    removeDatabase(db);
  }
}

export async function runFeedRunOneCore(settings: {
  serverCore: number;
  loadCore: number;
  log: (line: string) => void;
  /** The feed's size: ONE_CORE_LISTINGS but for quicker trials (`--one-core-listings`). */
  listings?: number;
}): Promise<OneCoreResult> {
  const listings = settings.listings ?? ONE_CORE_LISTINGS;
  const feed = await ensureCrmFeed(join(ROOT, "bench/datasets"), listings, settings.log, "ONECORE-");
  const crm = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    idleTimeout: 0,
    fetch: () => new Response(Bun.file(feed), { headers: { "content-type": "application/xml" } }),
  });
  const before = loadAverage();
  const commands: string[] = [];
  try {
    const url = `http://127.0.0.1:${crm.port}/feed.xml`;
    const unloaded = await phase(false, url, settings, commands);
    const loaded = await phase(true, url, settings, commands);
    return {
      listings,
      feedMiB: statSync(feed).size / 1_048_576,
      unloaded,
      loaded,
      serverCore: settings.serverCore,
      loadCore: settings.loadCore,
      commands: commands.map((c) => c.replaceAll(ROOT + "/", "")),
      loadAverage: { before, after: loadAverage() },
    };
  } finally {
    crm.stop(true);
  }
}

const MARKS = ["<!-- feed-run-one-core:start -->", "<!-- feed-run-one-core:end -->"] as const;

/** Lead p99 and max over windows pooled. */
function leadFigures(leads: WrkResult[]): { p99: number; max: number; requests: number; errors: number } {
  const parts = leads.map((l) => ({ requests: l.requests, quantiles: l.quantilesUs ?? [] }));
  return {
    p99: pooledPercentile(parts, 99) / 1000,
    max: Math.max(...leads.map((l) => l.quantilesUs?.at(-1) ?? 0)) / 1000,
    requests: leads.reduce((n, l) => n + l.requests, 0),
    errors: leads.reduce((n, l) => n + l.non2xx + l.socketErrors, 0),
  };
}

const readRate = (reads: WrkResult[]) =>
  reads.length === 0
    ? "none"
    : `${(reads.reduce((n, r) => n + r.requests, 0) / (reads.length * WINDOW_S)).toFixed(0)}/s`;

/** Where the lead batches' time went during a run: waiting for the lock, or committing and syncing. */
function batchLine(p: OneCorePhase): string {
  const label = p.loaded ? "loaded" : "unloaded";
  if (p.batches === null) return `- The server's batches during the ${label} run: no metrics.`;
  const { wait, commit } = p.batches;
  return `- The server's ${wait.batches} batches of writes during the ${label} run (its /metrics): waiting for the lock (and gathering) ${wait.meanMs.toFixed(1)} ms on average, ${wait.over25} over 25 ms, ${wait.over100} over 100 ms, ${wait.over1000} over 1 s; the commit and the WAL's sync ${commit.meanMs.toFixed(1)} ms on average, ${commit.over25} over 25 ms, ${commit.over100} over 100 ms, ${commit.over1000} over 1 s.`;
}

export function feedRunOneCoreSection(
  result: OneCoreResult,
  context: { date: Date; version: string; machine: string },
): string {
  const ratio = result.loaded.runSeconds / result.unloaded.runSeconds;
  const busy = leadFigures(result.loaded.leads);
  const busyControl = leadFigures(result.loaded.control.leads);
  const verdict = (ok: boolean) => (ok ? "**met**" : "**missed**");
  const row = (label: string, run: string, wrote: string, leads: WrkResult[], reads: WrkResult[]) => {
    const f = leadFigures(leads);
    return `| ${label} | ${run} | ${wrote} | ${f.requests} | ${f.p99.toFixed(1)} | ${f.max.toFixed(0)} | ${f.errors} | ${readRate(reads)} |`;
  };
  const runOf = (p: OneCorePhase) => `${p.outcome} in ${p.runSeconds.toFixed(1)} s`;
  const wroteOf = (p: OneCorePhase) => `${(p.runWriteBytes / 2 ** 20).toFixed(0)} MiB`;
  return markedSection(
    ...MARKS,
    [
      `## Feed run on one busy core: ${result.listings.toLocaleString("en-US")} listings while reads saturate the server's core`,
      "",
      `\`bun run bench --only feed-run-one-core\`, ${context.date.toISOString().slice(0, 10)}, ${context.version}, ${context.machine}; load average ${result.loadAverage.before} before, ${result.loadAverage.after} after.`,
      `\`serve\` pinned to core ${result.serverCore} (its feed run in a child process on that core, under SCHED_BATCH at the server's nice value); wrk and the feed server on core ${result.loadCore}.`,
      `The feed: ${result.feedMiB.toFixed(0)} MiB of VRSync (28 photos a listing), new codes, mode partial, into a fresh copy of the 1k dataset, started by SIGHUP. Both runs are from this one run of the runner.`,
      `Lead creations from ${LEADS.connections} connections pausing ${LEADS.pauseMs} ms after each answer, in both runs; in the loaded run, list reads (\`${READ_PATH}\`) from ${READS.connections} connections with no pause, saturating the core.`,
      "",
      "| measurement | feed run | run wrote | leads created | lead p99 ms | lead max ms | lead errors | reads |",
      "|---|---|---|---|---|---|---|---|",
      row(`unloaded, no run (${CONTROL_WINDOWS * WINDOW_S} s)`, "none", "", result.unloaded.control.leads, []),
      row("unloaded, the run", runOf(result.unloaded), wroteOf(result.unloaded), result.unloaded.leads, []),
      row(
        `loaded, no run (${CONTROL_WINDOWS * WINDOW_S} s)`,
        "none",
        "",
        result.loaded.control.leads,
        result.loaded.control.reads,
      ),
      row("loaded, the run", runOf(result.loaded), wroteOf(result.loaded), result.loaded.leads, result.loaded.reads),
      "",
      `- The run loaded over unloaded: **${ratio.toFixed(2)}×**; goal ≤ ${ONE_CORE_TARGETS.runRatio}×: ${verdict(ratio <= ONE_CORE_TARGETS.runRatio)}.`,
      `- Lead creation during the loaded run (its windows pooled): p99 **${busy.p99.toFixed(1)} ms**, goal ≤ ${ONE_CORE_TARGETS.leadP99Ms} ms: ${verdict(busy.p99 <= ONE_CORE_TARGETS.leadP99Ms)}; max **${busy.max.toFixed(0)} ms**, goal < ${ONE_CORE_TARGETS.leadMaxMs} ms: ${verdict(busy.max < ONE_CORE_TARGETS.leadMaxMs)}. The same load with no run just before: p99 ${busyControl.p99.toFixed(1)} ms, max ${busyControl.max.toFixed(0)} ms (the run's cost: ${(busy.p99 / busyControl.p99).toFixed(2)}× on p99).`,
      ...[result.unloaded, result.loaded].map((p) => batchLine(p)),
      "- The machine is shared with other engineers' work: the load averages above, and the reads a second with no run, say how much of core 0 this run had.",
      "- The run writes in chunks that end once a lead creation has waited 10 ms for the write lock (the server's writer says so in the database's `-wait` flag, read after every listing), else after 250 ms, each followed by a pause as long (src/agency/apply.ts); \"run wrote\" is its process's `write_bytes`.",
      "- Before (3 ms chunks with a pause as long, 2026-11-26 on this machine, 20,000 listings): the run 1.73× its unloaded time (82.2 s over 47.5 s), lead p99 135.1 ms and max 545 ms during the loaded run; on 2026-11-27 the same unloaded run took more than 190 s and its process wrote 9 GB, the many small commits rewriting the same pages into the WAL.",
      "- Before that (SCHED_IDLE, the probe of issue 42 on this machine): the run made no progress while the reads lasted (a minute) and one lead creation took 5,003.72 ms.",
    ],
    result.commands,
  );
}

/** Into RESULTS.md for the full feed; a smaller trial's goes to bench/out (returned: the file written). */
export function writeFeedRunOneCoreSection(section: string, listings: number): string {
  if (listings === ONE_CORE_LISTINGS) {
    writeMarkedSection(...MARKS, section);
    return "bench/RESULTS.md";
  }
  const path = join(OUT, `feed-run-one-core-${listings}.md`);
  writeFileSync(path, `${section}\n`);
  return path;
}
