// The import service, rule by rule (docs/reference/behaviour-extensions.md §11): upsert by code, updatedAt only on change,
// full vs partial, photos as a set, rejections, atomicity, dry run, and a server that sees it.
import type { Database } from "bun:sqlite";
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { applyStaged, ConcurrentChangeError } from "../../src/agency/apply.ts";
import { importFeed } from "../../src/agency/import.ts";
import { Staging } from "../../src/agency/staging.ts";
import { closeDatabase, openDatabase } from "../../src/db/open.ts";
import { blankListing, FeedError } from "../../src/formats/listing.ts";
import {
  apiOver,
  FIXTURES,
  lastSequence,
  propertyByCode,
  propertyChanges,
  publishedProperties,
  seededCopy,
  tempDir,
} from "./helpers.ts";

const dir = tempDir();
afterAll(() => dir.cleanup());

const COMPLETE = join(FIXTURES, "complete.xml");
const CODES = ["AP-100", "CA-200", "CO-400", "FL-300", "SO-500", "TE-600"];
let counter = 0;
const fresh = () => dir.path(`db-${++counter}.sqlite`);
const clockAt = (iso: string) => () => new Date(iso);

/** A feed file written for one test: VRSync listings given as XML fragments. */
function vrsync(...listings: string[]): string {
  const path = dir.path(`feed-${++counter}.xml`);
  writeFileSync(
    path,
    `<ListingDataFeed xmlns="http://www.vivareal.com/schemas/1.0/VRSync"><Listings>${listings.join("")}</Listings></ListingDataFeed>`,
  );
  return path;
}

const listing = (code: string, title = `Imóvel ${code}`, extra = "") =>
  `<Listing><ListingID>${code}</ListingID><Title>${title}</Title><TransactionType>For Sale</TransactionType>${extra}</Listing>`;
const media = (...urls: string[]) => `<Media>${urls.map((u) => `<Item medium="image">${u}</Item>`).join("")}</Media>`;

