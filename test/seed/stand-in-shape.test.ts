// The bulk stand-in reads what it counts by from the schema: the day counters' dimensions and the
// counters' columns. A migration that adds one needs no list in the loader edited.
import type { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { StandInTallies, standInShape } from "../../src/db/bulk-load.ts";
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

  test("dates are counted by their day and third of a month, whatever their form, as the triggers' substr does", () => {
    const tallies = new StandInTallies(standInShape(db));
    const lead = { id: "l1", status: "NEW_LEAD", source: "WEBSITE", priority: "HIGH", createdBy: null };
    tallies.lead({ ...lead, createdAt: "2025-03-01T10:00:00.000Z", updatedAt: "2025-03-21T10:00:00.000Z" });
    tallies.lead({ ...lead, createdAt: "2025-03-01T23:00:00.000Z", updatedAt: "2025-3-5 odd" });
    const table = (name: string) => tallies.rows().tables.find((t) => t.table === name)!.rows;
    expect(table("lead_days")).toContainEqual(["created", "", "", "2025-03-01", 2]);
    expect(table("lead_days")).toContainEqual(["updated", "", "", "2025-3-5 o", 1]);
    expect(table("lead_date_pairs")).toContainEqual(["created", "2025-03-01", "2025-03-2", 1]);
    expect(table("lead_date_pairs")).toContainEqual(["created", "2025-03-01", "2025-3-5 ", 1]);
    expect(table("lead_date_pairs")).toContainEqual(["updated", "2025-3-5 o", "2025-03-0", 1]);
  });

  test("a record without a counted column is refused, not counted as empty", () => {
    const tallies = new StandInTallies(standInShape(db));
    const lead = { id: "l1", status: "NEW_LEAD", source: "WEBSITE", priority: "HIGH", createdAt: "a", updatedAt: "a" };
    expect(() => tallies.lead(lead)).toThrow(/createdBy/);
  });
});
