// Group commit: writes submitted in the same turn of the event loop share one transaction and
// so one fsync. Each write runs in its own savepoint, so one that fails is undone alone and its
// neighbours still commit; every promise settles only after the COMMIT has returned. While
// another connection holds the write lock (an import's chunk, another worker's batch), the
// batch waits for it on timers, never in SQLite's busy handler, which would sleep on the event
// loop and hold every request of the server with it.
import type { Database, Statement } from "bun:sqlite";

type Work<T> = (db: Database) => T;

interface Job {
  work: Work<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

const MAX_BATCH = 1_000;
/**
 * While writes keep arriving, a batch waits for them (a turn of the event loop at a time, at
 * most this long): one fsync then covers more of them. A lone write waits one turn.
 */
const MAX_GATHER_MS = 2;
/** How long a batch waits for another connection's write lock before it fails (as busy_timeout did). */
export const LOCK_WAIT_MS = 5_000;
/** Returned by takeLock while the batch waits for the lock on a timer. */
const WAITING = Symbol("waiting for the write lock");

function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && code.startsWith("SQLITE_BUSY");
}

export class GroupCommitWriter {
  private queue: Job[] = [];
  private scheduled = false;
  /** Queue length at the last look, and when the batch's first write arrived. */
  private seen = 0;
  private gatheringSince = 0;
  private readonly begin: Statement;
  private readonly commit: Statement;
  private readonly rollback: Statement;
  private readonly savepoint: Statement;
  private readonly release: Statement;
  private readonly rollbackTo: Statement;
  /** The connection's own busy timeout, set again after each try for the lock. */
  private readonly busyTimeoutMs: number;
  /** When the batch waiting for the write lock first met it taken. */
  private lockWaitSince: number | null = null;

  /**
   * `onOutcome` hears how each write ended: null once committed, else its error. `now` is the
   * millisecond clock of the gathering window (injected by tests).
   */
  constructor(
    private readonly db: Database,
    private readonly onOutcome: (error: unknown) => void = () => {},
    private readonly now: () => number = () => performance.now(),
  ) {
    this.begin = db.prepare("BEGIN IMMEDIATE");
    this.commit = db.prepare("COMMIT");
    this.rollback = db.prepare("ROLLBACK");
    this.savepoint = db.prepare("SAVEPOINT job");
    this.release = db.prepare("RELEASE job");
    this.rollbackTo = db.prepare("ROLLBACK TO job");
    this.busyTimeoutMs = Math.trunc((db.query("PRAGMA busy_timeout").get() as { timeout: number }).timeout);
  }

  /** Runs `work` inside the next batch's transaction; resolves once that batch is on disk. */
  submit<T>(work: Work<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      if (!this.scheduled) this.startBatch();
    });
  }

  /** Opens the gathering window of the next batch. */
  private startBatch(): void {
    this.scheduled = true;
    this.seen = 0;
    this.gatheringSince = this.now();
    // setImmediate runs after this turn's I/O: requests that arrived together join one batch.
    setImmediate(() => this.flush());
  }

  private flush(): void {
    const arriving = this.queue.length > this.seen;
    if (arriving && this.queue.length < MAX_BATCH && this.now() - this.gatheringSince < MAX_GATHER_MS) {
      this.seen = this.queue.length;
      setImmediate(() => this.flush());
      return;
    }
    const failure = this.takeLock();
    if (failure === WAITING) return;
    const jobs = this.queue.length > MAX_BATCH ? this.queue.splice(0, MAX_BATCH) : this.queue;
    if (jobs === this.queue) this.queue = [];
    this.scheduled = false;
    if (this.queue.length > 0) this.startBatch();

    const outcomes: { ok: boolean; value: unknown }[] = [];
    try {
      if (failure !== null) throw failure;
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
      // The transaction itself failed (the lock not had within LOCK_WAIT_MS, disk full, read-only file…): nothing of it is kept.
      if (this.db.inTransaction) {
        try {
          this.rollback.run();
        } catch {
          // Already rolled back by SQLite.
        }
      }
      for (const job of jobs) {
        this.onOutcome(error);
        job.reject(error);
      }
      return;
    }
    jobs.forEach((job, i) => {
      const outcome = outcomes[i]!;
      this.onOutcome(outcome.ok ? null : outcome.value);
      if (outcome.ok) job.resolve(outcome.value);
      else job.reject(outcome.value);
    });
  }

  /**
   * Opens the batch's transaction (null), or says why it cannot (an error, the batch then
   * fails), or, while another connection holds the write lock, looks again on a timer
   * (WAITING): writes arriving meanwhile join the batch.
   */
  private takeLock(): unknown {
    // Not prepared once: SQLite applies this PRAGMA when it compiles it, not when it runs it.
    this.db.run("PRAGMA busy_timeout = 0");
    try {
      this.begin.run();
      this.lockWaitSince = null;
      return null;
    } catch (error) {
      const since = (this.lockWaitSince ??= this.now());
      if (!isBusy(error) || this.now() - since >= LOCK_WAIT_MS) {
        this.lockWaitSince = null;
        return error;
      }
      setTimeout(() => this.flush(), 1);
      return WAITING;
    } finally {
      this.db.run(`PRAGMA busy_timeout = ${this.busyTimeoutMs}`);
    }
  }
}
