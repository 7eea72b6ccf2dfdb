// The seed loads with the triggers set aside; what it writes in their place must equal what the real triggers write.
import type { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { setAsideForBulkLoad, UnknownTriggerError } from "../../src/db/bulk-load.ts";
import { closeDatabase, openDatabase } from "../../src/db/open.ts";
import { dumpTable, openReadonly, seed, type TempFolder, tempFolder } from "./helpers.ts";

let folder: TempFolder;
let seeded: Database;
let replayed: Database;

/**
 * Replays the seeded rows into a fresh database with its triggers live, the way the brief
 * prescribes for a trigger-driven load: each property unpublished, then its photos, then
 * published if it is; then the leads.
 */
function replay(seedPath: string, target: Database): void {
  target.run(`ATTACH DATABASE '${seedPath}' AS s`);
  const columns = (target.query("PRAGMA s.table_info(properties)").all() as { name: string }[]).map((c) => c.name);
  const unpublished = columns.map((c) => (c === "is_published" ? "0" : c)).join(", ");
  const insertProperty = target.prepare(
    `INSERT INTO main.properties (${columns.join(", ")}) SELECT ${unpublished} FROM s.properties WHERE rowid = ?`,
  );
  const insertPhotos = target.prepare(
    "INSERT INTO main.photos SELECT * FROM s.photos WHERE property_id = ? ORDER BY position",
  );
  const publish = target.prepare("UPDATE main.properties SET is_published = 1 WHERE id = ?");
  const properties = target.query("SELECT rowid, id, is_published FROM s.properties ORDER BY rowid").all() as {
    rowid: number;
    id: string;
    is_published: number;
  }[];
  target.transaction(() => {
    for (const p of properties) {
      insertProperty.run(p.rowid);
      insertPhotos.run(p.id);
      if (p.is_published === 1) publish.run(p.id);
    }
    target.run("INSERT INTO main.leads SELECT * FROM s.leads ORDER BY rowid");
  })();
}

beforeAll(() => {
  folder = tempFolder();
  const { path } = seed(folder, { properties: 400, leads: 700 });
  seeded = openReadonly(path);
  replayed = openDatabase(folder.path("replayed.sqlite"));
  replay(path, replayed);
}, 60_000);

afterAll(() => {
  seeded.close();
  closeDatabase(replayed);
  folder.remove();
});

const feed = (db: Database, entity: string) =>
  db
    .query("SELECT record_id, change, number, owner, owner_number FROM changes WHERE entity = ? ORDER BY sequence")
    .values(entity);

describe("the trigger stand-in writes what the triggers write", () => {
  test("the same property feed, in the same order, with the same numbers", () => {
    expect(feed(seeded, "properties")).toEqual(feed(replayed, "properties"));
  });

  test("the same lead feed, in the same order, with the same numbers", () => {
    expect(feed(seeded, "leads")).toEqual(feed(replayed, "leads"));
  });

  test("each entity's stream numbered 1..n, and the same last numbers kept for the triggers to go on from", () => {
    for (const entity of ["properties", "leads"]) {
      const numbers = feed(seeded, entity).map((row) => row[2]);
      expect(numbers).toEqual(numbers.map((_, i) => i + 1));
    }
    const streams = (db: Database) =>
      db.query("SELECT entity, owner, last FROM change_streams ORDER BY entity").values();
    expect(streams(seeded)).toEqual(streams(replayed));
    expect(streams(seeded)).toEqual([
      ["leads", "", feed(seeded, "leads").length],
      ["properties", "", feed(seeded, "properties").length],
    ]);
  });

  test("the same counters", () => {
    expect(dumpTable(seeded, "property_counts")).toBe(dumpTable(replayed, "property_counts"));
    expect(dumpTable(seeded, "lead_counts")).toBe(dumpTable(replayed, "lead_counts"));
    // The seed refills the per-day counters in one pass; the replay went through their triggers.
    expect(dumpTable(seeded, "property_days")).toBe(dumpTable(replayed, "property_days"));
    expect(dumpTable(seeded, "lead_days")).toBe(dumpTable(replayed, "lead_days"));
    expect(dumpTable(seeded, "date_order_exceptions")).toBe(dumpTable(replayed, "date_order_exceptions"));
    expect(dumpTable(seeded, "property_date_pairs")).toBe(dumpTable(replayed, "property_date_pairs"));
    expect(dumpTable(seeded, "lead_date_pairs")).toBe(dumpTable(replayed, "lead_date_pairs"));
  });

  test("sequences are 1..n with no gaps, and the AUTOINCREMENT counter continues after them", () => {
    const { n, hi } = seeded.query("SELECT count(*) AS n, max(sequence) AS hi FROM changes").get() as {
      n: number;
      hi: number;
    };
    expect(hi).toBe(n);
    expect(seeded.query("SELECT seq FROM sqlite_sequence WHERE name = 'changes'").get()).toEqual({ seq: n });
  });
});

describe("a trigger the seed does not know", () => {
  test("stops the seed instead of leaving its rows unwritten", () => {
    const db = openDatabase(folder.path("extra-trigger.sqlite"));
    try {
      db.run("CREATE TABLE lead_audit (id TEXT)");
      db.run("CREATE TRIGGER audit_leads AFTER INSERT ON leads BEGIN INSERT INTO lead_audit VALUES (new.id); END");
      const triggers = () => db.query("SELECT count(*) AS n FROM sqlite_master WHERE type = 'trigger'").get();
      const before = triggers();
      expect(() => setAsideForBulkLoad(db, { unknownTriggers: "refuse", uniqueIndexes: "aside" })).toThrow(
        UnknownTriggerError,
      );
      expect(triggers()).toEqual(before);
    } finally {
      closeDatabase(db);
    }
  });
});
