// How the seed writes its file: never over an existing one unless asked, never half-built, and a normal served database afterwards.
import { Database } from "bun:sqlite";
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, dirname } from "node:path";
import { closeDatabase, openDatabase, openExistingDatabase } from "../../src/db/open.ts";
import { DEFAULT_SEED_OPTIONS, SeedTargetExistsError, writeSeedDatabase } from "../../src/seed/generator.ts";
import { openReadonly, seed, tempFolder } from "./helpers.ts";

const folder = tempFolder();
afterAll(() => folder.remove());

const small = { ...DEFAULT_SEED_OPTIONS, properties: 50, leads: 80 };

describe("refusing to overwrite", () => {
  test("an existing file is refused and left untouched", () => {
    const path = folder.path("existing.sqlite");
    writeFileSync(path, "not a database");
    expect(() => writeSeedDatabase(path, small)).toThrow(SeedTargetExistsError);
    expect(readFileSync(path, "utf8")).toBe("not a database");
  });

  test("overwrite: true replaces it, and drops a stale WAL of the old file", () => {
    const { path } = seed(folder, small);
    writeFileSync(`${path}-wal`, "stale");
    const summary = writeSeedDatabase(path, { ...small, seed: 7, overwrite: true });
    expect(existsSync(`${path}-wal`)).toBe(false);
    const db = openReadonly(path);
    try {
      expect(db.query("SELECT count(*) AS n FROM properties").get()).toEqual({ n: summary.properties });
    } finally {
      db.close();
    }
  });
});

describe("never half-built", () => {
  test("no temporary file is left beside the output", () => {
    const { path } = seed(folder, small);
    expect(readdirSync(dirname(path)).filter((name) => name.startsWith(basename(path)))).toEqual([basename(path)]);
  });

  test("invalid options fail before anything is written", () => {
    const path = folder.path("invalid.sqlite");
    expect(() => writeSeedDatabase(path, { ...small, properties: -1 })).toThrow(RangeError);
    expect(() => writeSeedDatabase(path, { ...small, leads: 1.5 })).toThrow(RangeError);
    expect(() => writeSeedDatabase(path, { ...small, asOf: "yesterday" })).toThrow(RangeError);
    expect(existsSync(path)).toBe(false);
    expect(readdirSync(dirname(path)).filter((name) => name.includes("invalid"))).toEqual([]);
  });
});

describe("the finished file", () => {
  test("opens as a partner-api database, in WAL mode, intact", () => {
    const { path } = seed(folder, small);
    const db = openExistingDatabase(path);
    try {
      expect(db.query("PRAGMA journal_mode").get()).toEqual({ journal_mode: "wal" });
      expect(db.query("PRAGMA integrity_check").get()).toEqual({ integrity_check: "ok" });
      expect(db.query("PRAGMA foreign_key_check").all()).toEqual([]);
    } finally {
      closeDatabase(db);
    }
  });

  test("has the same indexes and triggers as a freshly migrated database, and planner statistics", () => {
    const { path } = seed(folder, small);
    const fresh = openDatabase(folder.path("fresh.sqlite"));
    const seeded = new Database(path, { readonly: true });
    const objects = (db: Database) =>
      db
        .query(
          "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE type IN ('index', 'trigger', 'table') AND name NOT LIKE 'sqlite_stat%' ORDER BY type, name",
        )
        .all();
    try {
      expect(objects(seeded)).toEqual(objects(fresh));
      expect((seeded.query("SELECT count(*) AS n FROM sqlite_stat1").get() as { n: number }).n).toBeGreaterThan(0);
    } finally {
      seeded.close();
      closeDatabase(fresh);
    }
  });

  test("the triggers work again once seeded: a new lead reaches the feed and the counters", () => {
    const { path } = seed(folder, small);
    const db = openDatabase(path);
    try {
      db.run(`INSERT INTO leads (id, name, email, phone, message, source, status, priority, created_at, updated_at)
              VALUES ('00000000-0000-4000-8000-000000000000', 'Ana', 'ana@example.com', '+55 11 91234-5678', 'Oi', 'API', 'NEW_LEAD', 'MEDIUM', '2026-01-02T00:00:00.000Z', '2026-01-02T00:00:00.000Z')`);
      const last = db.query("SELECT entity, record_id FROM changes ORDER BY sequence DESC LIMIT 1").get();
      expect(last).toEqual({ entity: "leads", record_id: "00000000-0000-4000-8000-000000000000" });
      expect(db.query("SELECT sum(n) AS n FROM lead_counts").get()).toEqual({ n: small.leads + 1 });
    } finally {
      closeDatabase(db);
    }
  });
});

describe("progress", () => {
  test("onProgress reports growing counts up to the total of records", () => {
    const calls: [number, number][] = [];
    // Leads alone are the cheapest way past one batch of records.
    writeSeedDatabase(folder.path("progress.sqlite"), {
      ...small,
      properties: 0,
      leads: 45_000,
      onProgress: (done, total) => calls.push([done, total]),
    });
    expect(calls.length).toBeGreaterThan(1);
    expect(calls.every(([, total]) => total === 45_000)).toBe(true);
    expect(calls.map(([done]) => done)).toEqual([...calls.map(([done]) => done)].sort((a, b) => a - b));
    expect(calls.at(-1)).toEqual([45_000, 45_000]);
  }, 30_000);
});
