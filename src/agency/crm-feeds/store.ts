// The run state of scheduled feeds (schema 6's feed_runs), and the lease that gives each run to
// exactly one process: claimed by one atomic UPDATE, renewed while the run lasts (also inside
// each chunk of its writes, which then fails if the lease was lost), released with the outcome.
// A lease that ran out belongs to a process that died: the next claim takes the run over.
import type { Database } from "bun:sqlite";
import type { WarningKind } from "../../formats/warnings.ts";
import type { ImportSummary, Rejection } from "../import.ts";

export const OUTCOMES = ["success", "not_modified", "guarded", "failed"] as const;
export type RunOutcome = (typeof OUTCOMES)[number];

/** What a run's summary keeps of the import summary: the counts, warnings by kind, the first rejections. */
export interface RunSummary {
  created: number;
  updated: number;
  unchanged: number;
  unpublished: number;
  rejected: number;
  warnings: Partial<Record<WarningKind, number>>;
  rejections: Rejection[];
}

/** Rejections kept with a run (`feeds run --json` and `import` list them all). */
const KEPT_REJECTIONS = 20;

export function runSummary(summary: ImportSummary): RunSummary {
  const { created, updated, unchanged, unpublished, rejected, warnings, rejections } = summary;
  return {
    created,
    updated,
    unchanged,
    unpublished,
    rejected,
    warnings,
    rejections: rejections.slice(0, KEPT_REJECTIONS),
  };
}

export interface FeedRunState {
  feedId: string;
  leaseOwner: string | null;
  leaseUntil: number | null;
  runRequested: boolean;
  lastStartedAt: number | null;
  /** The source (mode and URL) the last run was started for. */
  lastStartedFor: string | null;
  lastFinishedAt: number | null;
  lastOutcome: RunOutcome | null;
  lastError: string | null;
  lastSummary: RunSummary | null;
  lastSuccessAt: number | null;
  validatorsFor: string | null;
  etag: string | null;
  lastModified: string | null;
}

/** How a run ended, as recorded. */
export interface RunRecord {
  outcome: RunOutcome;
  finishedAt: number;
  error: string | null;
  /** Null for a run that applied nothing (304, a guard, a failure): the last summary stays. */
  summary: RunSummary | null;
  /** Set on success: the validators of what was applied, and what they belong to. */
  validators: { for: string; etag: string | null; lastModified: string | null } | null;
}

type Row = {
  feed_id: string;
  lease_owner: string | null;
  lease_until: number | null;
  run_requested: number;
  last_started_at: number | null;
  last_started_for: string | null;
  last_finished_at: number | null;
  last_outcome: RunOutcome | null;
  last_error: string | null;
  last_summary: string | null;
  last_success_at: number | null;
  validators_for: string | null;
  etag: string | null;
  last_modified: string | null;
};

function state(row: Row): FeedRunState {
  return {
    feedId: row.feed_id,
    leaseOwner: row.lease_owner,
    leaseUntil: row.lease_until,
    runRequested: row.run_requested === 1,
    lastStartedAt: row.last_started_at,
    lastStartedFor: row.last_started_for,
    lastFinishedAt: row.last_finished_at,
    lastOutcome: row.last_outcome,
    lastError: row.last_error,
    lastSummary: row.last_summary === null ? null : (JSON.parse(row.last_summary) as RunSummary),
    lastSuccessAt: row.last_success_at,
    validatorsFor: row.validators_for,
    etag: row.etag,
    lastModified: row.last_modified,
  };
}

/** The state of one feed, or null before it was ever scheduled. */
export function readRun(db: Database, feedId: string): FeedRunState | null {
  const row = db.query<Row, [string]>("SELECT * FROM feed_runs WHERE feed_id = ?").get(feedId);
  return row === null ? null : state(row);
}

/** Every feed's state in the database, by id. */
export function readRuns(db: Database): Map<string, FeedRunState> {
  return new Map(
    db
      .query<Row, []>("SELECT * FROM feed_runs")
      .all()
      .map((row) => [row.feed_id, state(row)]),
  );
}

/**
 * A process starts serving the feed, or its source (URL, mode) changed: a run is due now,
 * unless a run of this same source started less than `graceMs` ago (another process of the
 * same deployment that started, or reloaded, beside this one: one run, not one each).
 */
