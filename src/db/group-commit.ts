// Group commit: writes submitted in the same turn of the event loop share one transaction and
// so one fsync. Each write runs in its own savepoint, so one that fails is undone alone and its
// neighbours still commit; every promise settles only after the COMMIT has returned.
import type { Database, Statement } from "bun:sqlite";
import { recordGroupCommit } from "../metrics/storage.ts";

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
    const jobs = this.queue.length > MAX_BATCH ? this.queue.splice(0, MAX_BATCH) : this.queue;
    if (jobs === this.queue) this.queue = [];
    const gatheredSince = this.gatheringSince;
    this.scheduled = false;
    if (this.queue.length > 0) this.startBatch();

    const outcomes: { ok: boolean; value: unknown }[] = [];
    const beganAt = this.now();
    try {
      this.begin.run();
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
      recordGroupCommit(jobs.length, beganAt - gatheredSince, this.now() - beganAt);
    } catch (error) {
      // The transaction itself failed (disk full, read-only file…): nothing of it is kept.
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
}
