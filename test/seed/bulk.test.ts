// The seed loads with the triggers set aside; what it writes in their place must equal what the
// real triggers write. The same rows are loaded two ways, through the bulk path and row by row
// with every trigger live, and every table is compared row for row: a trigger the stand-in is
// taken to stand in for but does not reproduce shows up here, never silently.
import type { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { setAsideForBulkLoad, UnknownTriggerError } from "../../src/db/bulk-load.ts";
import { closeDatabase, openDatabase } from "../../src/db/open.ts";
import { DEFAULT_SEED_OPTIONS, seedDatabase } from "../../src/seed/generator.ts";
import { openReadonly, seed, type TempFolder, tempFolder } from "./helpers.ts";

const SIZES = { properties: 400, leads: 700 } as const;

let folder: TempFolder;
let seeded: Database;
let replayed: Database;

/**
 * Replays the loaded rows of `sourcePath` into `target` with its triggers live, the way a
 * trigger-driven load writes them: each property unpublished, then its photos, then published
 * if it is; each lead as it is. Properties and leads go in the order their entries stand in the
 * source's change log (the generator interleaves them in time), the unpublished properties
 * before the next one that has an entry.
 */
function replay(sourcePath: string, target: Database): void {
  target.run(`ATTACH DATABASE '${sourcePath}' AS s`);
  const columns = (target.query("PRAGMA s.table_info(properties)").all() as { name: string }[]).map((c) => c.name);
  const unpublished = columns.map((c) => (c === "is_published" ? "0" : c)).join(", ");
  const insertProperty = target.prepare(
    `INSERT INTO main.properties (${columns.join(", ")}) SELECT ${unpublished} FROM s.properties WHERE rowid = ?`,
  );
  const insertPhotos = target.prepare(
    "INSERT INTO main.photos SELECT * FROM s.photos WHERE property_id = ? ORDER BY position",
  );
  const publish = target.prepare("UPDATE main.properties SET is_published = 1 WHERE id = ?");
  const insertLead = target.prepare("INSERT INTO main.leads SELECT * FROM s.leads WHERE rowid = ?");
  type Row = { rowid: number; id: string; is_published: number };
  const properties = target.query("SELECT rowid, id, is_published FROM s.properties ORDER BY rowid").all() as Row[];
  const leads = target.query("SELECT rowid, id FROM s.leads ORDER BY rowid").all() as Row[];
  const entries = target.query("SELECT entity, record_id FROM s.changes ORDER BY sequence").values() as [
    string,
    string,
  ][];
  let p = 0;
  let l = 0;
  const propertiesThrough = (id: string | null) => {
    while (p < properties.length) {
      const row = properties[p++]!;
      insertProperty.run(row.rowid);
      insertPhotos.run(row.id);
      if (row.is_published === 1) publish.run(row.id);
      if (row.id === id) return;
    }
  };
  const leadsThrough = (id: string | null) => {
    while (l < leads.length) {
      const row = leads[l++]!;
      insertLead.run(row.rowid);
      if (row.id === id) return;
    }
  };
  target.transaction(() => {
    for (const [entity, id] of entries) (entity === "properties" ? propertiesThrough : leadsThrough)(id);
    propertiesThrough(null);
    leadsThrough(null);
  })();
  target.run("DETACH DATABASE s");
}

/** Tables whose bytes depend on how they were written (the word index's segments, planner statistics). */
const LAYOUT = /^(sqlite_stat\d|property_words_\w+)$/;

/**
 * Every row of every table, by table name: rowid tables with their rowids, in rowid order; the
 * others in the order of all their columns. The word index as what it answers (each term with
 * the listings holding it); the change log without `at`, which live triggers take from the clock.
 */
function contents(db: Database): Map<string, string> {
  const out = new Map<string, string>();
  const tables = db
    .query("SELECT name, sql FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%' ORDER BY name")
    .values() as [string, string][];
  for (const [table, sql] of tables) {
    if (LAYOUT.test(table)) continue;
    const columns = (db.query(`PRAGMA table_xinfo("${table}")`).all() as { name: string }[])
      .map((c) => `"${c.name}"`)
      .filter((c) => !(table === "changes" && c === '"at"'));
    const rowid = !/WITHOUT\s+ROWID/i.test(sql);
    const select = rowid
      ? `SELECT rowid, ${columns.join(", ")} FROM "${table}" ORDER BY rowid`
      : `SELECT ${columns.join(", ")} FROM "${table}" ORDER BY ${columns.map((_, i) => i + 1).join(", ")}`;
    out.set(table, JSON.stringify(db.query(select).values()));
  }
  db.run("CREATE VIRTUAL TABLE IF NOT EXISTS temp.words_vocab USING fts5vocab(main, property_words, 'instance')");
  out.set(
    "property_words (postings)",
    JSON.stringify(db.query("SELECT term, doc FROM temp.words_vocab ORDER BY term, doc").values()),
  );
  return out;
}

/** The tables whose rows differ between two databases. */
function differences(a: Database, b: Database): string[] {
  const [left, right] = [contents(a), contents(b)];
  const names = [...new Set([...left.keys(), ...right.keys()])].sort();
  return names.filter((name) => left.get(name) !== right.get(name));
}

beforeAll(() => {
  folder = tempFolder();
  const { path } = seed(folder, SIZES);
  seeded = openReadonly(path);
  replayed = openDatabase(folder.path("replayed.sqlite"));
  replay(path, replayed);
}, 60_000);

afterAll(() => {
  seeded.close();
  closeDatabase(replayed);
  folder.remove();
});

const count = (db: Database, sql: string) => (db.query(sql).get() as { n: number }).n;

describe("the trigger stand-in writes what the triggers write", () => {
  test("every table holds the same rows, the word index the same postings", () => {
    // Enough rows in each derived table for a difference to show.
    for (const table of ["changes", "property_counts", "lead_counts", "property_days", "lead_date_pairs"])
      expect([table, count(seeded, `SELECT count(*) AS n FROM ${table}`) > 10]).toEqual([table, true]);
    expect(count(seeded, "SELECT count(*) AS n FROM changes WHERE entity = 'properties'")).toBeGreaterThan(100);
    expect(count(seeded, "SELECT n FROM date_order_exceptions WHERE entity = 'leads'")).toBeGreaterThanOrEqual(0);
    expect(contents(seeded).get("property_words (postings)")!.length).toBeGreaterThan(1000);
    expect(differences(seeded, replayed)).toEqual([]);
  });

  test("the change rows are stamped with the dataset's instant", () => {
    expect(seeded.query("SELECT DISTINCT at FROM changes").values()).toEqual([[DEFAULT_SEED_OPTIONS.asOf]]);
  });

  test("each entity's stream numbered 1..n, and the last numbers kept for the triggers to go on from", () => {
    for (const entity of ["properties", "leads"]) {
      const numbers = seeded
        .query("SELECT number FROM changes WHERE entity = ? ORDER BY sequence")
        .values(entity)
        .map((row) => row[0]);
      expect(numbers).toEqual(numbers.map((_, i) => i + 1));
    }
    expect(seeded.query("SELECT entity, owner, last FROM change_streams ORDER BY entity").values()).toEqual([
      ["leads", "", SIZES.leads],
      ["properties", "", count(seeded, "SELECT count(*) AS n FROM properties WHERE is_published = 1")],
    ]);
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

describe("a trigger the stand-in is taken to stand in for, but does not reproduce", () => {
  test("makes the two loads differ: the comparison above would fail", () => {
    // A second change row per lead: it writes only the change log, on a loaded table, so the
    // bulk load sets it aside with the others, and the stand-in knows nothing of its rows.
    const echo =
      "CREATE TRIGGER leads_feed_echo AFTER INSERT ON leads BEGIN " +
      "INSERT INTO changes (entity, record_id, change, at) VALUES ('leads', new.id, 'upsert', 'x'); END";
    const bulkPath = folder.path("bulk-echo.sqlite");
    const bulk = openDatabase(bulkPath);
    bulk.run(echo);
    seedDatabase(bulk, { ...DEFAULT_SEED_OPTIONS, ...SIZES });
    closeDatabase(bulk);
    const live = openDatabase(folder.path("live-echo.sqlite"));
    live.run(echo);
    const loaded = openReadonly(bulkPath);
    try {
      replay(bulkPath, live);
      // The trigger is back in place after the load, and what it would have written is missing.
      expect(loaded.query("SELECT name FROM sqlite_master WHERE name = 'leads_feed_echo'").values()).toEqual([
        ["leads_feed_echo"],
      ]);
      expect(differences(loaded, live)).toEqual(["change_streams", "changes", "sqlite_sequence"]);
    } finally {
      loaded.close();
      closeDatabase(live);
    }
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
