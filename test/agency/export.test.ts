// Export: the VRSync round trip gives identical API output, NDJSON is exactly the API's shape,
// leads come out as NDJSON with --since; export reads one snapshot.
import type { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { type ExportFormat, type ExportSummary, exportLeads, exportProperties } from "../../src/agency/export.ts";
import { importFeed } from "../../src/agency/import.ts";
import { PROPERTY_FIELDS } from "../../src/catalog/properties.ts";
import { closeDatabase, openExistingDatabase } from "../../src/db/open.ts";
import {
  type ApiProperty,
  apiOver,
  FIXTURES,
  lastSequence,
  propertyByCode,
  publishedProperties,
  seededCopy,
  tempDir,
} from "./helpers.ts";

const dir = tempDir();
let seeded: string;
afterAll(() => dir.cleanup());
beforeAll(() => {
  seeded = seededCopy(dir.path("seeded.sqlite"));
});

let counter = 0;
async function exportTo(
  db: string,
  format: ExportFormat,
  since: string | null = null,
): Promise<{ path: string; text: string; summary: ExportSummary }> {
  const parts: string[] = [];
  const summary = await withDbAsync(db, (conn) =>
    exportProperties(conn, format, { write: (t) => void parts.push(t) }, { since }),
  );
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
    const withoutCode = before.filter((p) => p.code === null).length;
    expect(summary).toEqual({
      entity: "properties",
      format: "vrsync",
      exported: before.length,
      skipped: 0,
      idAsListingId: withoutCode,
    });
    expect(await importFeed(db, path)).toEqual({
      created: 0,
      updated: 0,
      unchanged: before.length,
      unpublished: 0,
      rejected: 0,
      warnings: {},
      rejections: [],
      warningList: [],
    });
    expect(publishedProperties(db)).toEqual(before);
    expect(lastSequence(db)).toBe(sequence);
  });

  test("into a new database every field but the database's own id and dates is identical, photo ids included", async () => {
    const { path } = await exportTo(seeded, "vrsync");
    const copy = dir.path("copy-vrsync.sqlite");
    const summary = await importFeed(copy, path);
    expect(summary.rejected).toBe(0);
    // A property without a code arrives with its id as its code.
    const original = publishedProperties(seeded).map((p) => ({ ...content(p), code: p.code ?? p.id }));
    const sorted = (list: Record<string, unknown>[]) =>
      list.sort((a, b) => String(a.code).localeCompare(String(b.code)));
    expect(sorted(publishedProperties(copy).map(content))).toEqual(sorted(original));
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

  test("every deal and price shape a CRM writes round-trips, a rent with a sale price but an unreadable rent included", async () => {
    const db = dir.path("transactions.sqlite");
    await importFeed(db, join(FIXTURES, "crm/transactions.xml"));
    // For Rent, an unreadable RentalPrice and a ListPrice: the ListPrice is a sale price (the rent
    // has an element of its own), the rent is unknown. Read back as its rent, it would be R$200,000 a month.
    const shape = (p: ApiProperty | undefined) => p && { operationType: p.operationType, pricing: p.pricing };
    const badPeriod = {
      operationType: "RENT",
      pricing: { salePrice: 200000, rentalPrice: null, condominiumFee: null, iptu: null },
    };
    expect(shape(propertyByCode(db, "T-BAD-PERIOD"))).toEqual(badPeriod);
    const { path } = await exportTo(db, "vrsync");
    const copy = dir.path("transactions-copy.sqlite");
    expect(await importFeed(copy, path)).toMatchObject({
      created: publishedProperties(db).length,
      rejected: 0,
      warnings: {},
    });
    expect(shape(propertyByCode(copy, "T-BAD-PERIOD"))).toEqual(badPeriod);
    expect(publishedProperties(copy).map(content)).toEqual(publishedProperties(db).map(content));
    expect(await importFeed(db, path)).toMatchObject({ unchanged: publishedProperties(db).length, updated: 0 });
  });
});

