// Feed metrics for /metrics (docs/reference/behaviour-extensions.md §14): each feed's last success time, last outcome and the
// listing counts of its last applied run. Read from the database at scrape time, so every
// process serving the file reports the same runs, whichever of them made them. Labels: the
// config's feed ids and database names, and closed sets. The families live in a registry of
// their own, which the server's scrape includes while the config has feeds (src/app.ts).
import type { Database } from "bun:sqlite";
import { Gauge, Registry } from "prom-client";
import type { FeedSpec } from "../../config/model.ts";
import { type FeedRunState, leaseHeld, OUTCOMES, readRuns } from "./store.ts";

const PREFIX = "partner_api_feed_";
/** A feed is stale once its last success is older than this many of its intervals. */
export const STALE_INTERVALS = 3;

/** Whether a feed's last success is older than STALE_INTERVALS intervals (or it never had one, and a run has ended). */
export function isStale(run: FeedRunState | null, everyMs: number, now: number): boolean {
  if (run?.lastSuccessAt != null) return now - run.lastSuccessAt > STALE_INTERVALS * everyMs;
  return run?.lastFinishedAt != null;
}
const COUNTS = ["created", "updated", "unchanged", "unpublished", "rejected"] as const;

/** The feeds' state, one query per database; a database that cannot be read now leaves its feeds out. */
function statesOf(
  feeds: readonly FeedSpec[],
  open: (path: string) => Database | null,
): Map<FeedSpec, FeedRunState | null> {
  const byPath = new Map<string, Map<string, FeedRunState> | null>();
  const states = new Map<FeedSpec, FeedRunState | null>();
  for (const feed of feeds) {
    if (!byPath.has(feed.databasePath)) {
      const db = open(feed.databasePath);
      let runs: Map<string, FeedRunState> | null = null;
      try {
        runs = db === null ? null : readRuns(db);
      } catch {
        // Busy past its timeout or damaged: this scrape goes without it.
      }
      byPath.set(feed.databasePath, runs);
    }
    const runs = byPath.get(feed.databasePath);
    if (runs != null) states.set(feed, runs.get(feed.id) ?? null);
  }
  return states;
}

export interface FeedSource {
  /** The configured feeds, as they are now (a reload may change them). */
  feeds(): readonly FeedSpec[];
  /** The server's read connection to a database, or null. */
  open(path: string): Database | null;
  now(): number;
}

type Put = (labels: Record<string, string>, value: number) => void;

/** The feed families, on a registry of their own; each gauge reads the feeds when scraped. */
export function feedMetricsRegistry(source: FeedSource): Registry {
  const registry = new Registry();
  const seconds = (ms: number | null | undefined) => (ms == null ? 0 : ms / 1000);
  const gauge = (
    name: string,
    help: string,
    labelNames: string[],
    fill: (set: Put, run: FeedRunState | null) => void,
  ) =>
    new Gauge({
      name: `${PREFIX}${name}`,
      help,
      labelNames: ["feed", "database", ...labelNames],
      registers: [registry],
      // Every worker reads the same runs from the database: counted once.
      aggregator: "max",
      collect() {
        this.reset();
        for (const [feed, run] of statesOf(source.feeds(), source.open)) {
          fill((labels, value) => this.set({ feed: feed.id, database: feed.database, ...labels }, value), run);
        }
      },
    });
  gauge(
    "last_success_timestamp_seconds",
    "When the feed's last successful run finished (Unix seconds; 0: never).",
    [],
    (set, run) => set({}, seconds(run?.lastSuccessAt)),
  );
  gauge(
    "last_run_timestamp_seconds",
    "When the feed's last run finished, whatever its outcome (Unix seconds; 0: never).",
    [],
    (set, run) => set({}, seconds(run?.lastFinishedAt)),
  );
  gauge(
    "last_outcome",
    "The outcome of the feed's last run: 1 for it, 0 for the others (all 0: never run).",
    ["outcome"],
    (set, run) => {
      for (const outcome of OUTCOMES) set({ outcome }, run?.lastOutcome === outcome ? 1 : 0);
    },
  );
  gauge(
    "last_run_listings",
    "Listings of the feed's last run that applied, by what happened to them.",
    ["count"],
    (set, run) => {
      for (const count of COUNTS) set({ count }, run?.lastSummary?.[count] ?? 0);
    },
  );
  gauge(
    "last_run_warnings",
    "Warnings of the feed's last run that applied (values read as null, repairs of the document).",
    [],
    (set, run) =>
      set(
        {},
        Object.values(run?.lastSummary?.warnings ?? {}).reduce((sum, n) => sum + (n ?? 0), 0),
      ),
  );
  gauge("running", "1 while a process runs the feed.", [], (set, run) => set({}, leaseHeld(run, source.now()) ? 1 : 0));
  // These two read the feed's own interval, which `gauge` above does not hand its fill.
  new Gauge({
    name: `${PREFIX}interval_seconds`,
    help: "The feed's configured interval (its `every`), in seconds.",
    labelNames: ["feed", "database"],
    registers: [registry],
    aggregator: "max",
    collect() {
      this.reset();
      for (const feed of source.feeds()) this.set({ feed: feed.id, database: feed.database }, feed.everyMs / 1000);
    },
  });
  new Gauge({
    name: `${PREFIX}stale`,
    help:
      `1 when the feed's last success is older than ${STALE_INTERVALS} intervals, or it has never succeeded and a run has ended: ` +
      "its runs fail, are refused, or cannot run at all (starved, stuck).",
    labelNames: ["feed", "database"],
    registers: [registry],
    aggregator: "max",
    collect() {
      this.reset();
      const now = source.now();
      for (const [feed, run] of statesOf(source.feeds(), source.open))
        this.set({ feed: feed.id, database: feed.database }, isStale(run, feed.everyMs, now) ? 1 : 0);
    },
  });
  return registry;
}
