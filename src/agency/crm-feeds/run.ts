// One run of a scheduled feed, by the process that claimed its lease: a conditional download
// (304: nothing to do), the import exactly as `partner-api import` does it (same code, same
// summary), the guards, then the outcome recorded and the lease released. While it runs, the
// lease is renewed on a timer and inside every chunk of writes, which stops at once if the
// lease was lost (the run was taken over), so two processes never write one feed's run.
import type { Database } from "bun:sqlite";
import { hostname } from "node:os";
import type { FeedSpec } from "../../config/model.ts";
import { closeDatabase, openExistingDatabase } from "../../db/open.ts";
import { displayUrl } from "../../formats/fetch.ts";
import { FeedError } from "../../formats/listing.ts";
import { openFeedSource } from "../../formats/source.ts";
import { ConcurrentChangeError, UnpublishGuardError } from "../apply.ts";
import { feedItems, importItems } from "../import.ts";
import {
  claimRun,
  finishRun,
  type RunOutcome,
  type RunRecord,
  type RunSummary,
  readRun,
  renewLease,
  runSummary,
} from "./store.ts";

/** A claimed run is its holder's for this long, renewed every LEASE_MS / 4 while it lasts. */
export const LEASE_MS = 60_000;
/** The stall limit of a feed's download: no byte for this long (within its `timeout`). */
export const FEED_STALL_MS = 60_000;

/** How a run ended, as its process reports it. */
export interface RunReport {
  feed: string;
  outcome: RunOutcome;
  /** The reason of a guarded or failed run. */
  error: string | null;
  summary: RunSummary | null;
  durationMs: number;
  /** False when the outcome could not be recorded: the lease was lost, another process has the run. */
  recorded: boolean;
}

export interface RunOptions {
  /** The lease holder's name, as claimed. */
  owner: string;
  /**
   * A second connection to the same file, for the lease's timer and the record: the import's
   * own connection holds a read transaction while it stages, and a write there would keep the
   * write lock until that transaction ends.
   */
  leaseDb: Database;
  /** Milliseconds since the epoch (injected by tests). */
  now?: () => number;
  /** Stops the run: the download is aborted, or the writes stop between chunks. */
  signal?: AbortSignal;
  leaseMs?: number;
  /** The stall limit of the download (tests shorten it). */
  stallMs?: number;
}

/** The lease was lost mid-run: what this process does next would race the one that took over. */
class LeaseLostError extends Error {
  constructor() {
    super(
      "the run's lease was lost (the run took longer to renew it than the lease lasts) and another process took the run over",
    );
  }
}

/** The source a run is for, and its validators belong to (a conditional request is only for the same URL and mode). */
export function sourceOf(feed: Pick<FeedSpec, "url" | "mode">): string {
  return `${feed.mode} ${feed.url}`;
}

/** The outcome of an error that ended a run, and its reason in words. */
function classify(error: unknown, signal: AbortSignal | undefined): { outcome: RunOutcome; reason: string } {
  if (error instanceof UnpublishGuardError) return { outcome: "guarded", reason: error.message };
  if (signal?.aborted && !(error instanceof FeedError))
    return {
      outcome: "failed",
      reason: "stopped before it finished (the process is stopping); the next run completes it",
    };
  if (error instanceof FeedError || error instanceof ConcurrentChangeError || error instanceof LeaseLostError) {
    return { outcome: "failed", reason: error.message };
  }
  return { outcome: "failed", reason: `unexpected error: ${(error as Error | null)?.message ?? String(error)}` };
}

/**
 * Runs a feed whose lease `options.owner` holds, on `db` (a connection of the run's own
 * process; inside each chunk of writes it renews the lease too, so a lost lease stops the
 * writes in the same transaction), and records the outcome. Never throws for the run's own failures: they are its report.
 */
