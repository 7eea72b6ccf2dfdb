// Syncs a database's WAL to disk off the event loop. The server's writer (group-commit.ts)
// commits under synchronous = NORMAL, so COMMIT writes the WAL without waiting for the disk,
// and settles a batch's durable writes only once a sync of the WAL, begun after that COMMIT,
// has returned. An fsync takes 1 to 20 ms, longer while an import or a feed run writes to the
// same disk; made inside COMMIT, on the event loop, it held up every request of the server for
// that long. Here it runs on Bun's thread pool, one at a time, and each sync covers every commit
// written before it began: commits that arrive during a sync share the next one.
//
// This descriptor is the one exception to the rule of src/db/tenants.ts (only SQLite opens a
// database's files), and the rule's reason does not reach it: SQLite takes no POSIX lock on a
// -wal file (its locks are on the database file and the -shm), so closing this descriptor
// drops none. While the writer's connection is open the -wal stays the same file: SQLite only
// rewrites or truncates it in place, and deletes it when the last connection closes.
import { closeSync, fsync, openSync } from "node:fs";

/** fsync(2) on a descriptor, off the event loop (node:fs's callback form); injected by tests. */
export type Fsync = (fd: number, done: (error: Error | null) => void) => void;

/**
 * Read as each sync begins (on the event loop, before the fsync is asked for): a position in
 * something the commits write, such as the change log's last sequence. Everything committed up
 * to it is in the WAL then, so on disk once that sync returns.
 */
export type SyncMark = () => number;

interface Waiter {
  resolve: () => void;
  reject: (error: unknown) => void;
}

export class WalSync {
  private fd: number | null = null;
  /** Waiting for the next sync: it begins once the one under way (if any) has returned. */
  private waiting: Waiter[] = [];
  /** The sync under way: who waits for it, and the mark read as it began. */
  private current: { waiters: Waiter[]; mark: number } | null = null;
  /** The mark of the last sync that returned: up to it, everything is on disk. */
  private syncedMark = 0;
  private closed = false;

  constructor(
    private readonly walPath: string,
    private readonly sync: Fsync = fsync,
    private readonly mark: SyncMark = () => 0,
  ) {}

  /** Up to this mark everything is on disk (see SyncMark). */
  onDiskThrough(): number {
    return this.syncedMark;
  }

  /**
   * Null when everything up to `mark` is on disk already; else resolves once it is: with the
   * sync under way when that one began past `mark`, else with the next.
   */
  through(mark: number): Promise<void> | null {
    if (mark <= this.syncedMark) return null;
    const current = this.current;
    if (current !== null && mark <= current.mark && !this.closed)
      return new Promise((resolve, reject) => current.waiters.push({ resolve, reject }));
    return this.flushed();
  }

  /** Resolves once everything written to the WAL before this call is on disk; rejects when the sync failed. */
  flushed(): Promise<void> {
    if (this.closed) return Promise.reject(new Error("the database connection is closed"));
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      if (this.current === null) this.begin();
    });
  }

  /** Lets go of the descriptor, once the syncs under way have returned. */
  close(): void {
    this.closed = true;
    if (this.current === null) this.release();
  }

  private begin(): void {
    const waiters = this.waiting;
    this.waiting = [];
    let fd: number;
    let mark: number;
    try {
      fd = this.fd ??= openSync(this.walPath, "r");
      mark = this.mark();
    } catch (error) {
      for (const waiter of waiters) waiter.reject(error);
      return;
    }
    const current = { waiters, mark };
    this.current = current;
    this.sync(fd, (error) => {
      this.current = null;
      if (!error) this.syncedMark = Math.max(this.syncedMark, current.mark);
      for (const waiter of current.waiters) {
        if (error) waiter.reject(error);
        else waiter.resolve();
      }
      if (this.waiting.length > 0) this.begin();
      else if (this.closed) this.release();
    });
  }

  private release(): void {
    if (this.fd === null) return;
    closeSync(this.fd);
    this.fd = null;
  }
}
