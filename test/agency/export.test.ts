// Export: the VRSync round trip gives identical API output, NDJSON is exactly the API's shape,
// leads come out as NDJSON with --since; export reads one snapshot.
import type { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { exportLeads, exportProperties, type ExportFormat, type ExportSummary } from "../../src/agency/export.ts";
import { importFeed } from "../../src/agency/import.ts";
import { PROPERTY_FIELDS } from "../../src/catalog/properties.ts";
import { closeDatabase, openExistingDatabase } from "../../src/db/open.ts";
import { apiOver, type ApiProperty, FIXTURES, lastSequence, publishedProperties, seededCopy, tempDir } from "./helpers.ts";

const dir = tempDir();
let seeded: string;
afterAll(() => dir.cleanup());
beforeAll(() => {
  seeded = seededCopy(dir.path("seeded.sqlite"));
});

let counter = 0;
async function exportTo(db: string, format: ExportFormat, since: string | null = null): Promise<{ path: string; text: string; summary: ExportSummary }> {
  const parts: string[] = [];
  const summary = await withDbAsync(db, (conn) => exportProperties(conn, format, { write: (t) => void parts.push(t) }, { since }));
  const path = dir.path(`export-${++counter}.${format === "vrsync" ? "xml" : "ndjson"}`);
  writeFileSync(path, parts.join(""));
  return { path, text: parts.join(""), summary };
}

async function withDbAsync<T>(path: string, body: (db: Database) => Promise<T>): Promise<T> {
  const db = openExistingDatabase(path);
  try {
    return await body(db);
  } finally {
    closeDatabase(db);
  }
}

/** What a new database assigns itself: the rest must survive a round trip unchanged. */
const content = ({ id: _i, createdAt: _c, updatedAt: _u, ...rest }: ApiProperty) => rest;

describe("VRSync round trip: export → import gives identical API output", () => {
  test("into the same database nothing changes: no updatedAt moves, no change events", async () => {
    const db = seededCopy(dir.path("same.sqlite"));
    const before = publishedProperties(db);
    const sequence = lastSequence(db);
    const { path, summary } = await exportTo(db, "vrsync");
    const withCode = before.filter((p) => p.code !== null).length;
    expect(summary).toEqual({ entity: "properties", format: "vrsync", exported: withCode, skipped: before.length - withCode });
    expect(await importFeed(db, path)).toEqual({ created: 0, updated: 0, unchanged: withCode, unpublished: 0, rejected: 0, rejections: [] });
    expect(publishedProperties(db)).toEqual(before);
    expect(lastSequence(db)).toBe(sequence);
  });

  test("into a new database every field but the database's own id and dates is identical, photo ids included", async () => {
    const { path } = await exportTo(seeded, "vrsync");
    const copy = dir.path("copy-vrsync.sqlite");
    const summary = await importFeed(copy, path);
    expect(summary.rejected).toBe(0);
    const original = publishedProperties(seeded).filter((p) => p.code !== null).map(content);
    expect(publishedProperties(copy).map(content)).toEqual(original);
  });

  test("a feed of the fixture round-trips too (seasonal, Sale/Rent, extension fields)", async () => {
    const db = dir.path("fixture.sqlite");
    await importFeed(db, join(FIXTURES, "complete.xml"));
    const { path } = await exportTo(db, "vrsync");
    const copy = dir.path("fixture-copy.sqlite");
    await importFeed(copy, path);
    expect(publishedProperties(copy).map(content)).toEqual(publishedProperties(db).map(content));
    expect(await importFeed(db, path)).toMatchObject({ unchanged: 6, updated: 0 });
  });
});

describe("NDJSON export is exactly the API's shape", () => {
  test("each line equals the record GET /v1/properties returns with every field, in createdAt order", async () => {
    const { text, summary } = await exportTo(seeded, "ndjson");
    const lines = text.trimEnd().split("\n").map((line) => JSON.parse(line));
    expect(summary.exported).toBe(lines.length);
    const api = await apiOver(seeded);
    try {
      const fields = PROPERTY_FIELDS.map((f) => f.name).join(",");
      const fromApi: unknown[] = [];
      for (let page = 1; ; page++) {
        const { body } = await api.get(`/v1/properties?fields=${fields}&sort=createdAt&limit=100&page=${page}`);
        fromApi.push(...body.data);
        if (page >= body.meta.totalPages) break;
      }
      expect(lines).toEqual(fromApi);
    } finally {
      api.close();
    }
  });

  test("re-imported, it gives the same data (listings with a code)", async () => {
    const db = dir.path("ndjson-source.sqlite");
    await importFeed(db, join(FIXTURES, "complete.xml"));
    const { path } = await exportTo(db, "ndjson");
    expect(await importFeed(db, path)).toMatchObject({ unchanged: 6, updated: 0, created: 0 });
    const copy = dir.path("ndjson-copy.sqlite");
    await importFeed(copy, path);
    expect(publishedProperties(copy).map(content)).toEqual(publishedProperties(db).map(content));
  });

  test("--since keeps the properties updated after the instant", async () => {
    const all = publishedProperties(seeded);
    const since = all.map((p) => p.updatedAt).sort()[Math.floor(all.length / 2)]!;
    const { text } = await exportTo(seeded, "ndjson", since);
    const lines = text.trimEnd().split("\n").map((line) => JSON.parse(line) as ApiProperty);
    expect(lines.length).toBe(all.filter((p) => p.updatedAt > since).length);
    expect(lines.every((p) => p.updatedAt > since)).toBe(true);
  });
});

describe("leads as NDJSON", () => {
  test("every lead in the API's shape, or those updated after --since, oldest change first", async () => {
    const read = async (since: string | null) => {
      const parts: string[] = [];
      const summary = await withDbAsync(seeded, (conn) => exportLeads(conn, { write: (t) => void parts.push(t) }, { since }));
      return { summary, leads: parts.join("").trimEnd().split("\n").filter((l) => l !== "").map((l) => JSON.parse(l) as Record<string, string>) };
    };
    const all = await read(null);
    expect(all.summary).toEqual({ entity: "leads", format: "ndjson", exported: 200, skipped: 0 });
    expect(Object.keys(all.leads[0]!)).toEqual(["id", "name", "email", "phone", "message", "source", "status", "priority", "propertyId", "interestedPropertyTitle", "createdAt", "updatedAt"]);
    const since = all.leads.map((l) => l.updatedAt!).sort()[150]!;
    const recent = await read(since);
    expect(recent.leads.length).toBe(all.leads.filter((l) => l.updatedAt! > since).length);
    const times = recent.leads.map((l) => l.updatedAt!);
    expect(times).toEqual([...times].sort());
    expect(times.every((t) => t > since)).toBe(true);
  });
});
