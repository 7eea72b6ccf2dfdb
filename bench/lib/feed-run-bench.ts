// The feed-run scenario (issue #18): a 100,000-listing CRM feed (28 photos each) pulled by
// `serve` into a served 1M database while partners create leads and read lists at a steady
// pace. Lead and read latency during the run, as a ratio of the same load with no run; 503s and
// other errors; the run's duration; the peak RSS of the server and of the run's process.
//
// `serve` (the binary) runs on core 0; its feed runs in a child process it starts, which
// inherits that core (the worst case: the run competes with the API for one core). The feed
// server (in this runner), wrk and the runner share core 1. The run is started by SIGHUP with
// the feed added to the config, after the quiet measurement.
import { Database } from "bun:sqlite";
import { copyFileSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { API_KEY, API_SECRET, issueToken } from "./api.ts";
import { ensureCrmFeed } from "./import-bench.ts";
import { freePort, rssKb, startServer } from "./proc.ts";
import { BINARY, DATASET_1M, ensureDataset, OUT, removeDatabase, ROOT } from "./product.ts";
import { DEFAULT_PACE, describeLoad, type Load, LOAD_TABLE_HEAD, loadAverage, loadRow, pacedPartners, type PacedScenarioSettings, READ_PATH, STALLS_NOTE } from "./paced.ts";
import { markedSection, writeMarkedSection } from "./sections.ts";
import { lowerMedian as median } from "./stats.ts";
import { wrkCommandLine, type WrkResult } from "./wrk.ts";
import { hashSecret } from "../../src/security/secrets.ts";

export const FEED_RUN_LISTINGS = 100_000;
/** The issue's goals: lead p99 ≤ 100 ms during the run, read p99 ≤ 2× quiet, no 503. */
export const FEED_RUN_TARGETS = { leadP99Ms: 100, readP99Ratio: 2 } as const;

export type FeedRunSettings = PacedScenarioSettings;

export const DEFAULT_FEED_RUN_PACE = DEFAULT_PACE;

export interface FeedRunResult {
  settings: Omit<FeedRunSettings, "log">;
  feedMiB: number;
  quiet: Load;
  /** The same load once the run is over: the machine is shared, so quiet is measured on both sides. */
  quietAfter: Load;
  windows: Load[];
  runSeconds: number;
  outcome: string;
  summary: unknown;
  serverPeakRssMiB: number;
  childPeakRssMiB: number;
  commands: string[];
  loadAverage: { before: string; after: string };
}

const FEED_PREFIX = "FEED-";

/** Processes whose parent is `pid` (the run's child of the server). */
function childrenOf(pid: number): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (parent === pid) found.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/** Peak RSS of the server and of its children, sampled every 200 ms until stopped. */
function sampleTree(pid: number): { stop(): { server: number; child: number } } {
  let server = 0;
  let child = 0;
  const timer = setInterval(() => {
    try {
      server = Math.max(server, rssKb(pid).rss);
      for (const c of childrenOf(pid)) child = Math.max(child, rssKb(c).rss);
    } catch {
      // a process ended between listing and reading
    }
  }, 200);
  return {
    stop() {
      clearInterval(timer);
      return { server: server / 1024, child: child / 1024 };
    },
  };
}

function writeConfig(path: string, db: string, feedUrl: string | null): void {
  writeFileSync(
    path,
    JSON.stringify({
      environment: "sandbox",
      jwtSecret: "bench-secret-long-enough-for-the-feed-run-scenario",
      databases: { bench: db },
      clients: [{ id: "sandbox", apiKey: API_KEY, secretHash: hashSecret(API_SECRET), database: "bench", rateLimitPerMinute: 1_000_000_000 }],
      // Partial: the feed's listings are new (their own codes); the 1M seeded ones stay as they are.
      feeds: feedUrl === null ? [] : [{ id: "crm", database: "bench", url: feedUrl, every: "1h", mode: "partial", timeout: "30m", maxBytes: 4 * 1024 ** 3 }],
    }),
  );
}

export async function runFeedRunBench(settings: FeedRunSettings): Promise<FeedRunResult> {
  const { log } = settings;
  const source = ensureDataset(DATASET_1M, log);
  const feed = await ensureCrmFeed(join(ROOT, "bench/datasets"), FEED_RUN_LISTINGS, log, FEED_PREFIX);
  const db = join(OUT, "feed-run-1M.sqlite");
  removeDatabase(db);
  log(`feed-run: copying the 1M dataset (${(statSync(source).size / 1024 ** 3).toFixed(1)} GiB) …`);
  copyFileSync(source, db);
  // The copy's gigabytes would otherwise still be written back during the measurement.
  Bun.spawnSync(["sync"]);
  const crm = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    idleTimeout: 0,
    fetch: () => new Response(Bun.file(feed), { headers: { "content-type": "application/xml", etag: `"${statSync(feed).mtimeMs}"` } }),
  });
  const config = join(OUT, "feed-run.json");
  writeConfig(config, db, null);
  const port = freePort();
  const argv = [BINARY, "serve", "--config", config, "--port", String(port), "--host", "127.0.0.1"];
  const server = await startServer({ name: "feed-run", argv, core: settings.serverCore, port, logFile: join(OUT, "feed-run.log"), readyTimeoutMs: 300_000 });
  const token = await issueToken(server.base);
  const partners = pacedPartners({ base: server.base, token, core: settings.loadCore, label: "feed-run", leads: settings.leads, reads: settings.reads });
  const load = partners.load;
  const describe = describeLoad;
  const before = loadAverage();
  try {
    await load(2); // warm-up, unmeasured
    const quiet = await load(settings.quietS);
    log(`feed-run quiet: ${describe(quiet)}`);
    const state = new Database(db, { readonly: true });
    const triggered = Date.now();
    const finished = () =>
      state.query<{ outcome: string; started: number; finished: number; summary: string | null }, [number]>(
        "SELECT last_outcome AS outcome, last_started_at AS started, last_finished_at AS finished, last_summary AS summary FROM feed_runs WHERE feed_id = 'crm' AND last_finished_at > ?",
      ).get(triggered);
    writeConfig(config, db, `http://127.0.0.1:${crm.port}/feed.xml`);
    const sampler = sampleTree(server.pid);
    process.kill(server.pid, "SIGHUP");
    const windows: Load[] = [];
    let done = finished();
    while (done === null) {
      const window = await load(settings.windowS);
      windows.push(window);
      log(`feed-run window ${windows.length}: ${describe(window)}`);
      done = finished();
    }
    const rss = sampler.stop();
    state.close();
    const quietAfter = await load(settings.quietS);
    log(`feed-run quiet after: ${describe(quietAfter)}`);
    const runSeconds = (done.finished - done.started) / 1000;
    log(`feed-run: ${done.outcome} in ${runSeconds.toFixed(1)} s; server peak RSS ${rss.server.toFixed(0)} MiB, run's process ${rss.child.toFixed(0)} MiB`);
    return {
      settings: { serverCore: settings.serverCore, loadCore: settings.loadCore, leads: settings.leads, reads: settings.reads, quietS: settings.quietS, windowS: settings.windowS },
      feedMiB: statSync(feed).size / 1_048_576,
      quiet,
      quietAfter,
      windows,
      runSeconds,
      outcome: done.outcome,
      summary: done.summary === null ? null : JSON.parse(done.summary),
      serverPeakRssMiB: rss.server,
      childPeakRssMiB: rss.child,
      commands: [server.command, wrkCommandLine(partners.run("leads", settings.windowS)), wrkCommandLine(partners.run("reads", settings.windowS))].map((c) =>
        c.replaceAll(ROOT + "/", ""),
      ),
      loadAverage: { before, after: loadAverage() },
    };
  } finally {
    await server.stop();
    crm.stop(true);
    removeDatabase(db);
  }
}

