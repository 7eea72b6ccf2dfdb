// Feed metrics for /metrics (CONTRACT §14): each feed's last success time, last outcome and the
// listing counts of its last applied run. Read from the database at scrape time, so every
// process serving the file reports the same runs, whichever of them made them. Labels: the
// config's feed ids and database names, and closed sets.
import type { Database } from "bun:sqlite";
import type { FeedSpec } from "../../config/model.ts";
import { Exposition } from "../../metrics/exposition.ts";
import { leaseHeld, OUTCOMES, readRuns, type FeedRunState } from "./store.ts";

const PREFIX = "partner_api_feed_";
const COUNTS = ["created", "updated", "unchanged", "unpublished", "rejected"] as const;

/** The feeds' state, one query per database; a database that cannot be read now leaves its feeds out. */
function statesOf(feeds: readonly FeedSpec[], open: (path: string) => Database | null): Map<FeedSpec, FeedRunState | null> {
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

/** The feed families of a scrape; `open(path)` gives the server's read connection to a database, or null. */
export function feedMetrics(feeds: readonly FeedSpec[], open: (path: string) => Database | null, now: number): string {
  const out = new Exposition();
  const known = [...statesOf(feeds, open)].map(([feed, run]) => ({ labels: [["feed", feed.id], ["database", feed.database]] as const, run }));
  if (known.length === 0) return "";
  const seconds = (ms: number | null | undefined) => (ms == null ? 0 : ms / 1000);

  out.family(`${PREFIX}last_success_timestamp_seconds`, "gauge", "When the feed's last successful run finished (Unix seconds; 0: never).");
  for (const { labels, run } of known) out.sample(`${PREFIX}last_success_timestamp_seconds`, labels, seconds(run?.lastSuccessAt));
  out.family(`${PREFIX}last_run_timestamp_seconds`, "gauge", "When the feed's last run finished, whatever its outcome (Unix seconds; 0: never).");
  for (const { labels, run } of known) out.sample(`${PREFIX}last_run_timestamp_seconds`, labels, seconds(run?.lastFinishedAt));
  out.family(`${PREFIX}last_outcome`, "gauge", "The outcome of the feed's last run: 1 for it, 0 for the others (all 0: never run).");
  for (const { labels, run } of known) {
    for (const outcome of OUTCOMES) out.sample(`${PREFIX}last_outcome`, [...labels, ["outcome", outcome]], run?.lastOutcome === outcome ? 1 : 0);
  }
  out.family(`${PREFIX}last_run_listings`, "gauge", "Listings of the feed's last run that applied, by what happened to them.");
  for (const { labels, run } of known) {
    const summary = run?.lastSummary ?? null;
    for (const count of COUNTS) out.sample(`${PREFIX}last_run_listings`, [...labels, ["count", count]], summary?.[count] ?? 0);
  }
  out.family(`${PREFIX}last_run_warnings`, "gauge", "Warnings of the feed's last run that applied (values read as null, repairs of the document).");
  for (const { labels, run } of known) {
    const warnings = Object.values(run?.lastSummary?.warnings ?? {}).reduce((sum, n) => sum + (n ?? 0), 0);
    out.sample(`${PREFIX}last_run_warnings`, labels, warnings);
  }
  out.family(`${PREFIX}running`, "gauge", "1 while a process runs the feed.");
  for (const { labels, run } of known) out.sample(`${PREFIX}running`, labels, leaseHeld(run, now) ? 1 : 0);
  return out.toString();
}
