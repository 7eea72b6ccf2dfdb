// The write phase of an import: the staged creations and updates, then the unpublishing of what
// the feed no longer lists. Comparison happened while staging; under the write lock only a
// check that nothing moved since, and the writes themselves.
//
// Into a database others may be using (a served file), the writes go in short transactions of
// at most CHUNK_BUDGET_MS each, with a pause as long between them: the server's lead creations
// wait for the write lock (SQLite's busy handler) for one chunk at most, never for the whole
// import. Every row is still written by the same statements, so the triggers write the change
// log, and with it the change feed and the webhooks, exactly as before; each planned write is
// checked against concurrent change inside the transaction that makes it. Into a new file no one
// else can see, everything goes in one transaction (faster, and all or nothing).
import type { Database } from "bun:sqlite";
import { FeedError } from "../formats/listing.ts";
import { PropertyRows } from "./rows.ts";
import type { PlannedWrite, Staging } from "./staging.ts";

export interface ApplyCounts {
  created: number;
  updated: number;
  unchanged: number;
  unpublished: number;
}

/**
 * How long one chunk may hold the write lock: what a lead creation meeting it waits at most
 * (the server waits for the lock on timers, src/db/group-commit.ts, so its other requests do
 * not wait with it). Shorter chunks cost the import more commits and pauses. On a core shared
 * with the server (and whatever else runs there), a chunk is preempted now and then while it
 * holds the lock, and waits for the core with the lock held: the shorter the chunk, the fewer
 * preemptions fall inside one (bench feed-run-one-core).
 */
export const CHUNK_BUDGET_MS = 3;
/** Unpublished properties per chunk (one UPDATE each). */
const UNPUBLISH_CHUNK = 2_000;

export interface ApplyOptions {
  /** Leave properties missing from the feed published. */
  partial: boolean;
  /** Count, write nothing, take no write lock. */
  dryRun: boolean;
  /** The instant stamped on created and changed properties (ISO, milliseconds, Z). */
  now: string;
  newId: () => string;
  onWrite?: (done: number) => void;
  /**
   * Others may use the database: write in chunks that yield the write lock (default). False
   * for a new file no other connection can see: one transaction.
   */
  chunked?: boolean;
  /**
   * A full import that would unpublish more than this share of the published listings changes
   * nothing (UnpublishGuardError). Absent: only an empty feed is refused.
   */
  maxUnpublishRatio?: number;
  /** Runs inside every chunk's transaction before its writes (a feed run checks its lease); throws to stop. */
  inEachChunk?: (db: Database) => void;
  /** Stops between chunks (a shutdown): what was committed stays, the rest is left to the next import. */
  signal?: AbortSignal;
}

/** Another writer changed properties the import had compared: applying the plan could undo its work. */
export class ConcurrentChangeError extends Error {
  constructor(codes: readonly string[], written: number) {
    const before =
      written === 0
        ? "nothing was imported"
        : `the ${written} listings written before it stay; nothing else was written`;
    super(
      `properties changed while the feed was being read (another import?): ${codes.join(", ")}; ${before}, run it again`,
    );
  }
}

/** A full import that would take down too much of the catalogue: nothing is changed. */
export class UnpublishGuardError extends FeedError {}

/** Published properties with a code the feed does not carry (rejected listings count as carried). */
const MISSING = "is_published = 1 AND code IS NOT NULL AND code NOT IN (SELECT code FROM staging.import_listings)";

function count(db: Database, where: string): number {
  return (db.query(`SELECT count(*) AS n FROM properties WHERE ${where}`).get() as { n: number }).n;
}

/**
 * A full import of a feed without a single listing would take the whole catalogue down; that
 * is what a CRM's failed export looks like, not an agency's intent, so it is refused; and so is
 * one that would unpublish more than `maxUnpublishRatio` of the published listings.
 */
function guardUnpublishing(db: Database, staging: Staging, maxRatio: number | undefined): void {
  const listed = Object.values(staging.counts).reduce((a, b) => a + b, 0);
  const missing = count(db, MISSING);
  if (listed === 0 && missing > 0) {
    throw new UnpublishGuardError(
      `the feed lists no listings: a full import would unpublish all ${missing} published properties; nothing was changed`,
    );
  }
  if (maxRatio === undefined || missing === 0) return;
  const published = count(db, "is_published = 1 AND code IS NOT NULL");
  if (missing / published > maxRatio) {
    const share = (n: number) => `${Math.round(n * 1000) / 10} %`;
    throw new UnpublishGuardError(
      `the feed would unpublish ${missing} of the ${published} published listings (${share(missing / published)}), ` +
        `more than maxUnpublishRatio allows (${share(maxRatio)}); nothing was changed`,
    );
  }
}

