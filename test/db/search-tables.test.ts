// Schema 9's search tables: what the triggers keep equals what the one-pass rebuild (used by the
// seed, which sets triggers aside, and by the migration) writes.
import { Database } from "bun:sqlite";
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MIGRATIONS, migrate, REBUILD_SEARCH } from "../../src/db/migrate.ts";
import { seededDatabase } from "../helpers/app.ts";

const dir = mkdtempSync(join(tmpdir(), "pa-search-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Everything the search tables hold, in a comparable form. */
function contents(db: Database) {
  const words = ["apartamento", "piscina", "sao", "paulo", "cobertura", "mobiliado", "churrasqueira", "centro"];
  // The filter tokens of the word index (migration 9's search_terms), one of each kind.
  const hex = (text: string) => Buffer.from(text, "utf8").toString("hex");
  const terms = [
    `ci${hex("sao paulo")}`,
    `ci${hex("ilheus")}`,
    `nb${hex("centro")}`,
    `uf${hex("rj")}`,
    "opsale",
    "oprent",
    `ty${hex("Apartamento")}`,
    "bd0",
    "bd2",
    "bd5",
    "bt3",
    "st1",
    "pk2",
    "fu",
    "fi",
    "ex",
  ];
  return {
    facets: db
      .query(
        "SELECT facet, key, value, uf, city, operation, n FROM property_facet_counts WHERE n > 0 ORDER BY 1, 2, 3, 4, 5, 6",
      )
      .all(),
    amenities: db.query("SELECT key, property, value FROM property_amenities ORDER BY 1, 2").all(),
    sortKeys: db.query("SELECT property, price, area FROM property_sort_keys ORDER BY 1").all(),
    words: words.map((w) =>
      db
        .query(
          "SELECT group_concat(rowid) AS ids FROM (SELECT rowid FROM property_words WHERE property_words MATCH ? ORDER BY rowid)",
        )
        .get(`{title description property_type neighborhood city code amenities} : ${w}`),
    ),
    terms: terms.map((term) =>
      db
        .query(
          "SELECT group_concat(rowid) AS ids FROM (SELECT rowid FROM property_words WHERE property_words MATCH ? ORDER BY rowid)",
        )
        .get(`terms : ${term}`),
    ),
  };
}

/** Each published listing's price and area as the price and area orders read them, from its columns here. */
function sortKeysOf(db: Database) {
  const rows = db
    .query(
      "SELECT rowid, operation_type, sale_price, rental_price, built_area, total_area FROM properties WHERE is_published = 1 ORDER BY rowid",
    )
    .all() as {
    rowid: number;
    operation_type: string;
    sale_price: number | null;
    rental_price: number | null;
    built_area: number | null;
    total_area: number | null;
  }[];
  return rows.map((r) => ({
    property: r.rowid,
    price: r.operation_type === "SALE" ? r.sale_price : r.rental_price,
    area: r.built_area ?? r.total_area,
  }));
}

describe("triggers and the rebuild agree", () => {
  test("unpublishing and republishing every listing through the triggers gives the seed's tables back", () => {
    const db = new Database(seededDatabase(dir, 400, 10));
    try {
      const seeded = contents(db);
      expect(seeded.facets.length).toBeGreaterThan(50);
      expect(seeded.sortKeys).toEqual(sortKeysOf(db));
      // Every published listing has its filter tokens, those without room counts too.
      const deals = "terms : (opsale OR oprent OR opseasonal)";
      expect(db.query("SELECT count(*) AS n FROM property_words WHERE property_words MATCH ?").get(deals)).toEqual(
        db.query("SELECT count(*) AS n FROM properties WHERE is_published = 1").get(),
      );
      expect(
        seeded.terms.filter((t) => t !== null && (t as { ids: string | null }).ids !== null).length,
      ).toBeGreaterThan(10);
      db.run("CREATE TEMP TABLE was_published AS SELECT rowid AS id FROM properties WHERE is_published = 1");
      db.run("UPDATE properties SET is_published = 0");
      const empty = contents(db);
      expect(empty.facets).toEqual([]);
      expect(empty.amenities).toEqual([]);
      expect(empty.sortKeys).toEqual([]);
      expect(empty.terms).toEqual(seeded.terms.map(() => ({ ids: null })));
      db.run("UPDATE properties SET is_published = 1 WHERE rowid IN (SELECT id FROM was_published)");
      expect(contents(db)).toEqual(seeded);
      db.run(REBUILD_SEARCH);
      expect(contents(db)).toEqual(seeded);
    } finally {
      db.close();
    }
  });

  test("an edit moves a listing between counters and indexes; a delete takes it out", () => {
    const db = new Database(seededDatabase(dir, 200, 10));
    try {
      const id = (
        db
          .query("SELECT rowid AS id FROM properties WHERE is_published = 1 AND display_address = 'ALL' LIMIT 1")
          .get() as { id: number }
      ).id;
      db.run(
        `UPDATE properties SET city = 'Ilhéus', city_key = 'ilheus', amenities = '["Piscina","piscina","Heliponto"]', bedrooms = 9, suites = 1, is_furnished = 1 - is_furnished, built_area = 1234.5, sale_price = 123456, rental_price = 1234, latitude = -14.79 WHERE rowid = ${id}`,
      );
      // A change of a room count or a flag alone moves the listing's filter tokens too.
      db.run(
        `UPDATE properties SET bathrooms = 3, exclusive = 1 - exclusive, total_area = 77, built_area = NULL WHERE rowid = (SELECT min(rowid) FROM properties WHERE is_published = 1 AND rowid <> ${id})`,
      );
      // An area change alone moves the listing's ten of m².
      db.run(
        `UPDATE properties SET built_area = 4321 WHERE rowid = (SELECT min(rowid) + 1 FROM properties WHERE is_published = 1 AND rowid <> ${id})`,
      );
      // A price alone, or the deal alone, moves the listing's sort keys.
      db.run(
        `UPDATE properties SET sale_price = 987654, rental_price = 4321 WHERE rowid = (SELECT rowid FROM properties WHERE is_published = 1 AND rowid <> ${id} ORDER BY rowid LIMIT 1 OFFSET 2)`,
      );
      db.run(
        `UPDATE properties SET operation_type = iif(operation_type = 'SALE', 'RENT', 'SALE') WHERE rowid = (SELECT rowid FROM properties WHERE is_published = 1 AND rowid <> ${id} ORDER BY rowid LIMIT 1 OFFSET 3)`,
      );
      db.run(`DELETE FROM properties WHERE rowid = (SELECT max(rowid) FROM properties WHERE is_published = 1)`);
      // A listing inserted published: every search table takes it in.
      const columns = (db.query("PRAGMA table_xinfo(properties)").all() as { name: string; hidden: number }[])
        .filter((c) => c.hidden === 0 && c.name !== "id" && c.name !== "code")
        .map((c) => c.name);
      db.run(
        `INSERT INTO properties (id, code, ${columns.join(", ")}) SELECT 'inserted-1', 'INSERTED-1', ${columns.join(", ")} FROM properties WHERE rowid = (SELECT rowid FROM properties WHERE is_published = 1 AND rowid <> ${id} ORDER BY rowid LIMIT 1 OFFSET 4)`,
      );
      const triggered = contents(db);
      expect(triggered.sortKeys).toEqual(sortKeysOf(db));
      expect(triggered.sortKeys).toContainEqual({ property: id, price: expect.anything(), area: 1234.5 });
      expect(triggered.terms[1]).toEqual({ ids: String(id) }); // its new city's token, and only its
      db.run(REBUILD_SEARCH);
      expect(contents(db)).toEqual(triggered);
      // Counted under the listing's state, new city and deal.
      const where = { city: "ilheus", operation: expect.any(String), uf: expect.any(String), n: 1 };
      expect(triggered.facets).toContainEqual({ facet: "amenities", key: "heliponto", value: "Heliponto", ...where });
      expect(triggered.facets).toContainEqual({ facet: "bedrooms", key: "9", value: "", ...where });
      expect(triggered.facets).toContainEqual({ facet: "area", key: "0000000123", value: "", ...where });
    } finally {
      db.close();
    }
  });

  test("a backup (VACUUM INTO) keeps the rowids the search tables point at", () => {
    const source = new Database(seededDatabase(dir, 300, 10));
    const copyPath = join(dir, "backup.sqlite");
    try {
      source.run("DELETE FROM properties WHERE rowid % 7 = 0"); // gaps, which a renumbering would close
      source.run("VACUUM INTO ?", [copyPath]);
      const copy = new Database(copyPath, { readonly: true });
      try {
        const ids = (db: Database) => ({
          words: db
            .query(
              "SELECT id FROM properties WHERE rowid IN (SELECT rowid FROM property_words WHERE property_words MATCH 'piscina') ORDER BY id",
            )
            .all(),
          terms: db
            .query(
              "SELECT id FROM properties WHERE rowid IN (SELECT rowid FROM property_words WHERE property_words MATCH 'terms : opsale') ORDER BY id",
            )
            .all(),
          amenities: db
            .query(
              "SELECT p.id, a.key FROM property_amenities a JOIN properties p ON p.rowid = a.property ORDER BY 1, 2",
            )
            .all(),
        });
        expect(ids(copy)).toEqual(ids(source));
      } finally {
        copy.close();
      }
    } finally {
      source.close();
    }
  });
});

/** Accents off, lower case, spaces trimmed: read with Unicode decomposition, not with src/db/fold.ts. */
const plainly = (place: string) =>
  place
    .normalize("NFD")
    .replace(/\p{Diacritic}/gu, "")
    .toLowerCase()
    .trim();

describe("the place keys are stored with the place, and kept in step", () => {
  test("the seed writes every listing's keys folded", () => {
    const db = new Database(seededDatabase(dir, 300, 10), { readonly: true });
    try {
      const rows = db
        .query("SELECT city, neighborhood, uf, city_key, neighborhood_key, uf_key FROM properties")
        .all() as Record<string, string>[];
      expect(rows.filter((r) => /[^ -~]/.test(r.city!)).length).toBeGreaterThan(10);
      for (const r of rows)
        expect([r.city_key, r.neighborhood_key, r.uf_key]).toEqual(
          [r.city, r.neighborhood, r.uf].map((p) => plainly(p!)),
        );
    } finally {
      db.close();
    }
  });

  test("a write that leaves a key out of step with its place is refused", () => {
    const db = new Database(seededDatabase(dir, 50, 10));
    try {
      const refused = /city_key, neighborhood_key and uf_key must be written folded with the place/;
      expect(() => db.run("UPDATE properties SET city = 'Ilhéus' WHERE rowid = 1")).toThrow(refused);
      expect(() => db.run("UPDATE properties SET uf_key = 'xx' WHERE rowid = 1")).toThrow(refused);
      expect(() =>
        db.run(
          "INSERT INTO properties (id, title, description, operation_type, status, highlight, exclusive, is_published, created_at, updated_at, city) " +
            "VALUES ('x', 't', 'd', 'SALE', 'AVAILABLE', 'STANDARD', 0, 1, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z', 'Niterói')",
        ),
      ).toThrow(refused);
      db.run("UPDATE properties SET city = ' Ilhéus', city_key = 'ilheus' WHERE rowid = 1");
      expect(db.query("SELECT city_key FROM properties WHERE rowid = 1").get()).toEqual({ city_key: "ilheus" });
    } finally {
      db.close();
    }
  });

  test("an older file's listings get their keys when it is upgraded to schema 9", () => {
    const db = new Database(join(dir, "schema-8.sqlite"), { create: true });
    try {
      migrate(db, MIGRATIONS.slice(0, 8));
      db.run(
        "INSERT INTO properties (id, title, description, operation_type, status, highlight, exclusive, is_published, created_at, updated_at, city, neighborhood, uf) " +
          "VALUES ('p', 't', 'd', 'SALE', 'AVAILABLE', 'STANDARD', 0, 1, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z', 'São Paulo', 'Jardim Europa', 'SP')",
      );
      migrate(db);
      expect(db.query("SELECT city_key, neighborhood_key, uf_key FROM properties").get()).toEqual({
        city_key: "sao paulo",
        neighborhood_key: "jardim europa",
        uf_key: "sp",
      });
      expect(db.query("SELECT key, n FROM property_facet_counts WHERE facet = 'city'").all()).toEqual([
        { key: "sao paulo", n: 1 },
      ]);
    } finally {
      db.close();
    }
  });
});
