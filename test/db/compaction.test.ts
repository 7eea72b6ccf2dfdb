// Change-feed compaction keeps the latest event of each record and never renumbers.
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { compactChangesStep } from "../../src/db/compaction.ts";
import { openDatabase } from "../../src/db/open.ts";

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function database() {
  dir = mkdtempSync(join(tmpdir(), "pa-compact-"));
  const db = openDatabase(join(dir, "c.sqlite"));
  const insert = db.prepare(
    "INSERT INTO properties (id, code, title, description, operation_type, status, highlight, exclusive, is_published, created_at, updated_at) " +
      "VALUES (?, ?, 't', 'd', 'SALE', 'AVAILABLE', 'STANDARD', 0, 1, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')",
  );
  for (const id of ["a", "b", "c"]) insert.run(id, id);
  db.run("UPDATE properties SET title = 'a2' WHERE id = 'a'"); // a: upsert, upsert
  db.run("UPDATE properties SET is_published = 0 WHERE id = 'b'"); // b: upsert, remove
  db.run("UPDATE properties SET title = 'a3' WHERE id = 'a'"); // a: third event
  return db;
}

const events = (db: ReturnType<typeof openDatabase>) =>
  db.query("SELECT sequence, record_id AS id, change FROM changes ORDER BY sequence").all() as {
    sequence: number;
    id: string;
    change: string;
  }[];

describe("compactChangesStep", () => {
  test("keeps exactly the newest event per record, with its original sequence", () => {
    const db = database();
    const before = events(db);
    const newest = new Map(before.map((e) => [e.id, e]));
    let cursor = 0;
    do cursor = compactChangesStep(db, cursor, 2).next;
    while (cursor !== 0);
    expect(events(db)).toEqual([...newest.values()].sort((x, y) => x.sequence - y.sequence));
    expect(events(db).find((e) => e.id === "b")!.change).toBe("remove");
    db.close();
  });

  test("new events continue above the old head: sequences are never reused", () => {
    const db = database();
    const head = Math.max(...events(db).map((e) => e.sequence));
    compactChangesStep(db, 0);
    db.run("UPDATE properties SET title = 'c2' WHERE id = 'c'");
    expect(Math.max(...events(db).map((e) => e.sequence))).toBe(head + 1);
    db.close();
  });

  test("a partner cursor taken before compaction still reaches the final state", () => {
    const db = database();
    const cursor = events(db)[1]!.sequence; // the partner has read the first two events
    compactChangesStep(db, 0);
    const rest = events(db).filter((e) => e.sequence > cursor);
    // Events were: a b c a b(remove) a. What lies past the cursor still names every record's end state.
    expect(rest.map((e) => [e.id, e.change])).toEqual([
      ["c", "upsert"],
      ["b", "remove"],
      ["a", "upsert"],
    ]);
    db.close();
  });
});
