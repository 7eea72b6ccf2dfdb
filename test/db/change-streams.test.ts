// The change log numbered per stream (src/db/migrations/010_change_streams.sql): a file written
// before schema 10 keeps the numbers partners were shown, every stream goes on from its own last
// number, and a number is never given twice, whatever compaction deletes.
import { Database } from "bun:sqlite";
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { compactChangesStep } from "../../src/db/compaction.ts";
import { MIGRATIONS, migrate } from "../../src/db/migrate.ts";

let dir: string;
let db: Database;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "pa-streams-"));
  db = new Database(join(dir, "streams.sqlite"));
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

/** An entry of the log as a trigger writes it (a lead's carries its owner). */
function write(entity: "properties" | "leads", id: string, owner: string | null = null): void {
  db.run(
    "INSERT INTO changes (entity, record_id, change, at, owner) VALUES (?, ?, 'upsert', '2026-01-01T00:00:00.000Z', ?)",
    [entity, id, owner],
  );
}

const entries = () =>
  db.query("SELECT sequence, entity, record_id, owner, number, owner_number FROM changes ORDER BY sequence").values();

describe("a file from before schema 10", () => {
  test("keeps every number partners were shown, and each stream goes on from its own last one", () => {
    migrate(db, MIGRATIONS.slice(0, 9));
    // Global order: a property, portal a's lead, portal b's lead, the property again, a's second, a seeded lead.
    write("properties", "p1");
    write("leads", "l1", "portal-a");
    write("leads", "l2", "portal-b");
    write("properties", "p1");
    write("leads", "l3", "portal-a");
    write("leads", "l4");
    migrate(db);
    expect(entries()).toEqual([
      [1, "properties", "p1", null, 1, null],
      [2, "leads", "l1", "portal-a", 2, 2],
      [3, "leads", "l2", "portal-b", 3, 3],
      [4, "properties", "p1", null, 4, null],
      [5, "leads", "l3", "portal-a", 5, 5],
      [6, "leads", "l4", null, 6, null],
    ]);
    write("properties", "p2"); // the properties' stream: after 4, not after the log's 6
    write("leads", "l5", "portal-a"); // every lead's: after 6; portal a's: after 5
    write("leads", "l6", "portal-b"); // portal b's: after 3
    write("leads", "l7", "portal-c"); // a stream first written now starts at 1
    expect(entries().slice(6)).toEqual([
      [7, "properties", "p2", null, 5, null],
      [8, "leads", "l5", "portal-a", 7, 6],
      [9, "leads", "l6", "portal-b", 8, 4],
      [10, "leads", "l7", "portal-c", 9, 1],
    ]);
  });
});

describe("a new file", () => {
  test("numbers each stream from 1, and compaction never makes a number be given twice", () => {
    migrate(db);
    write("leads", "l1", "portal-a");
    write("leads", "l1", "portal-a");
    write("properties", "p1");
    expect(entries()).toEqual([
      [1, "leads", "l1", "portal-a", 1, 1],
      [2, "leads", "l1", "portal-a", 2, 2],
      [3, "properties", "p1", null, 1, null],
    ]);
    // The lead's first entry is superseded; the last of each stream never is, but the counter
    // does not depend on it: the next entries go on from 2.
    expect(compactChangesStep(db, 0).deleted).toBe(1);
    db.run("DELETE FROM changes WHERE sequence = 2"); // as if the last were gone too
    write("leads", "l2", "portal-a");
    expect(entries().at(-1)).toEqual([4, "leads", "l2", "portal-a", 3, 3]);
  });
});
