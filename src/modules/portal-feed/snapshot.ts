// One read snapshot of a database on a connection of its own, held across the asynchronous
// slices of one feed body. The tenant's shared read connection cannot hold it: every other
// request on that connection would then read the same old state. In WAL mode the server's
// writer keeps committing meanwhile; the snapshot only keeps the WAL from being checkpointed past
// it, so it is released as soon as the body ends, fails, or its reader hangs up.
import { Database, type SQLQueryBindings, type Statement } from "bun:sqlite";
import type { TenantRegistry } from "../../db/tenants.ts";

/** The newest event of the properties' change log: what a feed's content is as of (docs/reference/behaviour-extensions.md §11). */
export interface ChangeHead {
  /**
   * Its number in the properties' own stream (0 when no property ever changed): a lead written
   * moves nothing a feed's validators are made of, not even a number inside its ETag.
   */
  sequence: number;
  recordId: string | null;
  /** When it was written (ISO); null with sequence 0. */
  at: string | null;
}

const HEAD_SQL =
  "SELECT number AS sequence, record_id AS recordId, at FROM changes " +
  "WHERE entity = 'properties' AND number IS NOT NULL ORDER BY number DESC LIMIT 1";

/**
 * The head of the properties' change log, as `db` sees it. Every write of a property or its
 * photos adds an event (triggers), and compaction only deletes events a newer one of the same
 * record supersedes, so the head moves exactly when published content may have changed.
 */
export function changeHead(db: Database): ChangeHead {
  return db.query<ChangeHead, []>(HEAD_SQL).get() ?? { sequence: 0, recordId: null, at: null };
}

/** A small page cache: a feed reads each page once, in order. */
const SNAPSHOT_CACHE_KIB = 2048;

/**
 * A connection that remembers the statements prepared on it. Closing a connection with a
 * statement still stepping (a body cut short at shutdown, its reader suspended) only makes it a
 * zombie that keeps its read transaction, and every checkpoint waits for it: release finalizes
 * them first (the suspended reader then fails on its next step, and stops).
 */
class SnapshotDatabase extends Database {
  readonly statements = new Set<Statement<any, any>>();

  override prepare<R, P extends SQLQueryBindings | SQLQueryBindings[]>(
    sql: string,
    params?: P,
  ): Statement<R, P extends any[] ? P : [P]> {
    const statement = super.prepare<R, P>(sql, params);
    this.statements.add(statement);
    return statement;
  }
}

export class ReadSnapshot {
  private released = false;
  private readonly unhold: () => void;

  private constructor(
    readonly db: SnapshotDatabase,
    /** The change head the snapshot holds. */
    readonly head: ChangeHead,
    tenants: TenantRegistry,
  ) {
    // Released before the server's databases close, should its body never end (never read).
    this.unhold = tenants.hold(() => this.release());
  }

  /** Opens a connection to the file and starts a read transaction at its current state. */
  static open(path: string, tenants: TenantRegistry): ReadSnapshot {
    const db = new SnapshotDatabase(path, { readonly: true, strict: true });
    try {
      // Readers in WAL mode wait only on a rare recovery; a wait here sleeps on the event loop, so briefly.
      db.run("PRAGMA busy_timeout = 250");
      db.run(`PRAGMA cache_size = -${SNAPSHOT_CACHE_KIB}`);
      db.run("BEGIN");
      // The first read fixes the snapshot: the head and every row after it come from one state.
      return new ReadSnapshot(db, changeHead(db), tenants);
    } catch (error) {
      db.close();
      throw error;
    }
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    this.unhold();
    try {
      for (const statement of this.db.statements) statement.finalize();
      if (this.db.inTransaction) this.db.run("COMMIT");
    } finally {
      // Read only: nothing to checkpoint, so closing never waits for the server's writes.
      this.db.close();
    }
  }
}
