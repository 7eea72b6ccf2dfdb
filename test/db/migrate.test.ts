// Schema versions: a new file is created at the current version, an older one upgraded at
// open, a newer one refused with a clear message, and serving never creates a database.
import { Database } from "bun:sqlite";
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { migrate, SCHEMA_VERSION, SchemaTooNewError, schemaVersion } from "../../src/db/migrate.ts";
import { NotAPartnerDatabaseError, openDatabase, openExistingDatabase } from "../../src/db/open.ts";

let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), "pa-migrate-"))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));
const path = (name: string) => join(dir, name);

describe("migrations", () => {
  test("a new database is at the current version, in WAL mode with FULL sync and foreign keys", () => {
    const db = openDatabase(path("new.sqlite"));
    expect(schemaVersion(db)).toBe(SCHEMA_VERSION);
    expect(db.query("PRAGMA journal_mode").get()).toEqual({ journal_mode: "wal" });
    expect(db.query("PRAGMA synchronous").get()).toEqual({ synchronous: 2 });
    expect(db.query("PRAGMA foreign_keys").get()).toEqual({ foreign_keys: 1 });
    expect((db.query("PRAGMA busy_timeout").get() as { timeout: number }).timeout).toBeGreaterThan(0);
    db.close();
  });

  test("an older file is upgraded step by step at open", () => {
    const db = new Database(path("old.sqlite"));
    const steps = ["CREATE TABLE a (x)", "CREATE TABLE b (y)", "INSERT INTO a VALUES (1)"];
    migrate(db, steps.slice(0, 1));
    expect(schemaVersion(db)).toBe(1);
    migrate(db, steps);
    expect(schemaVersion(db)).toBe(3);
    expect(db.query("SELECT x FROM a").values()).toEqual([[1]]);
    db.close();
  });

  test("a failing step leaves the file at the last good version", () => {
    const db = new Database(path("broken.sqlite"));
    expect(() => migrate(db, ["CREATE TABLE a (x)", "CREATE TABLE a (x)"])).toThrow();
    expect(schemaVersion(db)).toBe(1);
    db.close();
  });

  test("a newer file is refused with a clear message", () => {
    const file = path("newer.sqlite");
    const db = new Database(file);
    db.run(`PRAGMA user_version = ${SCHEMA_VERSION + 1}`);
    db.close();
    expect(() => openExistingDatabase(file)).toThrow(SchemaTooNewError);
    expect(() => openExistingDatabase(file)).toThrow(/newer than this partner-api understands/);
  });

  test("serving never creates a database: a missing file or a foreign one is refused", () => {
    expect(() => openExistingDatabase(path("missing.sqlite"))).toThrow(NotAPartnerDatabaseError);
    expect(existsSync(path("missing.sqlite"))).toBe(false);
    const foreign = path("foreign.sqlite");
    new Database(foreign).close();
    expect(() => openExistingDatabase(foreign)).toThrow(/not a partner-api database/);
    const junk = path("junk.sqlite");
    writeFileSync(junk, "this is not sqlite at all, just text that is long enough to look like a header");
    expect(() => openExistingDatabase(junk)).toThrow(NotAPartnerDatabaseError);
  });
});
