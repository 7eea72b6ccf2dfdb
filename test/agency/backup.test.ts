// Backup: a consistent snapshot even while another connection writes, never over an existing file.
import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { BackupTargetExistsError, backupDatabase } from "../../src/agency/backup.ts";
import { closeDatabase, openExistingDatabase } from "../../src/db/open.ts";
import { publishedProperties, seededCopy, tempDir, withDb } from "./helpers.ts";

const dir = tempDir();
afterAll(() => dir.cleanup());

const leadCount = (path: string) =>
  withDb(path, (db) => (db.query("SELECT count(*) AS n FROM leads").get() as { n: number }).n);

describe("backup", () => {
  test("the copy holds the same data and opens as a partner-api database", () => {
    const db = seededCopy(dir.path("a.sqlite"));
    const out = dir.path("a-backup.sqlite");
    const summary = backupDatabase(db, out);
    expect(summary).toMatchObject({ database: db, out });
    expect(summary.bytes).toBeGreaterThan(0);
    expect(publishedProperties(out)).toEqual(publishedProperties(db));
    expect(leadCount(out)).toBe(leadCount(db));
  });

  test("a write in progress on another connection is not in the copy, and does not block it", () => {
    const db = seededCopy(dir.path("b.sqlite"));
    const before = leadCount(db);
    const writer = openExistingDatabase(db);
    try {
      writer.run("BEGIN IMMEDIATE");
      writer.run(
        "INSERT INTO leads (id, name, email, phone, message, source, status, priority, created_at, updated_at) " +
          "VALUES ('l-new', 'N', 'n@example.com', '1', 'm', 'API', 'NEW_LEAD', 'MEDIUM', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')",
      );
      backupDatabase(db, dir.path("b-backup.sqlite"));
      writer.run("COMMIT");
    } finally {
      closeDatabase(writer);
    }
    expect(leadCount(dir.path("b-backup.sqlite"))).toBe(before);
    expect(leadCount(db)).toBe(before + 1);
  });

  test("an existing --out is refused and left as it was", () => {
    const db = seededCopy(dir.path("c.sqlite"));
    const out = dir.path("c-existing");
    writeFileSync(out, "keep me");
    expect(() => backupDatabase(db, out)).toThrow(BackupTargetExistsError);
    expect(readFileSync(out, "utf8")).toBe("keep me");
  });
});
