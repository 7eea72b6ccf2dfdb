// docs/internals/derived-tables.md is true of the migrations: a row per table a trigger writes,
// with the triggers in force on a fresh database and the migration each was last defined in,
// and every file it names exists. docs/internals/schema.sql, run on an empty file, makes the
// schema the migrations make.
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, SCHEMA_PAGE } from "../../scripts/reference-docs.ts";
import { migrate } from "../../src/db/migrate.ts";
import { REFILLS, schemaObjects } from "../../src/db/schema-objects.ts";

const PAGE = "docs/internals/derived-tables.md";
const MIGRATIONS = join(ROOT, "src/db/migrations");

interface Row {
  table: string;
  cells: string[];
  /** Every `name` in backticks of the row, by cell. */
  names: string[][];
}

function pageRows(text: string): Row[] {
  const lines = text.split("\n").filter((line) => line.startsWith("| `"));
  return lines.map((line) => {
    const cells = line.split(" | ").map((cell) => cell.replace(/^\| ?| ?\|$/g, ""));
    const names = cells.map((cell) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!));
    return { table: names[0]![0]!, cells, names };
  });
}

/** Triggers of a fresh database, by the table their body writes. */
function triggersByTable(): Map<string, string[]> {
  const db = new Database(":memory:");
  migrate(db);
  const by = new Map<string, string[]>();
  for (const o of schemaObjects(db))
    if (o.type === "trigger") for (const table of o.writes) by.set(table, [...(by.get(table) ?? []), o.name]);
  db.close();
  return by;
}

/** The migration file each trigger was last created in. */
function lastDefinitions(): Map<string, string> {
  const last = new Map<string, string>();
  for (const file of readdirSync(MIGRATIONS)
    .filter((f) => /^\d+_.*\.sql$/.test(f))
    .sort())
    for (const match of readFileSync(join(MIGRATIONS, file), "utf8").matchAll(/CREATE TRIGGER (\w+)/g))
      last.set(match[1]!, file);
  return last;
}

describe("the derived-tables page", () => {
  const rows = pageRows(readFileSync(join(ROOT, PAGE), "utf8"));
  const byTable = triggersByTable();
  const last = lastDefinitions();

  test("has a row for every table a trigger writes, and no other", () => {
    expect(rows.map((r) => r.table).sort()).toEqual([...byTable.keys()].sort());
  });

  for (const row of rows) {
    test(`${row.table}: the triggers in force, and where they were last defined`, () => {
      const listed = row.names[3]!.filter((name) => !name.endsWith(".sql"));
      expect(listed.sort()).toEqual([...(byTable.get(row.table) ?? [])].sort());
      // Each trigger is followed, in its cell, by the migration that last defined it.
      const cell = row.cells[3]!;
      for (const trigger of listed) {
        const after = cell.slice(cell.indexOf(`\`${trigger}\``));
        const migration = after.match(/\(`(\d+_\w+\.sql)`\)/)?.[1];
        expect({ trigger, migration }).toEqual({ trigger, migration: last.get(trigger) });
      }
    });

    test(`${row.table}: its refill rewrites it, and every file it names exists`, () => {
      const refill = row.names[4]!;
      const writing = REFILLS.filter((r) => r.tables.has(row.table));
      expect(refill.length).toBe(writing.length);
      for (const path of refill) {
        const sql = readFileSync(join(ROOT, path), "utf8");
        expect(writing.some((r) => r.sql === sql)).toBe(true);
      }
      const files = row.names.flat().filter((name) => name.includes("/"));
      expect(files.length).toBeGreaterThan(1);
      expect(files.filter((path) => !existsSync(join(ROOT, path)))).toEqual([]);
      const migrations = row.names.flat().filter((name) => /^\d+_\w+\.sql$/.test(name));
      expect(migrations.filter((file) => !existsSync(join(MIGRATIONS, file)))).toEqual([]);
      expect(row.names[6]!.every((path) => path.startsWith("test/") && existsSync(join(ROOT, path)))).toBe(true);
    });
  }
});

describe("schema.sql", () => {
  test("run on an empty file, makes the schema the migrations make", () => {
    const objects = (db: Database) =>
      db
        .query("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY name")
        .all();
    const migrated = new Database(":memory:");
    migrate(migrated);
    const fromPage = new Database(":memory:");
    fromPage.exec(readFileSync(join(ROOT, SCHEMA_PAGE), "utf8"));
    expect(objects(fromPage)).toEqual(objects(migrated));
    migrated.close();
    fromPage.close();
  });
});
