// The write phase of an import: the staged creations and updates, then the unpublishing of what
// the feed no longer lists. Comparison happened while staging; under the write lock only a
// check that nothing moved since, and the writes themselves.
//
// Into a database others may be using (a served file), the writes go in chunks, each its own
// transaction, that give the write lock up as soon as another writer has waited for it a little
// (YIELD_AFTER_MS): the server's writer says it waits in the database's writer-waiting flag
// (src/db/writer-waiting.ts), read after every listing. Otherwise a chunk lasts up to CHUNK_MAX_MS,
// then pauses: few commits, since each writes the pages it touched again. Every row is still
// written by the same statements, so the triggers write the change log, and with it the change
// feed and the webhooks, exactly as before; each planned write is checked against concurrent
// change inside the transaction that makes it. Into a new file no one else can see, everything
// goes in one transaction (faster, and all or nothing).
import type { Database } from "bun:sqlite";
import { finishPropertyLoad, setAsideForBulkLoad } from "../db/bulk-load.ts";
import { WriterWaiting } from "../db/writer-waiting.ts";
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
 * How long one chunk may hold the write lock when no other writer says it is waiting
 * (src/db/writer-waiting.ts): a chunk ends sooner, within a listing, once a writer has waited
 * YIELD_AFTER_MS. Few, long chunks are what makes an import fast: each commit writes the pages
 * its chunk touched (the rows, a dozen index leaves, the words index, the facet counts) into the
 * WAL again, so 3 ms chunks wrote several times the bytes of 100 ms ones and took twice as long
 * (bench feed-run-one-core).
 */
export const CHUNK_MAX_MS = 250;
/**
 * How long a writer of the server waits for the lock before a chunk gives it up. Meanwhile the
 * server's other writes gather behind it (src/db/group-commit.ts), so one commit of the server
 * follows one of the import; giving the lock up at once would make every lead creation cut a chunk.
 */
export const YIELD_AFTER_MS = 10;
/**
 * Without the flag (a process that cannot open it), how long one chunk holds the write lock: what
 * a lead creation meeting it waits at most (on timers, src/db/group-commit.ts). On a core shared
 * with the server, a chunk is now and then preempted while it holds the lock: the shorter the
 * chunk, the fewer preemptions fall inside one.
 */
export const CHUNK_BUDGET_MS = 3;
/**
 * After each chunk a pause this part as long as the chunk (at least 1 ms): on a core shared with
 * the server, the import is runnable at most about half of the time while it writes, as it was
 * with 3 ms chunks and pauses as long; it needs far less of the core for the same listings now.
 */
const PAUSE_SHARE = 1;
/** After giving the lock up, how long a chunk waits for the waiting writer to take it before starting again. */
const HANDOVER_MS = 50;
/** How long a chunk waits for the lock, trying every few milliseconds and saying it waits (SQLite's busy_timeout). */
const LOCK_WAIT_MS = 5_000;
/** The import's own automatic checkpoint (pages of WAL): the server's backstop (src/db/checkpointer.ts). */
const IMPORT_CHECKPOINT_FRAMES = 10_000;
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
 * Without the flag, a pause about as long as the chunk held the lock, so a waiting writer finds
 * a gap. The server tries again on a fixed schedule (src/db/group-commit.ts): a pause that
 * varies (half to one and a half times the chunk) keeps the two from falling into step, where
 * each of its tries would land in a chunk.
 */
function pause(heldMs: number): Promise<void> {
  return Bun.sleep(Math.max(2, Math.ceil(heldMs * (0.5 + Math.random()))));
}

/**
 * The pause after a chunk that held the lock `heldMs`; after giving the lock up to a waiting
 * writer, also until that writer has taken it (at most HANDOVER_MS), so the next chunk does not
 * take it back first.
 */
async function pauseAfter(heldMs: number, waiting: WriterWaiting, yielded: boolean): Promise<void> {
  const started = performance.now();
  if (yielded) while (waiting.waitedMs() !== null && performance.now() - started < HANDOVER_MS) await Bun.sleep(1);
  const rest = Math.max(1, heldMs * PAUSE_SHARE) - (performance.now() - started);
  if (rest > 0) await Bun.sleep(Math.ceil(rest));
}

/**
 * Begins a write transaction, waiting for another process's lock on timers (so the run's own
 * timers, the lease's, keep running) and saying so in the writer-waiting flag, so that another
 * import's chunk gives the lock up as the server's writer would have it. Fails as SQLite's
 * busy timeout would, after LOCK_WAIT_MS.
 */
