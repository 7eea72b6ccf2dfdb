// Group commit: writes submitted in the same turn of the event loop share one transaction and
// so one fsync. Each write runs in its own savepoint, so one that fails is undone alone and its
// neighbours still commit.
//
// A write is durable by default: its promise settles only once its batch is on disk. Batches
// commit under synchronous = NORMAL (the WAL written, no fsync inside COMMIT, which ran on the
// event loop and held up every request for as long as the disk took), and their durable writes
// settle once a sync of the WAL begun after the COMMIT has returned, on another thread
// (wal-sync.ts). A write submitted as bookkeeping (the webhook worker's: outcomes, claims,
// dispatch steps, all of which a restart can redo) settles at COMMIT: it reaches the disk with
// the next sync or the checkpointer's next pass (src/db/checkpointer.ts, every second on its own
// thread; a checkpoint syncs the WAL before it copies); a killed process loses none of it, only a
// power cut can. A database not in WAL mode (in memory) commits its durable batches under FULL.
//
// A commit is visible to readers from COMMIT on, a sync before its writer hears of it. Readers
// whose answers show the change log hold them back until it is on disk (Tenant.onDisk).
//
// When another process holds the write lock (an import applying a chunk), the batch waits for
// it on timers, never in SQLite's busy handler: that handler sleeps on the calling thread, and
// here that is the event loop, so every request of the server would wait with the batch. Each
// try that finds the lock taken says so in the database's writer-waiting flag
// (writer-waiting.ts): an import or feed run reads it after every listing and commits, giving
// the lock up, once a writer has waited for it long enough to gather the writes arriving meanwhile.
import type { Database, Statement } from "bun:sqlite";
import { recordGroupCommit } from "../metrics/storage.ts";
import { type Fsync, type SyncMark, WalSync } from "./wal-sync.ts";
import { WriterWaiting } from "./writer-waiting.ts";

type Work<T> = (db: Database) => T;

/** How a write must reach the disk: before its promise settles, or with the next sync. */
export type Durability = "durable" | "bookkeeping";

/** How one write ended: its result, or its error. */
interface Outcome {
  ok: boolean;
  value: unknown;
}

interface Job {
  work: Work<unknown>;
  durability: Durability;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

const MAX_BATCH = 1_000;
/**
 * While writes keep arriving, a batch waits for them (a turn of the event loop at a time, at
 * most this long): one fsync then covers more of them. A lone write waits one turn.
 */
const MAX_GATHER_MS = 2;
/** How long a batch waits for another process's write lock before its writes fail (503). */
const MAX_LOCK_WAIT_MS = 5_000;
/**
 * Between two tries for the lock (a try costs microseconds). An import gives the lock up within a
 * listing of seeing a writer wait (writer-waiting.ts): the next try should find it free soon after.
 */
const LOCK_RETRY_MS = [1, 1, 2];

export class GroupCommitWriter {
  private queue: Job[] = [];
  private scheduled = false;
  /** Set by close(): the connection is going away, so nothing may run on it any more. */
  private closed = false;
  /** Since when the next batch has been waiting for another process's write lock, and how often it tried. */
  private lockWaitSince: number | null = null;
  private lockTries = 0;
  /** Queue length at the last look, and when the batch's first write arrived. */
  private seen = 0;
  private gatheringSince = 0;
  private readonly begin: Statement;
  /** The connection's own busy timeout, for everything it runs outside BEGIN. */
  private readonly busyTimeout: number;
  private readonly commit: Statement;
  private readonly rollback: Statement;
  private readonly savepoint: Statement;
  private readonly release: Statement;
  private readonly rollbackTo: Statement;
  private readonly now: () => number;
  /** The connection's synchronous setting: NORMAL with a WAL; without one, FULL for a batch with a durable write. */
  private synchronous: "FULL" | "NORMAL" | null = null;
  /** Syncs the WAL for the durable writes; null when the database has none (in memory), where COMMIT syncs. */
  private readonly walSync: WalSync | null;
  /** The database's writer-waiting flag, told of each try that finds the lock taken; null without a file. */
  private readonly waiting: WriterWaiting | null;

