// Schema 5 (005_listing_extras.sql): displayAddress, amenities and the import digest. An older
// file is upgraded with what a feed without them meant; a change of either readable column is an
// upsert in the change feed, a new digest alone is not; the counters of schemas 2 and 3 stay
// exact through imports that create, change, re-publish and unpublish.
import { Database } from "bun:sqlite";
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { importFeed } from "../../src/agency/import.ts";
import { MIGRATIONS, migrate, SCHEMA_VERSION, schemaVersion } from "../../src/db/migrate.ts";
import rebuildDateOrder from "../../src/db/migrations/rebuild-date-order.sql" with { type: "text" };
import rebuildDayCounts from "../../src/db/migrations/rebuild-day-counts.sql" with { type: "text" };
import { closeDatabase, openDatabase, openExistingDatabase } from "../../src/db/open.ts";

let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), "pa-extras-"))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const lastSequence = (db: Database) =>
  (db.query("SELECT coalesce(max(sequence), 0) AS n FROM changes").get() as { n: number }).n;

describe("schema 5", () => {
  test("an older file is upgraded: every property shown in full, no amenities, no digest", () => {
    const path = join(dir, "old.sqlite");
    const old = new Database(path);
    migrate(old, MIGRATIONS.slice(0, 4));
    old.run(
      `INSERT INTO properties (id, code, title, description, operation_type, status, highlight, exclusive, is_published, created_at, updated_at)
       VALUES ('p1', 'OLD-1', 'Casa', '', 'SALE', 'AVAILABLE', 'STANDARD', 0, 1, '2025-01-01T00:00:00.000Z', '2025-01-01T00:00:00.000Z')`,
    );
    old.close();
    const db = openExistingDatabase(path);
    try {
      expect(schemaVersion(db)).toBe(SCHEMA_VERSION);
      expect(db.query("SELECT display_address, amenities, import_hash FROM properties").get()).toEqual({
        display_address: "ALL",
        amenities: "[]",
        import_hash: null,
      });
    } finally {
      closeDatabase(db);
    }
  });

  test("display_address and amenities are checked and are readable content; the digest alone is not", () => {
    const db = openDatabase(join(dir, "feed.sqlite"));
    try {
      db.run(
        `INSERT INTO properties (id, code, title, description, operation_type, status, highlight, exclusive, is_published, created_at, updated_at)
         VALUES ('p1', 'A', 'Casa', '', 'SALE', 'AVAILABLE', 'STANDARD', 0, 1, '2025-01-01T00:00:00.000Z', '2025-01-01T00:00:00.000Z')`,
      );
      expect(() => db.run("UPDATE properties SET display_address = 'HIDDEN'")).toThrow();
      expect(() => db.run("UPDATE properties SET amenities = 'not json'")).toThrow();
      let sequence = lastSequence(db);
      db.run("UPDATE properties SET display_address = 'STREET'");
      expect(lastSequence(db)).toBe(++sequence);
      db.run(`UPDATE properties SET amenities = '["Piscina"]'`);
      expect(lastSequence(db)).toBe(++sequence);
      db.run("UPDATE properties SET import_hash = 'abc'");
      expect(lastSequence(db)).toBe(sequence);
    } finally {
      closeDatabase(db);
    }
  });

  test("the per-day counters and date pairs of schemas 2 and 3 equal a rebuild after imports of every kind", async () => {
    const path = join(dir, "imported.sqlite");
    const feed = (listings: string) => {
      const file = join(dir, `feed-${Math.random().toString(36).slice(2)}.xml`);
      writeFileSync(file, `<ListingDataFeed><Listings>${listings}</Listings></ListingDataFeed>`);
      return file;
    };
    const listing = (code: string, extra = "") =>
      `<Listing><ListingID>${code}</ListingID><Title>${code}</Title><TransactionType>Venda</TransactionType>${extra}</Listing>`;
    const at = (iso: string) => ({ now: () => new Date(iso) });
    await importFeed(
      path,
      feed(listing("A") + listing("B", '<Location displayAddress="Street"/>') + listing("C")),
      at("2026-01-01T10:00:00.000Z"),
    );
    await importFeed(
      path,
      feed(listing("A", "<Details><Features><Feature>Piscina</Feature></Features></Details>") + listing("B")),
      at("2026-01-02T10:00:00.000Z"),
    );
    await importFeed(
      path,
      feed(listing("A") + listing("B") + listing("C", "<Details><PropertyType>Casa</PropertyType></Details>")),
      at("2026-01-03T10:00:00.000Z"),
    );
    const db = openExistingDatabase(path);
    try {
      const derived = () => ({
        days: db.query("SELECT kind, dim, value, day, n FROM property_days WHERE n <> 0 ORDER BY 1, 2, 3, 4").all(),
        pairs: db.query("SELECT kind, day, other, n FROM property_date_pairs WHERE n <> 0 ORDER BY 1, 2, 3").all(),
        counts: db.query("SELECT * FROM property_counts WHERE n <> 0 ORDER BY 1, 2, 3, 4").all(),
      });
      const kept = derived();
      expect(kept.days.length).toBeGreaterThan(0);
      db.run("BEGIN");
      db.run(`${rebuildDayCounts}\n${rebuildDateOrder}`);
      expect(derived().days).toEqual(kept.days);
      expect(derived().pairs).toEqual(kept.pairs);
      db.run("ROLLBACK");
      const counted = db
        .query(
          "SELECT status, operation_type, coalesce(property_type, '') AS property_type, highlight, count(*) AS n FROM properties WHERE is_published = 1 GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4",
        )
        .all();
      expect(kept.counts).toEqual(counted);
    } finally {
      closeDatabase(db);
    }
  });
});