async function begin(db: Database, waiting: WriterWaiting | null, signal: AbortSignal | undefined): Promise<void> {
  const timeout = (db.query("PRAGMA busy_timeout").get() as { timeout: number }).timeout;
  const since = performance.now();
  for (let tries = 0; ; tries++) {
    let error: unknown = null;
    // Not a prepared statement: SQLite applies a PRAGMA's value when it is prepared.
    db.run("PRAGMA busy_timeout = 0");
    try {
      db.run("BEGIN IMMEDIATE");
    } catch (caught) {
      error = caught;
    } finally {
      db.run(`PRAGMA busy_timeout = ${timeout}`);
    }
    if (error === null) {
      waiting?.done();
      return;
    }
    if ((error as { code?: unknown }).code !== "SQLITE_BUSY" || performance.now() - since >= LOCK_WAIT_MS) {
      waiting?.done();
      throw error;
    }
    if (signal?.aborted) {
      waiting?.done();
      signal.throwIfAborted();
    }
    waiting?.announce();
    await Bun.sleep(tries < 4 ? 1 : 2);
  }
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
  if (chunked) db.run("PRAGMA synchronous = NORMAL");
  // SQLite checkpoints on the committing connection once the WAL is past 1000 pages: several
  // times a second during a run, each a copy into the database file and an fsync, pages that
  // the next chunks dirty again. A served file's checkpointer thread copies the WAL back every
  // second (src/db/checkpointer.ts); the import's own checkpoints stay only as a backstop.
  const autocheckpoint = (db.query("PRAGMA wal_autocheckpoint").get() as { wal_autocheckpoint: number })
    .wal_autocheckpoint;
  if (chunked) db.run(`PRAGMA wal_autocheckpoint = ${IMPORT_CHECKPOINT_FRAMES}`);
  const waiting = chunked ? WriterWaiting.of(db) : null;
  const budgetMs = waiting === null ? CHUNK_BUDGET_MS : CHUNK_MAX_MS;
  const rows = new PropertyRows(db);
  const writes = staging.writes();
  let written = 0;
  /** Writes committed so far (a chunk rolled back takes its own with it). */
  let committed = 0;
  /**
   * Runs `work` in one write transaction (IMMEDIATE: the check and the writes see one state),
   * then yields when chunked. `work` asks `ended()` between two writes: true once the chunk has
   * had its time, or a writer has waited YIELD_AFTER_MS for the lock.
   */
  const chunk = async (work: (ended: () => boolean) => void) => {
    options.signal?.throwIfAborted();
    await begin(db, waiting, options.signal);
    const startedAt = performance.now();
    let yielded = false;
    const ended = () => {
      if (!chunked) return false;
      const waited = waiting?.waitedMs() ?? null;
      if (waited !== null && waited >= YIELD_AFTER_MS) yielded = true;
      return yielded || performance.now() - startedAt >= budgetMs;
    };
    try {
      options.inEachChunk?.(db);
      work(ended);
      db.run("COMMIT");
    } catch (error) {
      if (db.inTransaction) db.run("ROLLBACK");
      throw error;
    }
    committed = written;
    if (!chunked) return;
    const heldMs = performance.now() - startedAt;
    if (waiting === null) await pause(heldMs);
    else await pauseAfter(heldMs, waiting, yielded);
  };
  try {
    if (!chunked) {
      // One transaction: every write, then the unpublishing (none: a new file holds only what
      // this feed creates). No one else sees this file: the indexes are built and what the
      // triggers keep is written once at the end rather than per listing, inside the same
      // transaction, so an interrupted import leaves nothing half-built.
      await chunk(() => {
        const aside = setAsideForBulkLoad(db, { unknownTriggers: "keep", uniqueIndexes: "keep" });
        for (let next = writes.next(); !next.done; next = writes.next())
          written = write(rows, staging, next.value, options, written);
        if (!options.partial)
          counts.unpublished = db.run(`UPDATE properties SET is_published = 0 WHERE ${MISSING}`).changes;
        finishPropertyLoad(db, aside, options.now);
      });
      return counts;
    }
    let next = writes.next();
    while (!next.done) {
      await chunk((ended) => {
        do {
          written = write(rows, staging, next.value as PlannedWrite, options, written);
          next = writes.next();
        } while (!next.done && !ended());
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
    if (chunked) db.run(`PRAGMA wal_autocheckpoint = ${autocheckpoint}`);
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
