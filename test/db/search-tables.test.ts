// Schema 9's word index: what the triggers keep equals what the one-pass rebuild (used by the
// seed, which sets triggers aside, and by the migration) writes, and both equal the listings'
// words read here from their rows.
import { Database } from "bun:sqlite";
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MIGRATIONS, migrate, REBUILD_SEARCH } from "../../src/db/migrate.ts";
import { seededDatabase } from "../helpers/app.ts";

const dir = mkdtempSync(join(tmpdir(), "pa-search-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const WORDS = ["apartamento", "piscina", "sao", "paulo", "cobertura", "mobiliado", "churrasqueira", "centro", "ilheus"];

/** The rowids the word index gives for each of WORDS. */
function indexed(db: Database): Record<string, number[]> {
  const statement = db.query("SELECT rowid FROM property_words WHERE property_words MATCH ? ORDER BY rowid");
  return Object.fromEntries(WORDS.map((w) => [w, (statement.values(w) as [number][]).map(([rowid]) => rowid)]));
}

/** Accents off and lower case, the way Unicode decomposes letters (not the product's tokenizer). */
const norm = (s: string) => s.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase();

/** The rowids of the published listings whose searchable text holds each of WORDS, read from their rows. */
function fromRows(db: Database): Record<string, number[]> {
  const rows = db
    .query(
      "SELECT rowid, title, description, property_type, neighborhood, city, code, amenities FROM properties WHERE is_published = 1 ORDER BY rowid",
    )
    .values() as (string | number | null)[][];
  const tokens = rows.map(
    ([rowid, ...text]) =>
      [
        rowid as number,
        new Set(
          text.flatMap((t) =>
            t === null
              ? []
              : norm(String(t))
                  .split(/[^\p{L}\p{N}]+/u)
                  .filter(Boolean),
          ),
        ),
      ] as const,
  );
  return Object.fromEntries(WORDS.map((w) => [w, tokens.filter(([, set]) => set.has(w)).map(([rowid]) => rowid)]));
}

describe("triggers and the rebuild agree, and both agree with the rows", () => {
  test("unpublishing and republishing every listing through the triggers gives the seed's index back", () => {
    const db = new Database(seededDatabase(dir, 400, 10));
    try {
      const seeded = indexed(db);
      expect(seeded).toEqual(fromRows(db));
      expect(Object.values(seeded).filter((ids) => ids.length > 0).length).toBeGreaterThan(5);
      db.run("CREATE TEMP TABLE was_published AS SELECT rowid AS id FROM properties WHERE is_published = 1");
      db.run("UPDATE properties SET is_published = 0");
      expect(Object.values(indexed(db)).flat()).toEqual([]);
      db.run("UPDATE properties SET is_published = 1 WHERE rowid IN (SELECT id FROM was_published)");
      expect(indexed(db)).toEqual(seeded);
      db.run(REBUILD_SEARCH);
      expect(indexed(db)).toEqual(seeded);
      expect(db.query("PRAGMA integrity_check").values()).toEqual([["ok"]]);
    } finally {
      db.close();
    }
  });

  test("an edit moves a listing's words; a delete takes it out; an insert puts it in", () => {
    const db = new Database(seededDatabase(dir, 200, 10));
    try {
      const id = (db.query("SELECT rowid AS id FROM properties WHERE is_published = 1 LIMIT 1").get() as { id: number })
        .id;
      db.run(
        `UPDATE properties SET city = 'Ilhéus', amenities = '["Piscina","piscina","Heliponto"]', title = 'Cobertura mobiliada' WHERE rowid = ${id}`,
      );
      db.run(`DELETE FROM properties WHERE rowid = (SELECT max(rowid) FROM properties WHERE is_published = 1)`);
      const columns = (db.query("PRAGMA table_xinfo(properties)").all() as { name: string; hidden: number }[])
        .filter((c) => c.hidden === 0 && c.name !== "id" && c.name !== "code")
        .map((c) => c.name);
      db.run(
        `INSERT INTO properties (id, code, ${columns.join(", ")}) SELECT 'inserted-1', 'INSERTED-1', ${columns.join(", ")} FROM properties WHERE rowid = ${id}`,
      );
      const triggered = indexed(db);
      expect(triggered).toEqual(fromRows(db));
      expect(triggered.ilheus!.length).toBe(2); // the edited listing and its copy
      db.run(REBUILD_SEARCH);
      expect(indexed(db)).toEqual(triggered);
    } finally {
      db.close();
    }
  });

  test("a backup (VACUUM INTO) keeps the rowids the word index points at", () => {
    const source = new Database(seededDatabase(dir, 300, 10));
    const copyPath = join(dir, "backup.sqlite");
    try {
      source.run("DELETE FROM properties WHERE rowid % 7 = 0"); // gaps, which a renumbering would close
      source.run("VACUUM INTO ?", [copyPath]);
      const copy = new Database(copyPath, { readonly: true });
      try {
        const ids = (db: Database) =>
          db
            .query(
              "SELECT id FROM properties WHERE rowid IN (SELECT rowid FROM property_words WHERE property_words MATCH 'piscina') ORDER BY id",
            )
            .all();
        expect(ids(source).length).toBeGreaterThan(0);
        expect(ids(copy)).toEqual(ids(source));
      } finally {
        copy.close();
      }
    } finally {
      source.close();
    }
  });

  test("an older file's published listings are in the word index once it is upgraded to schema 9", () => {
    const db = new Database(join(dir, "schema-8.sqlite"), { create: true });
    try {
      migrate(db, MIGRATIONS.slice(0, 8));
      db.run(
        "INSERT INTO properties (id, title, description, operation_type, status, highlight, exclusive, is_published, created_at, updated_at, city, neighborhood, uf) " +
          "VALUES ('p', 'Cobertura', 'd', 'SALE', 'AVAILABLE', 'STANDARD', 0, 1, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z', 'Ilhéus', 'Pontal', 'BA')",
      );
      migrate(db);
      expect(indexed(db).ilheus).toEqual([1]);
      expect(indexed(db).cobertura).toEqual([1]);
    } finally {
      db.close();
    }
  });
});
