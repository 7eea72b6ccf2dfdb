// Opening a partner-api database: the PRAGMAs every connection needs, then the migrations.
import { Database } from "bun:sqlite";
import { existsSync } from "node:fs";
import { explainDatabaseError } from "../writable.ts";
import { migrate, SCHEMA_VERSION, SchemaTooNewError, schemaVersion } from "./migrate.ts";

export class NotAPartnerDatabaseError extends Error {}

/**
 * Waits for another connection's lock instead of failing at once: first of all, since even
 * reading the schema version or setting the journal mode can meet a writer of another process
 * (an import into a served file failed "database is locked" when it came later).
 */
function waitForLocks(db: Database): void {
  db.run("PRAGMA busy_timeout = 5000");
}

function applyPragmas(db: Database): void {
  db.run("PRAGMA journal_mode = WAL");
  // FULL: a commit is on disk before it returns (the command line's writes). The server's
  // writer commits under NORMAL instead and syncs the WAL off the event loop before it
  // acknowledges a lead (group-commit.ts): either way an acknowledged lead survives power loss.
  db.run("PRAGMA synchronous = FULL");
  db.run("PRAGMA foreign_keys = ON");
  // 16 MiB page cache per connection (two per database): with totals and deep pages served
  // from counters, no request walks more than a day of index entries, and RSS stays low.
  db.run("PRAGMA cache_size = -16384");
  db.run("PRAGMA temp_store = MEMORY");
  // What a write removes or replaces is overwritten with zeros, in its page and in freed pages,
  // so a lead's anonymized or deleted text leaves no byte in the file (docs/operators/personal-data.md).
  db.run("PRAGMA secure_delete = ON");
  // A WAL that grew while a long snapshot kept checkpoints from starting it over (a portal's
  // feed download: hundreds of MB) is cut back to this when the next commit starts it over,
  // instead of keeping its largest size on disk for good.
  db.run(`PRAGMA journal_size_limit = ${64 * 2 ** 20}`);
}

/**
 * Opens (creating if needed) a database and brings its schema up to date. A folder or file this
 * process may not write is reported as an UnwritablePathError naming it, the cause and the fix.
 */
export function openDatabase(path: string): Database {
  let db: Database;
  try {
    db = new Database(path, { create: true, strict: true });
  } catch (error) {
    throw explainDatabaseError(error, path);
  }
  try {
    waitForLocks(db);
    applyPragmas(db);
    migrate(db);
    return db;
  } catch (error) {
    db.close();
    throw explainDatabaseError(error, path);
  }
}

/**
 * Opens an existing database for serving: never creates one. A file that is not a
 * partner-api database (no schema version, or a foreign schema) is refused; one in a folder this
 * process may not write (SQLite must create its -wal and -shm files there) is an
 * UnwritablePathError naming the folder and the fix.
 */
export function openExistingDatabase(path: string): Database {
  if (!existsSync(path)) throw new NotAPartnerDatabaseError(`database file not found: ${path}`);
  let db: Database;
  try {
    db = new Database(path, { readwrite: true, create: false, strict: true });
  } catch (error) {
    const explained = explainDatabaseError(error, path);
    if (explained !== error) throw explained;
    throw new NotAPartnerDatabaseError(`cannot open ${path}: ${(error as Error).message}`);
  }
  try {
    waitForLocks(db);
    const version = schemaVersion(db);
    if (version === 0) throw new NotAPartnerDatabaseError(`${path} is not a partner-api database`);
    // The control database (db/control/) has migrations of its own: never run these on it.
    const appId = (db.query("PRAGMA application_id").get() as { application_id: number }).application_id;
    if (appId !== 0)
      throw new NotAPartnerDatabaseError(`${path} is the server's control database, not a partner database`);
    if (version > SCHEMA_VERSION) throw new SchemaTooNewError(version);
    applyPragmas(db);
    migrate(db);
    return db;
  } catch (error) {
    db.close();
    if (error instanceof NotAPartnerDatabaseError || error instanceof SchemaTooNewError) throw error;
    const explained = explainDatabaseError(error, path);
    if (explained !== error) throw explained;
    throw new NotAPartnerDatabaseError(
      `${path} cannot be opened as a partner-api database: ${(error as Error).message}`,
    );
  }
}

/** Closes cleanly: checkpoints the WAL so the file alone holds everything. */
export function closeDatabase(db: Database): void {
  try {
    db.run("PRAGMA wal_checkpoint(TRUNCATE)");
  } catch {
    // A checkpoint can fail while another process reads; closing is still safe.
  }
  db.close();
}