const MARK_START = "<!-- feed-run:start -->";
const MARK_END = "<!-- feed-run:end -->";

/** The scenario's section of RESULTS.md, with the goals' verdicts. */
export function feedRunSection(result: FeedRunResult, context: { date: Date; version: string; machine: string }): string {
  const verdict = (ok: boolean) => (ok ? "**met**" : "**missed**");
  const leadP99s = result.windows.map((w) => w.leads.p99Ms);
  const readP99s = result.windows.map((w) => w.reads.p99Ms);
  const worstLead = Math.max(...leadP99s);
  const worstRead = Math.max(...readP99s);
  // The stricter reference: the quieter of the two measurements without a run.
  const quietLead = Math.min(result.quiet.leads.p99Ms, result.quietAfter.leads.p99Ms);
  const quietRead = Math.min(result.quiet.reads.p99Ms, result.quietAfter.reads.p99Ms);
  const errors = (pick: (l: Load) => WrkResult) => result.windows.reduce((sum, w) => sum + pick(w).non2xx + pick(w).socketErrors, 0);
  const row = loadRow;
  const { leads, reads } = result.settings;
  return markedSection(MARK_START, MARK_END, [
    `## Feed run: ${FEED_RUN_LISTINGS.toLocaleString("en-US")} listings pulled into a served 1M database`,
    "",
    `\`bun run bench --only feed-run\`, ${context.date.toISOString().slice(0, 10)}, ${context.version}, ${context.machine}; load average ${result.loadAverage.before} before, ${result.loadAverage.after} after.`,
    `\`serve\` on core ${result.settings.serverCore} (its feed run in a child process on the same core, under SCHED_IDLE at nice 10); wrk, the feed server and the runner on core ${result.settings.loadCore}.`,
    `The feed: ${result.feedMiB.toFixed(0)} MiB of VRSync (28 photos a listing), new codes, mode partial, started by SIGHUP after the quiet measurement.`,
    `Partners at a steady pace: lead creations from ${leads.connections} connections pausing ${leads.pauseMs} ms after each answer, reads of \`${READ_PATH}\` from ${reads.connections} pausing ${reads.pauseMs} ms.`,
    "",
    ...LOAD_TABLE_HEAD,
    row(`quiet before (${result.settings.quietS} s)`, result.quiet),
    ...result.windows.map((w, i) => row(`run ${i + 1} (${result.settings.windowS} s)`, w)),
    row(`quiet after (${result.settings.quietS} s)`, result.quietAfter),
    "",
    STALLS_NOTE,
    "",
    `- The run: **${result.outcome}** in **${result.runSeconds.toFixed(1)} s** (\`${JSON.stringify(result.summary)}\`); peak RSS of the run's process ${result.childPeakRssMiB.toFixed(0)} MiB, of the server ${result.serverPeakRssMiB.toFixed(0)} MiB.`,
    `- Lead p99 during the run: worst window ${worstLead.toFixed(1)} ms, median window ${median(leadP99s).toFixed(1)} ms, quiet ${quietLead.toFixed(1)} ms (the quieter side): ratio ${(worstLead / quietLead).toFixed(2)}× worst, ${(median(leadP99s) / quietLead).toFixed(2)}× median; goal ≤ ${FEED_RUN_TARGETS.leadP99Ms} ms: ${verdict(worstLead <= FEED_RUN_TARGETS.leadP99Ms)} (worst window).`,
    `- Read p99 during the run: worst window ${worstRead.toFixed(1)} ms, median ${median(readP99s).toFixed(1)} ms, quiet ${quietRead.toFixed(1)} ms: ratio ${(worstRead / quietRead).toFixed(2)}× worst, ${(median(readP99s) / quietRead).toFixed(2)}× median; goal ≤ ${FEED_RUN_TARGETS.readP99Ratio}×: ${verdict(median(readP99s) / quietRead <= FEED_RUN_TARGETS.readP99Ratio)} (median window), ${verdict(worstRead / quietRead <= FEED_RUN_TARGETS.readP99Ratio)} (worst window).`,
    `- Errors during the run (non-2xx and socket errors): leads ${errors((l) => l.leads)}, reads ${errors((l) => l.reads)}; goal 0 503s: ${verdict(errors((l) => l.leads) === 0)}.`,
  ], result.commands);
}

export function writeFeedRunSection(section: string): void {
  writeMarkedSection(MARK_START, MARK_END, section);
}
