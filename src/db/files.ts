// The files of a database, for commands that read or write other files beside it: an export's
// --out, an import's FEED. Only SQLite may open them (the rule in src/db/tenants.ts), so such a
// path is told apart with stat() alone, never by opening it.

import { rmSync, statSync } from "node:fs";
import { resolve } from "node:path";

/** The database file, the ones SQLite keeps beside it, and its writers' flag (writer-waiting.ts). */
export function databaseFiles(databasePath: string): string[] {
  return ["", "-wal", "-shm", "-journal", "-wait"].map((suffix) => `${databasePath}${suffix}`);
}

/** The same file: the same path, or (through links) the same device and inode. */
function sameFile(a: string, b: string): boolean {
  if (resolve(a) === resolve(b)) return true;
  const x = statSync(a, { bigint: true, throwIfNoEntry: false });
  const y = statSync(b, { bigint: true, throwIfNoEntry: false });
  return x !== undefined && y !== undefined && x.dev === y.dev && x.ino === y.ino;
}

/** Which of the database's files `path` is, or null when it is none of them. */
export function databaseFileNamed(path: string, databasePath: string): string | null {
  return databaseFiles(databasePath).find((file) => sameFile(path, file)) ?? null;
}

/**
 * Deletes a database and the files beside it: a staging file, a failed import's new file, a
 * sandbox being reset. Only for a database no connection has open (callers check, e.g. with
 * refuseIfInUse), since SQLite would go on writing to files no longer there.
 */
export function removeDatabaseFiles(databasePath: string): void {
  for (const file of databaseFiles(databasePath)) rmSync(file, { force: true });
}