describe("upsert by code", () => {
  test("a first import creates every listing with a fresh id, createdAt = updatedAt = now", async () => {
    const db = fresh();
    const summary = await importFeed(db, COMPLETE, { now: clockAt("2026-03-01T10:00:00.000Z") });
    expect(summary).toEqual({
      created: 6,
      updated: 0,
      unchanged: 0,
      unpublished: 0,
      rejected: 0,
      warnings: {},
      rejections: [],
      warningList: [],
    });
    const properties = publishedProperties(db);
    expect(properties.map((p) => p.code)).toEqual(CODES);
    for (const p of properties) {
      expect(p.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(p).toMatchObject({
        createdAt: "2026-03-01T10:00:00.000Z",
        updatedAt: "2026-03-01T10:00:00.000Z",
        isPublished: true,
      });
    }
    expect(propertyByCode(db, "AP-100")!.photos).toMatchObject([
      { url: "https://img.exemplo.com.br/ap-100/1.jpg", order: 1, isMain: false, alt: "Fachada" },
      { url: "https://img.exemplo.com.br/ap-100/2.jpg", order: 2, isMain: true },
      { url: "https://img.exemplo.com.br/ap-100/3.jpg", order: 3, isMain: false, alt: null },
    ]);
  });

  test("a changed listing keeps its id and createdAt; only its updatedAt moves", async () => {
    const db = fresh();
    await importFeed(db, vrsync(listing("A"), listing("B")), { now: clockAt("2026-03-01T10:00:00.000Z") });
    const before = new Map(publishedProperties(db).map((p) => [p.code, p]));
    const summary = await importFeed(db, vrsync(listing("A", "Título novo"), listing("B")), {
      now: clockAt("2026-03-02T10:00:00.000Z"),
    });
    expect(summary).toMatchObject({ created: 0, updated: 1, unchanged: 1 });
    const a = propertyByCode(db, "A")!;
    expect(a).toMatchObject({
      id: before.get("A")!.id,
      createdAt: "2026-03-01T10:00:00.000Z",
      updatedAt: "2026-03-02T10:00:00.000Z",
      title: "Título novo",
    });
    expect(propertyByCode(db, "B")).toEqual(before.get("B"));
  });
});

describe("a repeated import changes nothing", () => {
  test("the same feed again: all unchanged, no updatedAt moves, no change-feed events", async () => {
    const db = fresh();
    await importFeed(db, COMPLETE, { now: clockAt("2026-03-01T10:00:00.000Z") });
    const before = publishedProperties(db);
    const sequence = lastSequence(db);
    const summary = await importFeed(db, COMPLETE, { now: clockAt("2026-03-05T10:00:00.000Z") });
    expect(summary).toEqual({
      created: 0,
      updated: 0,
      unchanged: 6,
      unpublished: 0,
      rejected: 0,
      warnings: {},
      rejections: [],
      warningList: [],
    });
    expect(publishedProperties(db)).toEqual(before);
    expect(lastSequence(db)).toBe(sequence);
  });
});

describe("a full import unpublishes what is missing; --partial does not", () => {
  test("a listing removed from the feed disappears from the API and is a remove in the change feed", async () => {
    const db = fresh();
    await importFeed(db, vrsync(listing("KEEP"), listing("GONE")));
    const gone = propertyByCode(db, "GONE")!;
    const sequence = lastSequence(db);
    const summary = await importFeed(db, vrsync(listing("KEEP")));
    expect(summary).toMatchObject({ unchanged: 1, unpublished: 1 });
    expect(publishedProperties(db).map((p) => p.code)).toEqual(["KEEP"]);
    expect(propertyChanges(db, sequence)).toEqual([{ sequence: sequence + 1, id: gone.id, change: "remove" }]);
    const api = await apiOver(db);
    try {
      expect((await api.get(`/v1/properties/${gone.id}?fields=id`)).status).toBe(404);
      const changes = await api.get(`/v1/changes?entity=properties&after=${sequence}`);
      expect(changes.body.data).toMatchObject([{ id: gone.id, change: "remove" }]);
    } finally {
      api.close();
    }
  });

  test("a feed without a single listing is refused rather than unpublishing everything", async () => {
    const db = fresh();
    await importFeed(db, vrsync(listing("A")));
    const error = await importFeed(db, vrsync()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FeedError);
    expect((error as Error).message).toContain("would unpublish all 1 published properties");
    expect(publishedProperties(db).map((p) => p.code)).toEqual(["A"]);
    expect(await importFeed(db, vrsync(), { partial: true })).toMatchObject({ created: 0, unpublished: 0 });
    expect(await importFeed(fresh(), vrsync())).toMatchObject({ created: 0, unpublished: 0 });
  });

  test("a partial import leaves missing listings published", async () => {
    const db = fresh();
    await importFeed(db, vrsync(listing("KEEP"), listing("OTHER")));
    const summary = await importFeed(db, vrsync(listing("NEW")), { partial: true });
    expect(summary).toMatchObject({ created: 1, unpublished: 0 });
    expect(publishedProperties(db).map((p) => p.code)).toEqual(["KEEP", "NEW", "OTHER"]);
  });

  test("a listing rejected this time is not unpublished; properties without a code are left alone", async () => {
    const db = seededCopy(fresh());
    const codeless = publishedProperties(db).filter((p) => p.code === null).length;
    expect(codeless).toBeGreaterThan(0);
    await importFeed(db, vrsync(listing("BAD-LATER"), listing("OK")));
    // No Title: this copy cannot be a listing.
    const summary = await importFeed(db, vrsync(listing("BAD-LATER", ""), listing("OK")));
    expect(summary).toMatchObject({ unchanged: 1, rejected: 1 });
    const codes = publishedProperties(db).map((p) => p.code);
    expect(codes.filter((c) => c !== null)).toEqual(["BAD-LATER", "OK"]);
    expect(codes.filter((c) => c === null)).toHaveLength(codeless);
  });

  test("a listing that reappears is published again, as a change", async () => {
    const db = fresh();
    await importFeed(db, vrsync(listing("BACK"), listing("STAY")), { now: clockAt("2026-03-01T00:00:00.000Z") });
    await importFeed(db, vrsync(listing("STAY")), { now: clockAt("2026-03-02T00:00:00.000Z") });
    const sequence = lastSequence(db);
    const summary = await importFeed(db, vrsync(listing("BACK"), listing("STAY")), {
      now: clockAt("2026-03-03T00:00:00.000Z"),
    });
    expect(summary).toMatchObject({ created: 0, updated: 1, unchanged: 1 });
    const back = propertyByCode(db, "BACK")!;
    expect(back).toMatchObject({ createdAt: "2026-03-01T00:00:00.000Z", updatedAt: "2026-03-03T00:00:00.000Z" });
    expect(propertyChanges(db, sequence)).toEqual([{ sequence: sequence + 1, id: back.id, change: "upsert" }]);
  });
});

describe("photos are replaced as a set", () => {
  test("a changed gallery replaces the old one; a photo whose URL stays keeps its id", async () => {
    const db = fresh();
    await importFeed(db, vrsync(listing("P", "t", media("https://x/1.jpg", "https://x/2.jpg"))));
    const [first, second] = propertyByCode(db, "P")!.photos as { id: string; url: string }[];
    const summary = await importFeed(db, vrsync(listing("P", "t", media("https://x/2.jpg", "https://x/3.jpg"))));
    expect(summary).toMatchObject({ updated: 1 });
    const photos = propertyByCode(db, "P")!.photos as { id: string; url: string; order: number; isMain: boolean }[];
    expect(photos.map((p) => [p.url, p.order, p.isMain])).toEqual([
      ["https://x/2.jpg", 1, true],
      ["https://x/3.jpg", 2, false],
    ]);
    expect(photos[0]!.id).toBe(second!.id);
    expect(photos.map((p) => p.id)).not.toContain(first!.id);
  });

  test("a new order or a new cover is a change; the same gallery is not", async () => {
    const db = fresh();
    await importFeed(db, vrsync(listing("P", "t", media("https://x/1.jpg", "https://x/2.jpg"))));
    expect(await importFeed(db, vrsync(listing("P", "t", media("https://x/1.jpg", "https://x/2.jpg"))))).toMatchObject({
      unchanged: 1,
    });
    expect(await importFeed(db, vrsync(listing("P", "t", media("https://x/2.jpg", "https://x/1.jpg"))))).toMatchObject({
      updated: 1,
    });
    const cover = '<Media><Item>https://x/2.jpg</Item><Item primary="true">https://x/1.jpg</Item></Media>';
    expect(await importFeed(db, vrsync(listing("P", "t", cover)))).toMatchObject({ updated: 1 });
    expect(await importFeed(db, vrsync(listing("P", "t")))).toMatchObject({ updated: 1 });
    expect(propertyByCode(db, "P")!.photos).toEqual([]);
  });
});

describe("rejections and warnings: a listing is refused only when it cannot be one", () => {
  test("no ListingID, no Title, no way to tell sale from rent are refused; unreadable values are warnings; the last copy of a code wins", async () => {
    const db = fresh();
    const summary = await importFeed(db, join(FIXTURES, "rejections.xml"));
    expect(summary).toMatchObject({ created: 6, updated: 0, unchanged: 0, unpublished: 0, rejected: 3 });
    expect(summary.rejections.map((r) => r.code)).toEqual([null, "TT-1", "NOTITLE-1"]);
    expect(summary.warnings).toEqual({
      OUT_OF_RANGE: 1,
      FOREIGN_CURRENCY: 1,
      UNKNOWN_PROPERTY_TYPE: 1,
      DUPLICATE_LISTING: 1,
    });
    expect(summary.warningList.find((w) => w.kind === "DUPLICATE_LISTING")).toMatchObject({
      code: "GOOD-1",
      line: 5,
      message: expect.stringContaining("appears again at line 48"),
    });
    expect(publishedProperties(db).map((p) => [p.code, p.title])).toEqual([
      ["GOOD-1", "Repetido"],
      ["GOOD-2", "Casa boa"],
      ["NEG-1", "Preço negativo"],
      ["SEP-1", "Separador de milhar"],
      ["TYPE-1", "Tipo desconhecido"],
      ["USD-1", "Preço em dólar"],
    ]);
  });

  test("a refused listing that was stored before stays exactly as it was: content, photos, dates, no change event", async () => {
    const db = fresh();
    const details = (price: string, description: string) =>
      `<Details><Description>${description}</Description><ListPrice>${price}</ListPrice><Bedrooms>3</Bedrooms></Details>`;
    const stored = listing(
      "KEEP",
      "Casa com jardim",
      details("450000", "Original") + media("https://x/1.jpg", "https://x/2.jpg"),
    );
    await importFeed(db, vrsync(stored, listing("OTHER")), { now: clockAt("2026-03-01T00:00:00.000Z") });
    const before = propertyByCode(db, "KEEP")!;
    expect(before).toMatchObject({
      title: "Casa com jardim",
      description: "Original",
      pricing: { salePrice: 450000 },
      features: { bedrooms: 3 },
    });
    const sequence = lastSequence(db);
    // Each copy says something new (price, description, gallery) and cannot be imported.
    const newer = details("520000", "Reformada") + media("https://x/3.jpg");
    const refusedCopies: [string, string, { strict?: boolean }][] = [
      ["no Title", listing("KEEP", "", newer), {}],
      [
        "no deal and no price",
        `<Listing><ListingID>KEEP</ListingID><Title>Casa reformada</Title><Details><Description>Reformada</Description></Details>${media("https://x/3.jpg")}</Listing>`,
        {},
      ],
      [
        "a warning under --strict",
        listing("KEEP", "Casa reformada", newer.replace("<Bedrooms>3</Bedrooms>", "<Bedrooms>três</Bedrooms>")),
        { strict: true },
      ],
    ];
    for (const [why, copy, options] of refusedCopies) {
      const summary = await importFeed(db, vrsync(copy, listing("OTHER")), {
        ...options,
        now: clockAt("2026-03-02T00:00:00.000Z"),
      });
      expect({ why, ...summary }).toMatchObject({
        why,
        rejected: 1,
        created: 0,
        updated: 0,
        unchanged: 1,
        unpublished: 0,
      });
      expect({ why, stored: propertyByCode(db, "KEEP") }).toEqual({ why, stored: before });
      expect(lastSequence(db)).toBe(sequence);
    }
    const api = await apiOver(db);
    try {
      const { body } = await api.get(`/v1/properties/${before.id}?fields=title,description,pricing,photos,updatedAt`);
      expect(body.data).toEqual({
        title: before.title,
        description: before.description,
        pricing: before.pricing,
        photos: before.photos,
        updatedAt: before.updatedAt,
      });
    } finally {
      api.close();
    }
  });

  test("--strict refuses a listing on any warning, every warning named in its reason", async () => {
    const db = fresh();
    const summary = await importFeed(db, join(FIXTURES, "rejections.xml"), { strict: true });
    expect(summary.rejections.map((r) => r.code)).toEqual([null, "NEG-1", "TT-1", "USD-1", "NOTITLE-1", "TYPE-1"]);
    expect(summary.rejections[1]!.reason).toMatch(/^line 15: Details\/ListPrice: a negative amount \(got "-1\d*"\)$/);
    expect(summary.warnings).toEqual({ DUPLICATE_LISTING: 1 });
    expect(publishedProperties(db).map((p) => p.code)).toEqual(["GOOD-1", "GOOD-2", "SEP-1"]);
  });
});

describe("malformed XML: the whole import is refused and nothing changes", () => {
  test("an existing database is untouched", async () => {
    const db = fresh();
    await importFeed(db, vrsync(listing("A")));
    const before = publishedProperties(db);
    const sequence = lastSequence(db);
    const error = await importFeed(db, join(FIXTURES, "malformed.xml")).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FeedError);
    expect((error as Error).message).toMatch(/^malformed XML at line 11, column \d+/);
    expect(publishedProperties(db)).toEqual(before); // A is not unpublished, OK-1 not created
    expect(lastSequence(db)).toBe(sequence);
  });

  test("a database that did not exist is not created", async () => {
    const db = fresh();
    await expect(importFeed(db, join(FIXTURES, "malformed.xml"))).rejects.toBeInstanceOf(FeedError);
    expect(existsSync(db)).toBe(false);
  });
});