  /**
   * `onOutcome` hears how each write ended: null once committed, else its error. Options: `now`,
   * the millisecond clock of the gathering window (injected by tests); `fsync`, the WAL's sync
   * (tests hold it back or fail it); `syncMark`, read as each sync begins (see onDisk).
   */
  constructor(
    private readonly db: Database,
    private readonly onOutcome: (error: unknown) => void = () => {},
    options: { now?: () => number; fsync?: Fsync; syncMark?: SyncMark } = {},
  ) {
    this.now = options.now ?? (() => performance.now());
    this.begin = db.prepare("BEGIN IMMEDIATE");
    this.busyTimeout = (db.query("PRAGMA busy_timeout").get() as { timeout: number }).timeout;
    this.commit = db.prepare("COMMIT");
    this.rollback = db.prepare("ROLLBACK");
    this.savepoint = db.prepare("SAVEPOINT job");
    this.release = db.prepare("RELEASE job");
    this.rollbackTo = db.prepare("ROLLBACK TO job");
    const wal = walPath(db);
    this.walSync = wal === null ? null : new WalSync(wal, options.fsync, options.syncMark);
    this.waiting = wal === null ? null : WriterWaiting.of(db);
    this.setSynchronous(this.walSync === null ? "FULL" : "NORMAL");
  }