export async function runClaimedFeed(db: Database, feed: FeedSpec, options: RunOptions): Promise<RunReport> {
  const now = options.now ?? Date.now;
  const leaseMs = options.leaseMs ?? LEASE_MS;
  const started = now();
  const inner = new AbortController();
  const onOuterAbort = () => inner.abort(options.signal?.reason);
  options.signal?.addEventListener("abort", onOuterAbort);
  if (options.signal?.aborted) inner.abort(options.signal.reason);
  let leaseLost = false;
  const renew = (conn: Database) => {
    if (!renewLease(conn, feed.id, options.owner, now(), leaseMs)) {
      leaseLost = true;
      throw new LeaseLostError();
    }
  };
  const timer = setInterval(() => {
    try {
      renew(options.leaseDb);
    } catch (error) {
      // Lost, or the database is busy past its timeout: lost is final, busy is tried again.
      if (error instanceof LeaseLostError) inner.abort(error);
    }
  }, leaseMs / 4);
  let record: RunRecord;
  try {
    const last = readRun(options.leaseDb, feed.id);
    const conditional = last !== null && last.validatorsFor === sourceOf(feed) && last.lastSuccessAt !== null;
    const opened = await openFeedSource(feed.url, {
      headers: feed.headers,
      validators: conditional ? { etag: last.etag, lastModified: last.lastModified } : null,
      limits: { timeoutMs: feed.timeoutMs, stallMs: options.stallMs ?? FEED_STALL_MS, maxBytes: feed.maxBytes },
      signal: inner.signal,
    });
    if (opened.status === "not-modified") {
      record = { outcome: "not_modified", finishedAt: now(), error: null, summary: null, validators: null };
    } else {
      const { items, progress, notices } = feedItems(opened);
      const summary = await importItems(
        db,
        items,
        {
          partial: feed.mode === "partial",
          maxUnpublishRatio: feed.maxUnpublishRatio,
          now: () => new Date(now()),
          inEachChunk: renew,
          signal: inner.signal,
        },
        progress,
        notices,
      );
      const validators = {
        for: sourceOf(feed),
        etag: opened.validators?.etag ?? null,
        lastModified: opened.validators?.lastModified ?? null,
      };
      record = { outcome: "success", finishedAt: now(), error: null, summary: runSummary(summary), validators };
    }
  } catch (error) {
    const { outcome, reason } = classify(leaseLost ? new LeaseLostError() : error, inner.signal);
    record = { outcome, finishedAt: now(), error: reason, summary: null, validators: null };
  } finally {
    clearInterval(timer);
    options.signal?.removeEventListener("abort", onOuterAbort);
  }
  const recorded = !leaseLost && finishRun(options.leaseDb, feed.id, options.owner, record);
  return {
    feed: feed.id,
    outcome: record.outcome,
    error: record.error,
    summary: record.summary,
    durationMs: record.finishedAt - started,
    recorded,
  };
}

/** The feed as a log line or `feeds status` may name it: never its headers. */
export function feedLabel(feed: FeedSpec): { feed: string; database: string; url: string } {
  return { feed: feed.id, database: feed.database, url: displayUrl(feed.url) };
}

/** A run this process could not claim: another holds its lease. */
export interface Busy {
  feed: string;
  busy: { owner: string | null; until: number | null };
}

/**
 * Runs `feed` in this process on connections of its own (`feeds run`, and the child process
 * `serve` starts for each run). With `claim`, claims the lease first, whatever the schedule
 * (Busy when another process holds it); without, the lease was claimed for `owner` by the caller.
 */
export async function runHere(
  feed: FeedSpec,
  options: { owner: string; claim: boolean; signal?: AbortSignal; now?: () => number },
): Promise<RunReport | Busy> {
  const now = options.now ?? Date.now;
  const db = openExistingDatabase(feed.databasePath);
  const leaseDb = openExistingDatabase(feed.databasePath);
  try {
    if (options.claim && !claimRun(leaseDb, feed.id, sourceOf(feed), options.owner, now(), LEASE_MS, null)) {
      const holder = readRun(leaseDb, feed.id);
      return { feed: feed.id, busy: { owner: holder?.leaseOwner ?? null, until: holder?.leaseUntil ?? null } };
    }
    return await runClaimedFeed(db, feed, { owner: options.owner, leaseDb, signal: options.signal, now });
  } finally {
    closeDatabase(db);
    closeDatabase(leaseDb);
  }
}

/** Names a lease holder: unique per process and run, so a restarted process never takes an old lease for its own. */
export function leaseOwner(role: string): string {
  return `${hostname()}:${process.pid}:${role}:${crypto.randomUUID().slice(0, 8)}`;
}