describe("--dry-run changes nothing", () => {
  test("it reports what would happen and writes nothing", async () => {
    const db = fresh();
    await importFeed(db, vrsync(listing("A"), listing("B")));
    const before = publishedProperties(db);
    const sequence = lastSequence(db);
    const summary = await importFeed(db, vrsync(listing("A", "novo"), listing("C")), { dryRun: true });
    expect(summary).toEqual({
      created: 1,
      updated: 1,
      unchanged: 0,
      unpublished: 1,
      rejected: 0,
      warnings: {},
      rejections: [],
      warningList: [],
    });
    expect(publishedProperties(db)).toEqual(before);
    expect(lastSequence(db)).toBe(sequence);
  });

  test("it does not create a missing database", async () => {
    const db = fresh();
    expect(await importFeed(db, COMPLETE, { dryRun: true })).toMatchObject({ created: 6 });
    expect(existsSync(db)).toBe(false);
  });
});

describe("checked against concurrent change, write by write", () => {
  /** Stages `listings` against the database as it is, lets `meanwhile` write on the same file, then applies. */
  async function applyAfter(
    db: string,
    listings: string[],
    meanwhile: (conn: Database) => void,
    chunked: boolean,
  ): Promise<unknown> {
    const conn = openDatabase(db);
    const staging = new Staging(conn, () => crypto.randomUUID());
    try {
      listings.forEach((code, i) => staging.add(code, i + 1, { ...blankListing(code), title: `mine ${code}` }));
      staging.flush();
      meanwhile(conn);
      return await applyStaged(conn, staging, {
        partial: true,
        dryRun: false,
        now: new Date().toISOString(),
        newId: () => crypto.randomUUID(),
        chunked,
      }).catch((error: unknown) => error);
    } finally {
      await staging.drop();
      closeDatabase(conn);
    }
  }

  test("a property changed by someone else between reading and writing aborts the import with nothing written", async () => {
    const db = fresh();
    await importFeed(db, vrsync(listing("A")));
    const sequence = lastSequence(db);
    const outcome = await applyAfter(
      db,
      ["A"],
      (conn) => {
        conn.run("UPDATE properties SET title = 'theirs', updated_at = '2030-01-01T00:00:00.000Z' WHERE code = 'A'");
      },
      true,
    );
    expect(outcome).toBeInstanceOf(ConcurrentChangeError);
    expect((outcome as Error).message).toContain("A; nothing was imported");
    expect(propertyByCode(db, "A")!.title).toBe("theirs");
    expect(lastSequence(db)).toBe(sequence + 1);
  });

  test("a code planned as new that another import created meanwhile: in one transaction nothing is written either", async () => {
    const db = fresh();
    await importFeed(db, vrsync(listing("X")));
    const sequence = lastSequence(db);
    const outcome = await applyAfter(
      db,
      ["B", "C"],
      (conn) => {
        conn.run("UPDATE properties SET code = 'C' WHERE code = 'X'");
      },
      false,
    );
    expect(outcome).toBeInstanceOf(ConcurrentChangeError);
    expect(propertyByCode(db, "B")).toBeUndefined();
    expect(lastSequence(db)).toBe(sequence + 1);
  });
});

