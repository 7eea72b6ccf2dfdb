// `backup`: a consistent copy of a live database. VACUUM INTO reads one snapshot (the server
// keeps writing meanwhile) into a temporary file, which is checked and then linked into place.
import { Database } from "bun:sqlite";
import { existsSync, linkSync, statSync } from "node:fs";
import { isControlDatabase, openControlDatabase } from "../db/control/open.ts";
import { removeDatabaseFiles } from "../db/files.ts";
import { openExistingDatabase } from "../db/open.ts";

export class BackupTargetExistsError extends Error {
  constructor(readonly path: string) {
    super(`${path} already exists; refusing to overwrite it`);
  }
}

export interface BackupSummary {
  database: string;
  out: string;
  bytes: number;
  ms: number;
}

/** The copy must open and pass SQLite's quick check before it takes the target's name. */
function verify(path: string): void {
  const copy = new Database(path, { readonly: true });
  try {
    const row = copy.query("PRAGMA quick_check").get() as { quick_check: string };
    if (row.quick_check !== "ok") throw new Error(`the backup failed its integrity check: ${row.quick_check}`);
  } finally {
    copy.close();
  }
}

export function backupDatabase(dbPath: string, outPath: string): BackupSummary {
  const started = performance.now();
  if (existsSync(outPath)) throw new BackupTargetExistsError(outPath);
  const tmpPath = `${outPath}.tmp-${process.pid}`;
  removeDatabaseFiles(tmpPath);
  try {
    // The control database (admins, console partners, the audit log) is backed up the same way.
    const db = isControlDatabase(dbPath)
      ? openControlDatabase(dbPath, { create: false })
      : openExistingDatabase(dbPath);
    try {
      db.run("VACUUM INTO ?", [tmpPath]);
    } finally {
      // A plain close: this connection wrote nothing, and closeDatabase's TRUNCATE checkpoint
      // would wait for the server's writers.
      db.close();
    }
    verify(tmpPath);
    try {
      linkSync(tmpPath, outPath); // atomic, and refuses a target that appeared meanwhile
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "EEXIST") throw new BackupTargetExistsError(outPath);
      throw error;
    }
    return {
      database: dbPath,
      out: outPath,
      bytes: statSync(outPath).size,
      ms: Math.round(performance.now() - started),
    };
  } finally {
    removeDatabaseFiles(tmpPath);
  }
}