  /**
   * Runs `work` inside the next batch's transaction; resolves once that batch is on disk for
   * a durable write, once it has committed (on disk at the next sync) for bookkeeping.
   */
  submit<T>(work: Work<T>, durability: Durability = "durable"): Promise<T> {
    if (this.closed) return Promise.reject(new Error("the database connection is closed"));
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work, durability, resolve: resolve as (value: unknown) => void, reject });
      if (!this.scheduled) this.startBatch();
    });
  }

  /** Resolves once everything committed so far, by any connection to the file, is on disk. */
  synced(): Promise<void> {
    return this.walSync?.flushed() ?? Promise.resolve();
  }

  /**
   * Null when everything up to `mark` (of the constructor's `syncMark`) is on disk, else
   * resolves once it is; the syncs the durable writes cause move it on by themselves.
   */
  onDisk(mark: number): Promise<void> | null {
    return this.walSync?.through(mark) ?? null;
  }

  /** Up to which mark everything is on disk: all of it without a WAL, where COMMIT syncs. */
  onDiskThrough(): number {
    return this.walSync?.onDiskThrough() ?? Number.POSITIVE_INFINITY;
  }

  /**
   * Called before the connection closes: writes still queued (gathering, or waiting for another
   * process's lock on a timer) fail instead of running on a closed connection from a timer.
   */
  close(): void {
    this.closed = true;
    this.failQueued(new Error("the database connection is closed"));
    this.walSync?.close();
  }

  /** Opens the gathering window of the next batch. */
  private startBatch(): void {
    this.scheduled = true;
    this.seen = 0;
    this.gatheringSince = this.now();
    // setImmediate runs after this turn's I/O: requests that arrived together join one batch.
    setImmediate(() => this.flush());
  }

  /**
   * Begins the batch's transaction, taking the write lock without waiting in SQLite. True once
   * begun, and also when beginning failed otherwise (the batch then fails with that error, as
   * it would at COMMIT); false when another process holds the lock and the batch will try again.
   */
  private lock(): boolean {
    let busy = false;
    // Set outside the transaction: SQLite refuses to change it inside one.
    if (this.walSync === null)
      this.setSynchronous(
        this.queue.some((job, i) => i < MAX_BATCH && job.durability === "durable") ? "FULL" : "NORMAL",
      );
    try {
      // Not a prepared statement: SQLite applies a PRAGMA's value when it is prepared.
      this.db.run("PRAGMA busy_timeout = 0");
      this.begin.run();
    } catch (error) {
      busy = (error as { code?: unknown }).code === "SQLITE_BUSY";
      if (!busy || (this.lockWaitSince !== null && this.now() - this.lockWaitSince >= MAX_LOCK_WAIT_MS)) {
        this.waiting?.done();
        this.failQueued(error);
        return false;
      }
    } finally {
      this.db.run(`PRAGMA busy_timeout = ${this.busyTimeout}`);
    }
    if (!busy) {
      this.waiting?.done();
      this.lockWaitSince = null;
      this.lockTries = 0;
      return true;
    }
    this.lockWaitSince ??= this.now();
    this.waiting?.announce();
    const delay = LOCK_RETRY_MS[Math.min(this.lockTries++, LOCK_RETRY_MS.length - 1)]!;
    setTimeout(() => this.flush(), delay);
    return false;
  }

  private setSynchronous(level: "FULL" | "NORMAL"): void {
    if (level === this.synchronous) return;
    this.db.run(`PRAGMA synchronous = ${level}`);
    this.synchronous = level;
  }

  /** Every queued write fails with the error that kept the batch from beginning. */
  private failQueued(error: unknown): void {
    const jobs = this.queue;
    this.queue = [];
    this.scheduled = false;
    this.lockWaitSince = null;
    this.lockTries = 0;
    for (const job of jobs) this.settle(job, { ok: false, value: error });
  }

  private flush(): void {
    if (this.closed) return;
    const arriving = this.queue.length > this.seen;
    if (arriving && this.queue.length < MAX_BATCH && this.now() - this.gatheringSince < MAX_GATHER_MS) {
      this.seen = this.queue.length;
      setImmediate(() => this.flush());
      return;
    }
    if (!this.lock()) return;
    const jobs = this.queue.length > MAX_BATCH ? this.queue.splice(0, MAX_BATCH) : this.queue;
    if (jobs === this.queue) this.queue = [];
    const gatheredSince = this.gatheringSince;
    this.scheduled = false;
    if (this.queue.length > 0) this.startBatch();

    const outcomes: Outcome[] = [];
    const beganAt = this.now();
    try {
      for (const job of jobs) {
        this.savepoint.run();
        try {
          outcomes.push({ ok: true, value: job.work(this.db) });
          this.release.run();
        } catch (error) {
          this.rollbackTo.run();
          this.release.run();
          outcomes.push({ ok: false, value: error });
        }
      }
      this.commit.run();
    } catch (error) {
      // The transaction itself failed (disk full, read-only file…): nothing of it is kept.
      if (this.db.inTransaction) {
        try {
          this.rollback.run();
        } catch {
          // Already rolled back by SQLite.
        }
      }
      for (const job of jobs) this.settle(job, { ok: false, value: error });
      return;
    }
    const record = () => recordGroupCommit(jobs.length, beganAt - gatheredSince, this.now() - beganAt);
    // Settled now: bookkeeping, and writes that failed. The durable writes wait for the sync.
    const settledNow: [Job, Outcome][] = [];
    const afterSync: [Job, Outcome][] = [];
    jobs.forEach((job, i) => {
      const outcome = outcomes[i]!;
      (this.walSync !== null && job.durability === "durable" && outcome.ok ? afterSync : settledNow).push([
        job,
        outcome,
      ]);
    });
    for (const [job, outcome] of settledNow) this.settle(job, outcome);
    if (afterSync.length === 0 || this.walSync === null) {
      record();
      return;
    }
    this.walSync.flushed().then(
      () => {
        record();
        for (const [job, outcome] of afterSync) this.settle(job, outcome);
      },
      // Committed, and maybe already read, but not known to be on disk (the disk failed): not acknowledged.
      (error) => {
        for (const [job] of afterSync) this.settle(job, { ok: false, value: error });
      },
    );
  }

  private settle(job: Job, outcome: Outcome): void {
    this.onOutcome(outcome.ok ? null : outcome.value);
    if (outcome.ok) job.resolve(outcome.value);
    else job.reject(outcome.value);
  }
}

/** The -wal file of the connection's database, or null when it keeps none (in memory, or not in WAL mode). */
function walPath(db: Database): string | null {
  const mode = db.query<{ journal_mode: string }, []>("PRAGMA journal_mode").get()?.journal_mode;
  const file = db.query<{ file: string }, []>("SELECT file FROM pragma_database_list WHERE name = 'main'").get()?.file;
  return mode === "wal" && file ? `${file}-wal` : null;
}
