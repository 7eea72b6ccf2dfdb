// "A writer is waiting for the lock": what a long writer of another process (an import, a feed
// run) needs to know to give SQLite's write lock up at once, instead of holding it for chunks
// short enough that a waiting writer never waits long. Short chunks were what made a run slow:
// each commit writes the pages it touched into the WAL again (the listing's rows, a dozen index
// leaves, the words index, the facet counts), so a 20,000-listing run committed in 3 ms chunks
// wrote gigabytes (bench feed-run-one-core). With this flag the run commits seldom, and still
// gives the lock up within one listing of a writer asking for it.
//
// The flag is two instants (milliseconds since the epoch): since when the longest-waiting writer
// has waited for the lock, and its last try; both 0 once a waiting writer has the lock. Sixteen
// bytes in a file beside the database, `<database>-wait`, mapped shared by every process that
// writes the database, so reading it is a load from memory (the run reads it after every listing
// it writes). A writer stamps it each time it finds the lock busy and clears it when it takes the
// lock; a last try older than STALE_MS (its writer gave up, or died) counts as no one waiting.
// Several writers waiting at once share it: one clearing it is followed by the others' next
// tries stamping it again.
//
// This file is not SQLite's: opening, mapping and closing it leaves SQLite's locks alone, which
// live on the database's own files (src/db/tenants.ts). A process that cannot open or create it
// (another user's file, a read-only folder) goes without: its writer then yields the lock only at
// the end of each chunk, as before.
import type { Database } from "bun:sqlite";
import { closeSync, fchownSync, fstatSync, ftruncateSync, openSync, statSync } from "node:fs";

/** A stamp older than this is a waiter that stopped waiting (it retries far more often: src/db/group-commit.ts). */
export const STALE_MS = 100;
const BYTES = 16;

/** The flag's file for a database file. */
export function writerWaitingPath(databasePath: string): string {
  return `${databasePath}-wait`;
}

export class WriterWaiting {
  private constructor(
    /** [since when the longest waiter waits, its last try]. */
    private readonly stamp: Float64Array,
    private readonly now: () => number,
  ) {}

  /**
   * The flag of the database at `databasePath`, created if missing (with the database's own
   * permission bits, and its owner when this process may give it); null when it cannot be had
   * (see the top of this file).
   */
  static open(databasePath: string, now: () => number = Date.now): WriterWaiting | null {
    const path = writerWaitingPath(databasePath);
    try {
      const database = statSync(databasePath);
      // O_APPEND|O_CREAT, never truncating: another process may have it mapped already.
      const fd = openSync(path, "a", database.mode & 0o666);
      try {
        if (fstatSync(fd).size < BYTES) {
          // Made by root (an import run with sudo): the database's owner's, so the server can open it too.
          try {
            fchownSync(fd, database.uid, database.gid);
          } catch {
            // Not root: the file is this process's user's, as the database's -wal would be.
          }
          ftruncateSync(fd, BYTES);
        }
      } finally {
        closeSync(fd);
      }
      const bytes = Bun.mmap(path, { shared: true });
      if (bytes.byteLength < BYTES) return null;
      return new WriterWaiting(new Float64Array(bytes.buffer, bytes.byteOffset, 2), now);
    } catch {
      return null;
    }
  }

  /** The flag of the file `db` is connected to; null in memory, or when it cannot be had. */
  static of(db: Database, now?: () => number): WriterWaiting | null {
    const file = db
      .query<{ file: string }, []>("SELECT file FROM pragma_database_list WHERE name = 'main'")
      .get()?.file;
    return file ? WriterWaiting.open(file, now) : null;
  }

  /** Since when this process's writer has waited for the lock (null: it is not waiting). */
  private since: number | null = null;

  /** This writer found the lock taken and will try again. */
  announce(): void {
    const now = this.now();
    const since = (this.since ??= now);
    const earlier = this.stamp[0]!;
    if (earlier === 0 || !this.fresh(now) || since < earlier) this.stamp[0] = since;
    this.stamp[1] = now;
  }

  /** This writer has the lock now (clears the flag if it had announced itself), or stopped waiting for it. */
  done(): void {
    if (this.since === null) return;
    this.since = null;
    this.stamp[0] = 0;
    this.stamp[1] = 0;
  }

  /** How long another writer has been waiting for the lock (milliseconds); null when none is. */
  waitedMs(): number | null {
    const now = this.now();
    return this.stamp[0] !== 0 && this.fresh(now) ? Math.max(0, now - this.stamp[0]!) : null;
  }

  private fresh(now: number): boolean {
    return now - this.stamp[1]! < STALE_MS;
  }
}