export function requestRun(db: Database, feedId: string, source: string, now: number, graceMs: number): void {
  db.query("INSERT INTO feed_runs (feed_id) VALUES (?) ON CONFLICT DO NOTHING").run(feedId);
  db.query(
    "UPDATE feed_runs SET run_requested = 1 WHERE feed_id = ? AND (last_started_at IS NULL OR last_started_at < ? OR last_started_for IS NOT ?)",
  ).run(feedId, now - graceMs, source);
}

/** When the feed's next run is due: now when asked for or never run, else an interval after the last start. */
export function nextRunAt(run: FeedRunState | null, everyMs: number, now: number): number {
  if (run === null || run.runRequested || run.lastStartedAt === null) return now;
  return run.lastStartedAt + everyMs;
}

/** Whether `run`'s lease is held by a live holder at `now`. */
export function leaseHeld(run: FeedRunState | null, now: number): boolean {
  return run !== null && run.leaseOwner !== null && run.leaseUntil !== null && run.leaseUntil > now;
}

/**
 * Claims the run for `owner` until `now + leaseMs`, when no live lease holds it and the run is
 * due (`everyMs` null: now, whatever the schedule: `feeds run`). One UPDATE: of every process
 * claiming at once, exactly one sees a change. Returns whether this one did.
 */
export function claimRun(
  db: Database,
  feedId: string,
  source: string,
  owner: string,
  now: number,
  leaseMs: number,
  everyMs: number | null,
): boolean {
  db.query("INSERT INTO feed_runs (feed_id) VALUES (?) ON CONFLICT DO NOTHING").run(feedId);
  return (
    db
      .query(
        "UPDATE feed_runs SET lease_owner = ?1, lease_until = ?2, last_started_at = ?3, last_started_for = ?6, run_requested = 0 " +
          "WHERE feed_id = ?4 AND (lease_owner IS NULL OR lease_until IS NULL OR lease_until <= ?3) " +
          "AND (?5 IS NULL OR run_requested = 1 OR last_started_at IS NULL OR last_started_at + ?5 <= ?3)",
      )
      .run(owner, now + leaseMs, now, feedId, everyMs, source).changes === 1
  );
}

/** Extends `owner`'s lease; false when it no longer holds it (it ran out and another process took the run over). */
export function renewLease(db: Database, feedId: string, owner: string, now: number, leaseMs: number): boolean {
  return (
    db
      .query("UPDATE feed_runs SET lease_until = ? WHERE feed_id = ? AND lease_owner = ?")
      .run(now + leaseMs, feedId, owner).changes === 1
  );
}

/**
 * Records how `owner`'s run ended and releases its lease; false (nothing recorded) when it had
 * lost the lease. A 304 is a success too: the feed was read and is what the last success
 * applied, so the data is current as of now (a CRM feed unchanged for hours is not stale);
 * only a run that applied a document replaces the validators.
 */
export function finishRun(db: Database, feedId: string, owner: string, record: RunRecord): boolean {
  const applied = record.outcome === "success";
  const current = applied || record.outcome === "not_modified";
  return (
    db
      .query(
        "UPDATE feed_runs SET lease_owner = NULL, lease_until = NULL, last_finished_at = ?1, last_outcome = ?2, last_error = ?3, " +
          "last_summary = coalesce(?4, last_summary), last_success_at = CASE WHEN ?11 THEN ?1 ELSE last_success_at END, " +
          "validators_for = CASE WHEN ?5 THEN ?6 ELSE validators_for END, etag = CASE WHEN ?5 THEN ?7 ELSE etag END, " +
          "last_modified = CASE WHEN ?5 THEN ?8 ELSE last_modified END WHERE feed_id = ?9 AND lease_owner = ?10",
      )
      .run(
        record.finishedAt,
        record.outcome,
        record.error,
        record.summary === null ? null : JSON.stringify(record.summary),
        applied ? 1 : 0,
        record.validators?.for ?? null,
        record.validators?.etag ?? null,
        record.validators?.lastModified ?? null,
        feedId,
        owner,
        current ? 1 : 0,
      ).changes === 1
  );
}
