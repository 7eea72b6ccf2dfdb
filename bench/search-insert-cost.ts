// What SQLite spends on a published listing's INSERT under migration 9 (its search triggers and
// indexes), beside schema 8 (before search), another tree's schema 9 (--compare, e.g. the main
// worktree) and this schema with one search structure left out at a time; and the one-pass fill
// (rebuild-search.sql) that a load with the triggers set aside runs instead. Each variant loads
// the same listings, taken from a seeded dataset, into a new file in one transaction (as an
// import does), the variants taking turns round by round; synchronous OFF, so fsync stays out.
//
//   taskset -c 1 bun bench/search-insert-cost.ts --source bench/datasets/p1000000-l1000000-s42.sqlite
//     [--rows 10000] [--rounds 9] [--compare /work/main]
//
// Per variant: µs per listing, min and median of the rounds, and every round in order.
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { PLACE_KEY_COLUMNS, placeKeys } from "../src/db/fold.ts";
import * as here from "../src/db/migrate.ts";

const { values } = parseArgs({
  options: {
    source: { type: "string" },
    rows: { type: "string", default: "10000" },
    rounds: { type: "string", default: "9" },
    compare: { type: "string" },
  },
});
if (values.source === undefined) throw new Error("--source: a seeded dataset to take the listings from");
type Schema = Pick<typeof here, "MIGRATIONS" | "REBUILD_SEARCH" | "migrate">;
const other: Schema | null =
  values.compare === undefined ? null : await import(resolve(values.compare, "src/db/migrate.ts"));

const source = new Database(values.source, { readonly: true });
// The place keys are written from the place below, where the target stores them (a schema
// that generates them refuses them).
const isKey = (name: string) => (PLACE_KEY_COLUMNS as readonly string[]).includes(name);
const columns = (source.query("PRAGMA table_xinfo(properties)").all() as { name: string; hidden: number }[])
  .filter((c) => c.hidden === 0 && !isKey(c.name))
  .map((c) => c.name);
const listings = source
  .query(`SELECT ${columns.join(", ")} FROM properties WHERE is_published = 1 AND rowid % 40 = 7 LIMIT ?`)
  .values(Number(values.rows));
source.close();

/** The search insert trigger with `edit` applied (it must change something). */
const retrigger = (edit: (sql: string) => string) => (db: Database) => {
  const { sql } = db.query("SELECT sql FROM sqlite_master WHERE name = 'properties_search_insert'").get() as {
    sql: string;
  };
  const edited = edit(sql);
  if (edited === sql) throw new Error("the edit changed nothing");
  db.run("DROP TRIGGER properties_search_insert");
  db.run(edited);
};

interface Variant {
  name: string;
  schema: Schema;
  version: number;
  after?: (db: Database) => void;
  /** Also time the one-pass fill on the loaded file. */
  fill?: boolean;
}
const SEARCH = here.MIGRATIONS.length;
const variants: Variant[] = [
  { name: "schema 8 (before search)", schema: here, version: SEARCH - 1 },
  ...(other === null ? [] : [{ name: `${values.compare}'s schema 9`, schema: other, version: SEARCH, fill: true }]),
  { name: "this schema 9", schema: here, version: SEARCH, fill: true },
  {
    name: "this, without the map index",
    schema: here,
    version: SEARCH,
    after: (db) => db.run("DROP INDEX properties_published_map"),
  },
  {
    name: "this, without the filter tokens",
    schema: here,
    version: SEARCH,
    after: retrigger((sql) => sql.replace("new.search_terms", "NULL")),
  },
  {
    name: "this, without the sort keys",
    schema: here,
    version: SEARCH,
    after: retrigger((sql) => sql.replace(/ {2}INSERT INTO property_sort_keys .*\n/, "")),
  },
  {
    // The pairs are the last tokens, each " c…" (the column still computes them).
    name: "this, without the city pairs",
    schema: here,
    version: SEARCH,
    after: retrigger((sql) =>
      sql.replace("new.search_terms", "substr(new.search_terms, 1, instr(new.search_terms || ' c', ' c') - 1)"),
    ),
  },
  {
    name: "this, without the area counter",
    schema: here,
    version: SEARCH,
    after: retrigger((sql) => sql.replace(/ {4}UNION ALL SELECT 'area'.*\n/, "")),
  },
];

const dir = mkdtempSync(join(tmpdir(), "pa-search-insert-"));
const micros = new Map<string, number[]>();
const record = (name: string, us: number) => micros.set(name, [...(micros.get(name) ?? []), us]);
try {
  for (let round = 0; round < Number(values.rounds); round++) {
    for (const v of variants) {
      const file = join(dir, "load.sqlite");
      const db = new Database(file);
      db.run("PRAGMA journal_mode = WAL");
      db.run("PRAGMA synchronous = OFF");
      db.run("PRAGMA cache_size = -65536");
      db.run("PRAGMA temp_store = MEMORY");
      v.schema.migrate(db, v.schema.MIGRATIONS.slice(0, v.version));
      v.after?.(db);
      const known = new Map(
        (db.query("PRAGMA table_xinfo(properties)").all() as { name: string; hidden: number }[]).map((c) => [
          c.name,
          c.hidden,
        ]),
      );
      const written = columns.filter((c) => known.has(c) && c !== "search_terms");
      const keys = known.get("city_key") === 0 ? PLACE_KEY_COLUMNS : [];
      const insert = db.prepare(
        `INSERT INTO properties (${[...written, ...keys].join(", ")}) VALUES (${[...written, ...keys].map(() => "?").join(", ")})`,
      );
      const at = written.map((c) => columns.indexOf(c));
      const place = ["city", "neighborhood", "uf"].map((c) => columns.indexOf(c));
      type Value = string | number | null;
      const started = performance.now();
      db.transaction(() => {
        for (const row of listings) {
          const values = at.map((i) => row[i]) as Value[];
          if (keys.length > 0) values.push(...placeKeys(...(place.map((i) => row[i]) as [string, string, string])));
          insert.run(...values);
        }
      })();
      record(v.name, ((performance.now() - started) * 1000) / listings.length);
      if (v.fill) {
        const filling = performance.now();
        db.run(v.schema.REBUILD_SEARCH);
        record(`${v.name}: one-pass fill`, ((performance.now() - filling) * 1000) / listings.length);
      }
      db.close();
      for (const suffix of ["", "-wal", "-shm"]) rmSync(file + suffix, { force: true });
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
console.log(`${listings.length} listings a load, ${values.rounds} rounds; µs per listing\n`);
console.log("| variant | min | median | rounds |\n|---|---|---|---|");
for (const [name, us] of micros) {
  const sorted = [...us].sort((a, b) => a - b);
  console.log(
    `| ${name} | ${sorted[0]!.toFixed(1)} | ${sorted[sorted.length >> 1]!.toFixed(1)} | ${us.map((x) => x.toFixed(1)).join(", ")} |`,
  );
}