/**
 * A pause about as long as the chunk held the lock, so a waiting writer finds a gap. The server
 * tries again on a fixed schedule (src/db/group-commit.ts: every 5 ms at last): a pause that
 * varies (half to one and a half times the chunk) keeps the two from falling into step, where
 * each of its tries would land in a chunk.
 */
function pause(heldMs: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(2, Math.ceil(heldMs * (0.5 + Math.random())))));
}

export async function applyStaged(db: Database, staging: Staging, options: ApplyOptions): Promise<ApplyCounts> {
  const counts: ApplyCounts = {
    created: staging.counts.create,
    updated: staging.counts.update,
    unchanged: staging.counts.unchanged,
    unpublished: 0,
  };
  if (!options.partial) guardUnpublishing(db, staging, options.maxUnpublishRatio);
  if (options.dryRun) {
    if (!options.partial) counts.unpublished = count(db, MISSING);
    return counts;
  }
  const chunked = options.chunked !== false;
  // A chunk's commit is not flushed to disk on its own (WAL with synchronous NORMAL keeps it
  // consistent): an fsync there would hold the write lock as long again. The next commit made
  // with FULL, the server's or the import's last record, flushes it; a power cut loses only
  // chunks the next import writes again.
  if (chunked && !options.dryRun) db.run("PRAGMA synchronous = NORMAL");
  const rows = new PropertyRows(db);
  const writes = staging.writes();
  let written = 0;
  /** Writes committed so far (a chunk rolled back takes its own with it). */
  let committed = 0;
  /** Runs `work` in one write transaction (IMMEDIATE: the check and the writes see one state), then yields when chunked. */
  const chunk = async (work: (startedAt: number) => void) => {
    options.signal?.throwIfAborted();
    const startedAt = performance.now();
    db.transaction(() => {
      options.inEachChunk?.(db);
      work(startedAt);
    }).immediate();
    committed = written;
    if (chunked) await pause(performance.now() - startedAt);
  };
  const overBudget = (startedAt: number) => chunked && performance.now() - startedAt >= CHUNK_BUDGET_MS;
  try {
    if (!chunked) {
      // One transaction: every write, then the unpublishing.
      await chunk(() => {
        for (let next = writes.next(); !next.done; next = writes.next())
          written = write(rows, staging, next.value, options, written);
        if (!options.partial)
          counts.unpublished = db.run(`UPDATE properties SET is_published = 0 WHERE ${MISSING}`).changes;
      });
      return counts;
    }
    let next = writes.next();
    while (!next.done) {
      await chunk((startedAt) => {
        do {
          written = write(rows, staging, next.value as PlannedWrite, options, written);
          next = writes.next();
        } while (!next.done && !overBudget(startedAt));
      });
    }
    // Unpublishing last: an import interrupted before it has taken nothing down.
    if (!options.partial) {
      const unpublish = db.prepare(
        `UPDATE properties SET is_published = 0 WHERE rowid IN (SELECT rowid FROM properties WHERE ${MISSING} LIMIT ${UNPUBLISH_CHUNK})`,
      );
      try {
        let changed = UNPUBLISH_CHUNK;
        while (changed === UNPUBLISH_CHUNK) {
          await chunk(() => {
            changed = unpublish.run().changes;
          });
          counts.unpublished += changed;
        }
      } finally {
        unpublish.finalize();
      }
    }
    return counts;
  } catch (error) {
    if (error instanceof StaleWrite) throw new ConcurrentChangeError([error.code], committed);
    throw error;
  } finally {
    writes.return(undefined);
    rows.finalize();
  }
}

/** A planned write whose property another writer changed since it was planned (rolls its chunk back). */
class StaleWrite extends Error {
  constructor(readonly code: string) {
    super(code);
  }
}

/** One planned write, checked first against what another writer may have changed since it was planned. */
function write(
  rows: PropertyRows,
  staging: Staging,
  planned: PlannedWrite,
  options: ApplyOptions,
  written: number,
): number {
  if (staging.isStale(planned)) throw new StaleWrite(planned.code);
  if (planned.action === "create")
    rows.create(options.newId(), planned.listing, planned.digest, planned.photos, options.now);
  else if (planned.action === "update")
    rows.replace(planned.storedId, planned.listing, planned.digest, planned.photos, options.now);
  else rows.redigest(planned.storedId, planned.digest);
  if (++written % 1000 === 0) options.onWrite?.(written);
  return written;
}
