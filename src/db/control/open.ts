// Opening the control database (docs/operators/console.md): its own migrations, marked with its
// own application_id so that it is never mistaken for a tenant database, or one for it.
import { Database } from "bun:sqlite";
import { existsSync } from "node:fs";
import { explainDatabaseError } from "../../writable.ts";
import { migrate, SchemaTooNewError, schemaVersion } from "../migrate.ts";
import control1 from "./migrations/001_control.sql" with { type: "text" };
import control2 from "./migrations/002_privacy.sql" with { type: "text" };
import control3 from "./migrations/003_insight.sql" with { type: "text" };
import control4 from "./migrations/004_request_log_packed.sql" with { type: "text" };

/** "PACT" (partner-api control) in PRAGMA application_id; tenant files keep 0. */
export const CONTROL_APPLICATION_ID = 0x50414354;

export const CONTROL_MIGRATIONS: readonly string[] = [control1, control2, control3, control4];

export class NotAControlDatabaseError extends Error {}

function applicationId(db: Database): number {
  return (db.query("PRAGMA application_id").get() as { application_id: number }).application_id;
}

/** Whether the file at `path` is a control database (false for a missing or foreign file). */
export function isControlDatabase(path: string): boolean {
  if (!existsSync(path)) return false;
  try {
    const db = new Database(path, { readonly: true });
    try {
      return applicationId(db) === CONTROL_APPLICATION_ID;
    } finally {
      db.close();
    }
  } catch {
    return false;
  }
}

/**
 * Opens (creating it when `create`) the control database and brings it up to date. A file that
 * holds something else (a tenant database, say) is refused.
 */
export function openControlDatabase(path: string, options: { create: boolean }): Database {
  if (!options.create && !existsSync(path)) throw new NotAControlDatabaseError(`control database not found: ${path}`);
  let db: Database;
  try {
    db = new Database(path, { create: options.create, readwrite: true, strict: true });
  } catch (error) {
    throw explainDatabaseError(error, path);
  }
  try {
    db.run("PRAGMA busy_timeout = 5000");
    const version = schemaVersion(db);
    const id = applicationId(db);
    if (version > 0 && id !== CONTROL_APPLICATION_ID)
      throw new NotAControlDatabaseError(`${path} is not a partner-api control database`);
    if (version > CONTROL_MIGRATIONS.length) throw new SchemaTooNewError(version);
    db.run("PRAGMA journal_mode = WAL");
    db.run("PRAGMA synchronous = FULL");
    db.run("PRAGMA foreign_keys = ON");
    // The requests register drops a person's identifiers once a request is done: no byte of them stays.
    db.run("PRAGMA secure_delete = ON");
    if (id !== CONTROL_APPLICATION_ID) db.run(`PRAGMA application_id = ${CONTROL_APPLICATION_ID}`);
    migrate(db, CONTROL_MIGRATIONS);
    return db;
  } catch (error) {
    db.close();
    if (error instanceof NotAControlDatabaseError || error instanceof SchemaTooNewError) throw error;
    throw explainDatabaseError(error, path);
  }
}

/**
 * A second connection to a control database already opened and migrated, for the figures
 * written in batches (src/usage/recorder.ts): NORMAL sync (a figure lost at a power cut is no
 * harm; WAL keeps the file whole), and a wait for the other processes' batches.
 */
export function openUsageConnection(path: string): Database {
  const db = new Database(path, { readwrite: true, strict: true });
  db.run("PRAGMA busy_timeout = 5000");
  db.run("PRAGMA synchronous = NORMAL");
  return db;
}
