// GET /v1/feeds/vrsync.xml (docs/reference/behaviour-extensions.md §17): the client's published listings as VRSync, exactly
// what the API shows that client (hidden address parts left out without fullAddress), its
// selection and cap, listings VRSync cannot carry left out and counted, gzip, HEAD.
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { gunzipSync } from "node:zlib";
import { client, createTestApp, type TestApp } from "../../helpers/app.ts";
import { parseExposition, sampleValue } from "../../metrics/parse.ts";
import { apiProperties, asListing, fetchFeed, listingsOf } from "./helpers.ts";

const portal = client("portal");
const agencySite = client("site", { fullAddress: true });
const zap = client("zap", { feed: { operationType: ["SALE"], status: ["AVAILABLE", "RESERVED"] } });
const olx = client("olx", { feed: { propertyType: ["Apartamento", "Casa"], maxListings: 25 } });
const capped = client("capped", { feed: { maxListings: 10 } });
let t: TestApp;
let dbPath: string;

beforeAll(() => {
  // The sandbox environment opens /metrics.
  t = createTestApp({
    environment: "sandbox",
    clients: [portal.entry, agencySite.entry, zap.entry, olx.entry, capped.entry],
    properties: 300,
    leads: 50,
  });
  dbPath = t.runtime.config.databases.get("main")!;
});
afterAll(() => t.close());

const byCode = <T extends { code: string | null }>(listings: T[]) =>
  [...listings].sort((a, b) => (a.code! < b.code! ? -1 : a.code! > b.code! ? 1 : 0));

describe("the body: the client's published listings, as the API shows them to it", () => {
  test("a partner's feed holds every published listing, each exactly as GET /v1/properties shows it (hidden address parts left out)", async () => {
    const response = await fetchFeed(t, portal);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/xml; charset=utf-8");
    const feed = await listingsOf(await response.text());
    const api = (await apiProperties(t, await t.token(portal))).map(asListing);
    expect(feed.length).toBeGreaterThan(200);
    expect(byCode(feed)).toEqual(byCode(api));
    // The seed hides parts of some addresses: the check above covers them only if they are there.
    const hidden = feed.filter((l) => l.address.visibility !== "ALL");
    expect(hidden.length).toBeGreaterThan(0);
    for (const listing of hidden) expect(listing.address.number).toBeNull();
  });

  test("hidden parts are absent from the bytes, not only from what a reader makes of them", async () => {
    const db = new Database(dbPath, { readonly: true });
    const row = db
      .query<{ code: string; number: string; latitude: number }, []>(
        "SELECT code, number, latitude FROM properties WHERE is_published = 1 AND display_address = 'NEIGHBORHOOD' AND number IS NOT NULL AND code IS NOT NULL LIMIT 1",
      )
      .get()!;
    db.close();
    const xml = await (await fetchFeed(t, portal)).text();
    const element = xml.slice(xml.indexOf(`<ListingID>${row.code}</ListingID>`)).split("</Listing>")[0]!;
    expect(element).toContain('displayAddress="Neighborhood"');
    expect(element).not.toContain("<StreetNumber>");
    expect(element).not.toContain("<Latitude>");
    const full = await (await fetchFeed(t, agencySite)).text();
    const stored = full.slice(full.indexOf(`<ListingID>${row.code}</ListingID>`)).split("</Listing>")[0]!;
    expect(stored).toContain(`<StreetNumber>${row.number}</StreetNumber>`);
    expect(stored).toContain(`<Latitude>${row.latitude}</Latitude>`);
  });

  test("a client with fullAddress gets the stored values, as its API reads show them", async () => {
    const feed = await listingsOf(await (await fetchFeed(t, agencySite)).text());
    const api = (await apiProperties(t, await t.token(agencySite))).map(asListing);
    expect(byCode(feed)).toEqual(byCode(api));
    expect(feed.some((l) => l.address.visibility !== "ALL" && l.address.number !== null)).toBe(true);
  });

  test("the body is the export writer's document: the VRSync namespace, the extension namespace, displayAddress, Features", async () => {
    const xml = await (await fetchFeed(t, portal)).text();
    expect(
      xml.startsWith(
        '<?xml version="1.0" encoding="UTF-8"?>\n<ListingDataFeed xmlns="http://www.vivareal.com/schemas/1.0/VRSync"',
      ),
    ).toBe(true);
    expect(xml).toContain('xmlns:pa="urn:partner-api:vrsync:1"');
    expect(xml).toContain("<Features>");
    expect(xml).toContain('<Location displayAddress="Street">');
    expect(xml.endsWith("  </Listings>\n</ListingDataFeed>\n")).toBe(true);
  });
});

