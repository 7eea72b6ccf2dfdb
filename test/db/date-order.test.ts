// Schema 3 counts the records last updated before they were created, and keeps the date pairs
// (visible rows per day of one date and third of a month of the other): the lists filtered on
// one date and ordered by the other read both (src/query/date-order.ts,
// date-pairs.ts), so every write must keep them exact, and an upgrade must fill them from what
// the file already holds.
import { Database } from "bun:sqlite";
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MIGRATIONS, migrate } from "../../src/db/migrate.ts";
import { closeDatabase, openDatabase } from "../../src/db/open.ts";

let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), "pa-date-order-"))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

type Entity = "properties" | "leads";

function insert(db: Database, entity: Entity, id: string, createdAt: string, updatedAt: string, published = 1): void {
  if (entity === "properties") {
    db.run(
      `INSERT INTO properties (id, title, description, operation_type, status, highlight, exclusive, is_published, created_at, updated_at)
       VALUES (?, 'Casa', 'Casa com quintal', 'SALE', 'AVAILABLE', 'NONE', 0, ?, ?, ?)`,
      [id, published, createdAt, updatedAt],
    );
  } else {
    db.run(
      `INSERT INTO leads (id, name, email, phone, message, source, status, priority, created_at, updated_at)
       VALUES (?, 'Ana', 'ana@example.com', '+5511999990000', 'Olá', 'WEBSITE', 'NEW_LEAD', 'MEDIUM', ?, ?)`,
      [id, createdAt, updatedAt],
    );
  }
}

/** The kept count, after checking it and the date pairs against the table. */
function kept(db: Database, entity: Entity): number {
  const n = (db.query("SELECT n FROM date_order_exceptions WHERE entity = ?").values(entity)[0] as [number])[0];
  const actual = (db.query(`SELECT count(*) FROM ${entity} WHERE created_at > updated_at`).values()[0] as [number])[0];
  expect(n).toBe(actual);
  expect(pairs(db, entity)).toEqual(pairsFromTable(db, entity));
  return n;
}

const PAIRS = { properties: "property_date_pairs", leads: "lead_date_pairs" } as const;

function pairs(db: Database, entity: Entity): unknown[] {
  return db.query(`SELECT kind, day, other, n FROM ${PAIRS[entity]} WHERE n <> 0 ORDER BY 1, 2, 3`).values();
}

function pairsFromTable(db: Database, entity: Entity): unknown[] {
  const visible = entity === "properties" ? "WHERE is_published = 1" : "";
  return db
    .query(
      `SELECT * FROM (
         SELECT 'created', substr(created_at, 1, 10), substr(updated_at, 1, 9), count(*) FROM ${entity} ${visible} GROUP BY 2, 3
         UNION ALL
         SELECT 'updated', substr(updated_at, 1, 10), substr(created_at, 1, 9), count(*) FROM ${entity} ${visible} GROUP BY 2, 3)
       ORDER BY 1, 2, 3`,
    )
    .values();
}

const EARLY = "2025-03-01T10:00:00.000Z";
const LATE = "2025-03-02T10:00:00.000Z";

describe("the count of records updated before they were created, and the date pairs", () => {
  for (const entity of ["properties", "leads"] as const) {
    test(`${entity}: kept by inserts, updates (either date, publication) and deletes`, () => {
      const db = openDatabase(join(dir, "counted.sqlite"));
      try {
        expect(kept(db, entity)).toBe(0);
        insert(db, entity, "in-order", EARLY, LATE);
        insert(db, entity, "same-instant", EARLY, EARLY);
        expect(kept(db, entity)).toBe(0);
        insert(db, entity, "inverted", LATE, EARLY);
        insert(db, entity, "inverted-hidden", LATE, EARLY, 0); // unpublished rows count too
        expect(kept(db, entity)).toBe(2);
        if (entity === "properties") {
          db.run("UPDATE properties SET is_published = 0 WHERE id = 'same-instant'");
          db.run("UPDATE properties SET is_published = 1 WHERE id = 'inverted-hidden'");
          expect(kept(db, entity)).toBe(2);
          db.run(
            "UPDATE properties SET is_published = 1 - is_published WHERE id IN ('same-instant', 'inverted-hidden')",
          );
        }
        db.run(`UPDATE ${entity} SET updated_at = ? WHERE id = 'inverted'`, ["2025-03-03T00:00:00.000Z"]);
        expect(kept(db, entity)).toBe(1);
        db.run(`UPDATE ${entity} SET created_at = ? WHERE id = 'in-order'`, ["2025-03-05T00:00:00.000Z"]);
        expect(kept(db, entity)).toBe(2);
        db.run(`UPDATE ${entity} SET created_at = ?, updated_at = ? WHERE id = 'in-order'`, [EARLY, LATE]);
        expect(kept(db, entity)).toBe(1);
        db.run(`DELETE FROM ${entity} WHERE id = 'inverted-hidden'`);
        db.run(`DELETE FROM ${entity} WHERE id = 'same-instant'`);
        expect(kept(db, entity)).toBe(0);
      } finally {
        closeDatabase(db);
      }
    });
  }

  test("an upgrade from schema 2 counts the records already stored", () => {
    const db = new Database(join(dir, "schema2.sqlite"));
    try {
      migrate(db, MIGRATIONS.slice(0, 2));
      insert(db, "properties", "p-inverted", LATE, EARLY);
      insert(db, "properties", "p-in-order", EARLY, LATE);
      insert(db, "leads", "l-inverted-1", LATE, EARLY);
      insert(db, "leads", "l-inverted-2", LATE, EARLY);
      migrate(db);
      expect(kept(db, "properties")).toBe(1);
      expect(kept(db, "leads")).toBe(2);
      expect(pairs(db, "leads")).toEqual([
        ["created", "2025-03-02", "2025-03-0", 2],
        ["updated", "2025-03-01", "2025-03-0", 2],
      ]);
    } finally {
      db.close();
    }
  });
});