describe("every published listing is exported (issue #27, item 6)", () => {
  test("VRSync writes as many listings as NDJSON: one without a code carries its id as ListingID", async () => {
    const db = seededCopy(dir.path("codeless.sqlite"));
    const published = publishedProperties(db);
    expect(published.some((p) => p.code === null)).toBe(true);
    const vrsync = await exportTo(db, "vrsync");
    const ndjson = await exportTo(db, "ndjson");
    expect(ndjson.summary.exported).toBe(published.length);
    expect(vrsync.summary.exported).toBe(published.length);
    const listingIds = [...vrsync.text.matchAll(/<ListingID>([^<]*)<\/ListingID>/g)].map((m) => m[1]!);
    expect(listingIds.sort()).toEqual(published.map((p) => p.code ?? p.id).sort());
  });

  test("re-imported into the same database, a listing whose ListingID is a code-less property's id is that property: nothing changes", async () => {
    const db = seededCopy(dir.path("codeless-again.sqlite"));
    const before = publishedProperties(db);
    const sequence = lastSequence(db);
    const { path } = await exportTo(db, "vrsync");
    const summary = await importFeed(db, path);
    expect(summary).toMatchObject({ created: 0, updated: 0, unchanged: before.length, unpublished: 0, rejected: 0 });
    expect(publishedProperties(db)).toEqual(before);
    expect(lastSequence(db)).toBe(sequence);
  });
});

describe("NDJSON export is exactly the API's shape", () => {
  /** Every property the API lists, with every field, oldest first, for a client with or without `fullAddress`. */
  async function everyRecord(db: string, fullAddress: boolean): Promise<unknown[]> {
    const api = await apiOver(db, { fullAddress });
    try {
      const fields = PROPERTY_FIELDS.map((f) => f.name).join(",");
      const records: unknown[] = [];
      for (let page = 1; ; page++) {
        const { body } = await api.get(`/v1/properties?fields=${fields}&sort=createdAt&limit=100&page=${page}`);
        records.push(...body.data);
        if (page >= body.meta.totalPages) break;
      }
      return records;
    } finally {
      api.close();
    }
  }

  test("each line equals the record GET /v1/properties returns with every field, in createdAt order (the agency's view: stored values)", async () => {
    const { text, summary } = await exportTo(seeded, "ndjson");
    const lines = text
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(summary.exported).toBe(lines.length);
    expect(lines).toEqual(await everyRecord(seeded, true));
  });

  test("an export meant for partners holds what the API shows a partner: the parts displayAddress hides are null", async () => {
    const parts: string[] = [];
    await withDbAsync(seeded, (conn) =>
      exportProperties(conn, "ndjson", { write: (t) => void parts.push(t) }, { view: "partner" }),
    );
    const lines = parts
      .join("")
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line) as ApiProperty);
    expect(lines).toEqual((await everyRecord(seeded, false)) as ApiProperty[]);
    const hidden = lines.filter((p) => (p.address as { visibility: string }).visibility === "NEIGHBORHOOD");
    expect(hidden.length).toBeGreaterThan(0);
    expect(
      hidden.every(
        (p) =>
          (p.address as { street: unknown }).street === null &&
          (p.coordinates as { latitude: unknown }).latitude === null,
      ),
    ).toBe(true);
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
    const lines = text
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line) as ApiProperty);
    expect(lines.length).toBe(all.filter((p) => p.updatedAt > since).length);
    expect(lines.every((p) => p.updatedAt > since)).toBe(true);
  });
});

describe("leads as NDJSON", () => {
  test("every lead in the API's shape, or those updated after --since, oldest change first", async () => {
    const read = async (since: string | null) => {
      const parts: string[] = [];
      const summary = await withDbAsync(seeded, (conn) =>
        exportLeads(conn, { write: (t) => void parts.push(t) }, { since }),
      );
      return {
        summary,
        leads: parts
          .join("")
          .trimEnd()
          .split("\n")
          .filter((l) => l !== "")
          .map((l) => JSON.parse(l) as Record<string, string>),
      };
    };
    const all = await read(null);
    expect(all.summary).toEqual({ entity: "leads", format: "ndjson", exported: 200, skipped: 0, idAsListingId: 0 });
    expect(Object.keys(all.leads[0]!)).toEqual([
      "id",
      "name",
      "email",
      "phone",
      "message",
      "source",
      "status",
      "priority",
      "propertyId",
      "interestedPropertyTitle",
      "createdBy",
      "createdAt",
      "updatedAt",
    ]);
    const since = all.leads.map((l) => l.updatedAt!).sort()[150]!;
    const recent = await read(since);
    expect(recent.leads.length).toBe(all.leads.filter((l) => l.updatedAt! > since).length);
    const times = recent.leads.map((l) => l.updatedAt!);
    expect(times).toEqual([...times].sort());
    expect(times.every((t) => t > since)).toBe(true);
  });
});