describe("the client's selection", () => {
  test("operationType and status: only listings meeting both", async () => {
    const feed = await listingsOf(await (await fetchFeed(t, zap)).text());
    const api = (await apiProperties(t, await t.token(zap))).map(asListing);
    const selected = api.filter(
      (l) => l.operationType === "SALE" && (l.status === "AVAILABLE" || l.status === "RESERVED"),
    );
    expect(selected.length).toBeGreaterThan(0);
    expect(selected.length).toBeLessThan(api.length);
    expect(byCode(feed)).toEqual(byCode(selected));
  });

  test("maxListings: the most recently updated first, the cap counting listings written", async () => {
    const feed = await listingsOf(await (await fetchFeed(t, capped)).text());
    const api = (await apiProperties(t, await t.token(capped))).map(asListing); // sorted -updatedAt, ties by id
    expect(feed).toEqual(api.slice(0, 10));
  });

  test("propertyType with a cap: the newest of those types, in that order", async () => {
    const feed = await listingsOf(await (await fetchFeed(t, olx)).text());
    const api = (await apiProperties(t, await t.token(olx)))
      .map(asListing)
      .filter((l) => l.propertyType === "Apartamento" || l.propertyType === "Casa");
    expect(api.length).toBeGreaterThan(25);
    expect(feed).toEqual(api.slice(0, 25));
  });
});

describe("listings VRSync cannot carry", () => {
  test("are left out, counted in X-Feed-Skipped (for the client's selection) and in /metrics; the document stays well-formed", async () => {
    const db = new Database(dbPath);
    const [bad1, bad2] = db
      .query<{ id: string; code: string }, []>(
        "SELECT id, code FROM properties WHERE is_published = 1 AND operation_type = 'SALE' AND status = 'AVAILABLE' AND code IS NOT NULL LIMIT 2",
      )
      .all();
    const rent = db
      .query<{ id: string; code: string }, []>(
        "SELECT id, code FROM properties WHERE is_published = 1 AND operation_type = 'RENT' AND code IS NOT NULL LIMIT 1",
      )
      .get()!;
    db.run("UPDATE properties SET description = 'um \x01 caractere de controle' WHERE id = ?", [bad1!.id]);
    db.run("UPDATE properties SET title = '   ' WHERE id = ?", [bad2!.id]);
    db.run("UPDATE photos SET alt = 'vista \x0b' WHERE property_id = ? AND position = 1", [rent.id]);
    db.close();

    const response = await fetchFeed(t, portal);
    expect(response.headers.get("x-feed-skipped")).toBe("3");
    const xml = await response.text();
    const codes = (await listingsOf(xml)).map((l) => l.code);
    for (const bad of [bad1!, bad2!, rent]) expect(codes).not.toContain(bad.code);
    expect(xml).not.toMatch(/[\x00-\x08\x0b\x0c\x0e-\x1f]/);
    // zap selects only SALE: the rental one is not its concern.
    const selected = await fetchFeed(t, zap);
    expect(selected.headers.get("x-feed-skipped")).toBe("2");
    await selected.text();
    const samples = parseExposition(await (await t.request("/metrics")).text());
    expect(sampleValue(samples, "partner_api_portal_feed_skipped_listings_total", { client: "portal" })).toBe(3);
    expect(sampleValue(samples, "partner_api_portal_feed_skipped_listings_total", { client: "zap" })).toBe(2);
    expect(
      sampleValue(samples, "partner_api_portal_feed_answers_total", { client: "zap", outcome: "full" }),
    ).toBeGreaterThanOrEqual(2);
  });
});

describe("gzip and HEAD", () => {
  test("gzip when accepted: the same document, Content-Encoding gzip, Vary names Accept-Encoding", async () => {
    const plain = await (await fetchFeed(t, portal)).text();
    const response = await fetchFeed(t, portal, { "accept-encoding": "br, gzip;q=0.8" });
    expect(response.headers.get("content-encoding")).toBe("gzip");
    expect(response.headers.get("vary")).toContain("accept-encoding");
    const bytes = new Uint8Array(await response.arrayBuffer());
    expect(bytes.byteLength).toBeLessThan(plain.length / 4);
    expect(gunzipSync(bytes).toString("utf8")).toBe(plain);
  });

  test("no gzip when refused (gzip;q=0, or only identity)", async () => {
    for (const accept of ["gzip;q=0", "identity", "*;q=0"]) {
      const response = await fetchFeed(t, portal, { "accept-encoding": accept });
      expect({ accept, encoding: response.headers.get("content-encoding") }).toEqual({ accept, encoding: null });
      expect((await response.text()).startsWith("<?xml")).toBe(true);
    }
  });

  test("HEAD answers the GET's headers and no body", async () => {
    await Bun.sleep(1_050); // past the second of the last change, so both carry Last-Modified
    const get = await fetchFeed(t, portal);
    await get.text();
    const head = await fetchFeed(t, portal, {}, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
    for (const name of [
      "content-type",
      "etag",
      "last-modified",
      "x-feed-skipped",
      "cache-control",
      "vary",
      "x-ratelimit-limit",
    ]) {
      expect({ name, value: head.headers.get(name) }).toEqual({ name, value: get.headers.get(name) });
    }
  });
});