describe("feeds from a URL", () => {
  test("an http(s) feed is streamed and imported like a file", async () => {
    const xml = await Bun.file(COMPLETE).text();
    const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response(xml) });
    try {
      const db = fresh();
      expect(await importFeed(db, `http://127.0.0.1:${server.port}/vrsync.xml`)).toMatchObject({
        created: 6,
        rejected: 0,
      });
      expect(publishedProperties(db).map((p) => p.code)).toEqual(CODES);
    } finally {
      server.stop(true);
    }
  });
});

describe("a server serving the same file sees the import at once", () => {
  test("lists, exact totals and the change feed move without a restart", async () => {
    const db = fresh();
    await importFeed(db, vrsync(listing("A")));
    const api = await apiOver(db);
    try {
      const before = await api.get("/v1/properties?fields=code&limit=100");
      expect(before.body.meta.total).toBe(1);
      expect((await api.get("/v1/properties?fields=code&propertyType=Apartamento")).body.meta.total).toBe(0);
      await importFeed(db, COMPLETE);
      const after = await api.get("/v1/properties?fields=code&limit=100");
      expect(after.body.meta.total).toBe(6);
      expect(after.body.data.map((p: { code: string }) => p.code).sort()).toEqual(CODES);
      expect((await api.get("/v1/properties?fields=code&propertyType=Apartamento")).body.meta.total).toBe(1);
      const values = await api.get("/v1/values/properties/propertyType");
      expect(values.body.data.values).toEqual(["Apartamento", "Casa", "Cobertura", "Flat", "Sobrado", "Terreno"]);
      const changes = await api.get("/v1/changes?entity=properties&after=0&limit=1000");
      expect(changes.body.data.filter((c: { change: string }) => c.change === "remove")).toHaveLength(1);
    } finally {
      api.close();
    }
  });
});
