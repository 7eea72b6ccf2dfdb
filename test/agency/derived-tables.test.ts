// What an import writes beside the listings (change log, counters, search tables, indexes):
// into a new file it sets the indexes and triggers aside and writes all of it once at the end
// (src/db/bulk-load.ts); into a database in use the triggers write it listing by listing. Both
// must leave the same file, and an import or a feed run into a served database must keep the
// search tables exactly what a refill from its rows gives.
import { Database } from "bun:sqlite";
import { afterAll, describe, expect, test } from "bun:test";
import { copyFileSync, existsSync, readdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { leaseOwner, runHere } from "../../src/agency/crm-feeds/run.ts";
import { importFeed } from "../../src/agency/import.ts";
import { listingOfProjection } from "../../src/agency/rows.ts";
import { PROPERTY_FIELDS } from "../../src/catalog/properties.ts";
import { projection } from "../../src/catalog/sql.ts";
import { REBUILD_SEARCH } from "../../src/db/migrate.ts";
import type { Listing } from "../../src/formats/listing.ts";
import { VRSYNC_FOOTER, vrsyncHeader, vrsyncListing } from "../../src/formats/vrsync/writer.ts";
import { emptyDatabase, feedSpec, startFeedServer } from "./crm-feed-server.ts";
import { seededCopy, tempDir } from "./helpers.ts";

const dir = tempDir();
const crm = startFeedServer();
afterAll(() => {
  crm.stop();
  dir.cleanup();
});

const NOW = new Date("2026-03-01T12:00:00.000Z");

/** Ids in the order asked for, the same for every import that asks in the same order. */
const counterIds = () => {
  let n = 0;
  return () => `00000000-0000-7000-8000-${String(++n).padStart(12, "0")}`;
};

/** The published listings of a database as an export writes them: a property without a code is named by its id. */
function listingsOf(path: string): Listing[] {
  const db = new Database(path, { readonly: true, strict: true });
  try {
    return (
      db
        .query(
          `SELECT ${projection(PROPERTY_FIELDS, "stored")} AS json FROM properties p WHERE p.is_published = 1 ORDER BY p.rowid`,
        )
        .all() as { json: string }[]
    ).map(({ json }) => {
      const { id, listing } = listingOfProjection(json);
      return { ...listing, code: listing.code ?? id };
    });
  } finally {
    db.close();
  }
}

function writeFeed(name: string, listings: readonly Listing[]): string {
  const path = dir.path(name);
  writeFileSync(path, vrsyncHeader("test", NOW.toISOString()) + listings.map(vrsyncListing).join("") + VRSYNC_FOOTER);
  return path;
}

const isVirtual = (sql: string) => /^CREATE VIRTUAL TABLE/i.test(sql);

/**
 * Everything a file holds, read without the code under test: every ordinary table in full (the
 * change log without the instant each row was written), the word index term by term
 * (fts5vocab), and the schema's indexes and triggers.
 */
function contents(path: string) {
  const db = new Database(path, { readonly: true, strict: true });
  try {
    const master = db.query("SELECT type, name, sql FROM sqlite_master ORDER BY type, name").all() as {
      type: string;
      name: string;
      sql: string | null;
    }[];
    const virtual = master.filter((m) => m.type === "table" && m.sql !== null && isVirtual(m.sql)).map((m) => m.name);
    const shadow = (name: string) => virtual.some((v) => name.startsWith(`${v}_`));
    const tables: Record<string, unknown> = {};
    for (const { name, sql } of master.filter((m) => m.type === "table" && !shadow(m.name))) {
      const columns = (db.query(`SELECT name FROM pragma_table_info('${name}')`).all() as { name: string }[]).map(
        (c) => c.name,
      );
      const shown = name === "changes" ? columns.filter((c) => c !== "at") : columns;
      const rowid = sql !== null && !isVirtual(sql) && !/WITHOUT ROWID/i.test(sql) ? "rowid, " : "";
      const order = shown.map((_, i) => i + 1 + (rowid === "" ? 0 : 1)).join(", ");
      const select = `SELECT ${rowid}${shown.join(", ")} FROM "${name}"`;
      tables[name] = db
        .query(name === "property_words" ? "SELECT 0" : `${select} ORDER BY ${rowid === "" ? "" : "1, "}${order}`)
        .values();
    }
    db.run("CREATE VIRTUAL TABLE temp.words USING fts5vocab(main, property_words, instance)");
    tables.property_words = db.query("SELECT term, doc, col, offset FROM temp.words ORDER BY 1, 2, 3, 4").values();
    return {
      schema: master.filter((m) => m.type === "index" || m.type === "trigger"),
      tables,
    };
  } finally {
    db.close();
  }
}

describe("an import into a new file writes what the triggers write", () => {
  test("the same feed into a new file and into an empty served one: the same rows, change log, counters, search tables and schema", async () => {
    const seeded = listingsOf(seededCopy(dir.path("source.sqlite")));
    // Besides the seed's places (with and without accents): a listing without a place, one with
    // spaces around it, amenities spelled two ways.
    const listings = seeded.map((l, i): Listing => {
      if (i === 1) return { ...l, address: { ...l.address, city: null, neighborhood: null, uf: null, state: null } };
      if (i === 2) return { ...l, address: { ...l.address, city: "  São Paulo ", neighborhood: " Vila Madalena" } };
      if (i % 50 === 0) return { ...l, amenities: [...l.amenities, "PISCINA", "Piscina"] };
      return l;
    });
    expect(listings.filter((l) => /[^ -~]/.test(l.address.city ?? "")).length).toBeGreaterThan(10);
    expect(new Set(listings.map((l) => l.address.visibility)).size).toBe(3);
    const feed = writeFeed("feed.xml", listings);

    const fresh = dir.path("fresh.sqlite");
    const served = emptyDatabase(dir.path("served.sqlite"));
    const a = await importFeed(fresh, feed, { now: () => NOW, newId: counterIds() });
    const b = await importFeed(served, feed, { now: () => NOW, newId: counterIds() });
    expect(a).toEqual(b);
    expect(a.created).toBe(listings.length);

    const loaded = contents(fresh);
    const triggered = contents(served);
    expect(Object.keys(loaded.tables).sort()).toEqual(Object.keys(triggered.tables).sort());
    for (const table of Object.keys(triggered.tables))
      expect([table, loaded.tables[table]]).toEqual([table, triggered.tables[table]]);
    expect(loaded.schema).toEqual(triggered.schema);

    // The change rows written in the triggers' place carry the import's instant; the indexes
    // built at the end hold exactly the rows.
    const db = new Database(fresh, { readonly: true });
    try {
      expect(db.query("PRAGMA integrity_check").values()).toEqual([["ok"]]);
      expect(db.query("SELECT DISTINCT at FROM changes").values()).toEqual([[NOW.toISOString()]]);
    } finally {
      db.close();
    }
  }, 60_000);
});

describe("an interrupted import into a new file leaves nothing behind", () => {
  test("a failure while writing, after the indexes and triggers were set aside: no file, no scratch file", async () => {
    const listings = listingsOf(seededCopy(dir.path("source-2.sqlite")));
    // Enough listings for the import to report progress while it writes (every 1,000).
    const feed = writeFeed(
      "interrupted.xml",
      [0, 1, 2, 3].flatMap((copy) => listings.map((l) => ({ ...l, code: `${l.code}-${copy}` }))),
    );
    const target = dir.path("interrupted.sqlite");
    const outcome = await importFeed(target, feed, {
      onProgress: (progress) => {
        if (progress.phase === "writing") throw new Error("power cut");
      },
    }).catch((error: unknown) => error);
    expect((outcome as Error).message).toBe("power cut");
    expect(existsSync(target)).toBe(false);
    expect(readdirSync(dirname(target)).filter((name) => name.startsWith("interrupted.sqlite"))).toEqual([]);
  }, 60_000);
});

/** The search tables of a file, then the same after a refill from its rows (on a copy). */
function searchTablesAndRefill(path: string) {
  const copy = `${path}.refilled`;
  copyFileSync(path, copy);
  const db = new Database(copy);
  try {
    db.run(REBUILD_SEARCH);
  } finally {
    db.close();
  }
  const pick = ({ tables }: ReturnType<typeof contents>) =>
    Object.fromEntries(["property_words"].map((t) => [t, tables[t]]));
  return { kept: pick(contents(path)), refilled: pick(contents(copy)) };
}

/** A new version of a catalogue: some listings moved, renamed, re-equipped, repriced or hidden; some gone; some new. */
function edited(listings: readonly Listing[]): Listing[] {
  return listings
    .filter((_, i) => i % 9 !== 4)
    .map((l, i): Listing => {
      switch (i % 7) {
        case 0:
          return { ...l, address: { ...l.address, city: "Ilhéus", uf: "BA", neighborhood: "Pontal" } };
        case 1:
          return { ...l, amenities: ["Heliponto", "heliponto", ...l.amenities.slice(1)] };
        case 2:
          return {
            ...l,
            address: { ...l.address, visibility: "NEIGHBORHOOD" },
            coordinates: { latitude: -14.79, longitude: -39.05 },
          };
        case 3:
          return { ...l, title: `${l.title} reformado`, features: { ...l.features, bedrooms: 9 } };
        default:
          return l;
      }
    })
    .concat(
      listings.slice(0, 5).map((l) => ({ ...l, code: `${l.code}-NEW`, address: { ...l.address, city: "Niterói" } })),
    );
}

describe("into a served database the triggers keep the search tables", () => {
  test("an import that creates, changes and unpublishes: the search tables equal a refill from the rows", async () => {
    const path = seededCopy(dir.path("served-import.sqlite"));
    const summary = await importFeed(path, writeFeed("edited.xml", edited(listingsOf(path))), { maxUnpublishRatio: 1 });
    expect(summary.updated).toBeGreaterThan(50);
    expect(summary.unpublished).toBeGreaterThan(10);
    expect(summary.created).toBe(5);
    const { kept, refilled } = searchTablesAndRefill(path);
    expect(kept).toEqual(refilled);
  }, 60_000);

  test("a feed run does the same", async () => {
    const path = seededCopy(dir.path("served-run.sqlite"));
    crm.set(edited(listingsOf(path)).map(vrsyncListing), "/edited.xml");
    const report = await runHere(feedSpec(path, crm.url("/edited.xml"), { maxUnpublishRatio: 1 }), {
      owner: leaseOwner("test"),
      claim: true,
    });
    if ("busy" in report) throw new Error("unexpectedly busy");
    expect(report.outcome).toBe("success");
    expect(report.summary?.updated).toBeGreaterThan(50);
    const { kept, refilled } = searchTablesAndRefill(path);
    expect(kept).toEqual(refilled);
  }, 60_000);
});
