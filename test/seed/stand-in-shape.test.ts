// The bulk stand-in reads what it stands in for from the schema: the triggers it covers, the day
// counters' dimensions and the counters' columns. A migration that adds one needs no list edited.
import type { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { StandInTallies, standInShape, stoodInFor } from "../../src/db/bulk-load.ts";
import { closeDatabase, openDatabase } from "../../src/db/open.ts";
import { type TempFolder, tempFolder } from "./helpers.ts";

let folder: TempFolder;
let db: Database;

beforeAll(() => {
  folder = tempFolder();
  db = openDatabase(folder.path("shape.sqlite"));
});

afterAll(() => {
  closeDatabase(db);
  folder.remove();
});

/** The triggers the stand-in covered when they were listed by hand (schema 9). */
const LISTED_BY_HAND = ["count", "feed", "days", "date_order", "date_pairs"].flatMap((what) =>
  ["properties", "leads", "photos"].flatMap((table) =>
    ["insert", "delete", "update"].map((event) => `${table}_${what}_${event}`),
  ),
);

describe("the triggers stood in for", () => {
  test("are the counters', the change feed's and the derived tables' triggers on the loaded tables", () => {
    const stood = stoodInFor(db);
    const expected = new Set(
      [...LISTED_BY_HAND, "properties_feed_update_visible", "properties_feed_unpublish"].filter((name) =>
        db.query("SELECT 1 FROM sqlite_master WHERE type = 'trigger' AND name = ?").get(name),
      ),
    );
    expect(expected.size).toBe(34);
    expect([...stood].sort()).toEqual([...expected].sort());
  });

  test("a new trigger that writes the change log from a loaded table is covered; one on another table is not", () => {
    db.run(`CREATE TRIGGER leads_feed_extra AFTER UPDATE OF phone ON leads BEGIN
      INSERT INTO changes (entity, record_id, change, at) VALUES ('leads', new.id, 'upsert', 'x'); END`);
    db.run(`CREATE TRIGGER subscriptions_feed AFTER INSERT ON webhook_subscriptions BEGIN
      INSERT INTO changes (entity, record_id, change, at) VALUES ('leads', new.id, 'upsert', 'x'); END`);
    db.run("CREATE TABLE lead_audit (id TEXT)");
    db.run(`CREATE TRIGGER leads_audit AFTER INSERT ON leads BEGIN
      INSERT INTO changes (entity, record_id, change, at) VALUES ('leads', new.id, 'upsert', 'x');
      INSERT INTO lead_audit VALUES (new.id); END`);
    try {
      const stood = stoodInFor(db);
      expect(stood.has("leads_feed_extra")).toBe(true);
      expect(stood.has("subscriptions_feed")).toBe(false);
      expect(stood.has("leads_audit")).toBe(false); // writes a table the stand-in knows nothing of
    } finally {
      for (const name of ["leads_feed_extra", "subscriptions_feed", "leads_audit"]) db.run(`DROP TRIGGER ${name}`);
      db.run("DROP TABLE lead_audit");
    }
  });
});

describe("what the stand-in counts", () => {
  test("the day counters' dimensions come from day_dimensions, the counters' columns from their tables", () => {
    const shape = standInShape(db);
    expect(shape.days.leads).toEqual([
      ["created", ""],
      ["created", "status"],
      ["updated", ""],
      ["updated", "status"],
    ]);
    expect(shape.days.properties.filter(([kind]) => kind === "created").map(([, dim]) => dim)).toEqual(
      (
        db
          .query("SELECT dim FROM day_dimensions WHERE entity = 'properties' AND kind = 'created' ORDER BY dim")
          .values() as [string][]
      ).map(([dim]) => dim),
    );
    expect(shape.counts.leads).toEqual(["status", "source", "priority", "created_by"]);
  });

  test("a dimension removed from day_dimensions is no longer counted", () => {
    const shape = standInShape(db);
    const fewer = { ...shape, days: { ...shape.days, leads: shape.days.leads.filter(([, dim]) => dim === "") } };
    const lead = {
      id: "l1",
      status: "NEW_LEAD",
      source: "WEBSITE",
      priority: "HIGH",
      createdBy: null,
      createdAt: "2025-03-01T10:00:00.000Z",
      updatedAt: "2025-03-02T10:00:00.000Z",
    };
    const days = (s: typeof shape) => {
      const tallies = new StandInTallies(s);
      tallies.lead(lead);
      return tallies.rows().tables.find((t) => t.table === "lead_days")!.rows;
    };
    expect(days(shape)).toContainEqual(["created", "status", "NEW_LEAD", "2025-03-01", 1]);
    expect(days(fewer)).toEqual([
      ["created", "", "", "2025-03-01", 1],
      ["updated", "", "", "2025-03-02", 1],
    ]);
  });

  test("a record without a counted column is refused, not counted as empty", () => {
    const tallies = new StandInTallies(standInShape(db));
    const lead = { id: "l1", status: "NEW_LEAD", source: "WEBSITE", priority: "HIGH", createdAt: "a", updatedAt: "a" };
    expect(() => tallies.lead(lead)).toThrow(/createdBy/);
  });
});
