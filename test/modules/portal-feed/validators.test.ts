// The feed's validators (docs/reference/behaviour-extensions.md §17): ETag and Last-Modified change when the feed's content can
// have changed and not otherwise; If-None-Match and If-Modified-Since answer 304.
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { notModified, type Validators } from "../../../src/modules/portal-feed/validators.ts";
import { acceptsGzip } from "../../../src/plugins/respond.ts";
import { client, createTestApp, type TestApp } from "../../helpers/app.ts";
import { fetchFeed } from "./helpers.ts";

const portal = client("portal");
const other = client("other");
let t: TestApp;
let dbPath: string;

beforeAll(async () => {
  t = createTestApp({ clients: [portal.entry, other.entry], properties: 120, leads: 20 });
  dbPath = t.runtime.config.databases.get("main")!;
  // A config made in code has no file time: each client's settings date from its first feed.
  for (const who of [portal, other]) await (await fetchFeed(t, who)).text();
  await Bun.sleep(1_050);
});
afterAll(() => t.close());

/** The validators a GET returns now (its body read whole); Last-Modified null when left out. */
async function current(who = portal): Promise<{ etag: string; lastModified: string; body: string }> {
  const response = await fetchFeed(t, who);
  expect(response.status).toBe(200);
  return {
    etag: response.headers.get("etag")!,
    lastModified: response.headers.get("last-modified")!,
    body: await response.text(),
  };
}

/** Waits past the second of the last change: Last-Modified is left out within it. */
const pastTheSecond = () => Bun.sleep(1_050);

function write(sql: string, ...params: (string | number)[]): void {
  const db = new Database(dbPath);
  db.run(sql, params);
  db.close();
}

const aPublishedId = () => {
  const db = new Database(dbPath, { readonly: true });
  const id = db
    .query<{ id: string }, []>("SELECT id FROM properties WHERE is_published = 1 ORDER BY id LIMIT 1")
    .get()!.id;
  db.close();
  return id;
};

describe("ETag", () => {
  test("is weak, and the same for the same content, gzipped or not", async () => {
    const a = await current();
    const b = await current();
    expect(a.etag).toMatch(/^W\/"[^"]+"$/);
    expect(b.etag).toBe(a.etag);
    expect(b.body).toBe(a.body);
    const gzipped = await fetchFeed(t, portal, { "accept-encoding": "gzip" });
    expect(gzipped.headers.get("content-encoding")).toBe("gzip");
    expect(gzipped.headers.get("etag")).toBe(a.etag);
    await gzipped.arrayBuffer();
  });

  test("does not change for what cannot change the feed: leads created, other clients' requests, time passing", async () => {
    const before = await current();
    const token = await t.token(portal);
    const lead = await t.request("/v1/leads", {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "Ana", email: "ana@example.com", phone: "11 99999-0000", message: "Olá" }),
    });
    expect(lead.status).toBe(201);
    await current(other);
    t.clock.advance(3_600_000);
    const after = await current();
    expect(after.etag).toBe(before.etag);
    expect(after.lastModified).toBe(before.lastModified);
    expect(after.body).toBe(before.body);
  });

  test("changes when a listing changes, with Last-Modified moving to that change", async () => {
    const before = await current();
    write("UPDATE properties SET title = title || ' (reformado)' WHERE id = ?", aPublishedId());
    await pastTheSecond();
    const after = await current();
    expect(after.etag).not.toBe(before.etag);
    expect(after.body).not.toBe(before.body);
    expect(Date.parse(after.lastModified)).toBeGreaterThan(Date.parse(before.lastModified));
  });

  test("changes when a photo changes, and when a listing is unpublished", async () => {
    let before = await current();
    write("UPDATE photos SET alt = 'Nova legenda' WHERE property_id = ? AND position = 1", aPublishedId());
    let after = await current();
    expect(after.etag).not.toBe(before.etag);
    before = after;
    write("UPDATE properties SET is_published = 0 WHERE id = ?", aPublishedId());
    after = await current();
    expect(after.etag).not.toBe(before.etag);
  });

  test("does not change for a write that changes nothing a partner reads (an import's digest)", async () => {
    const before = await current();
    write("UPDATE properties SET import_hash = 'x' WHERE id = ?", aPublishedId());
    expect((await current()).etag).toBe(before.etag);
  });

  test("changes when the client's selection or its fullAddress changes (a reload), Last-Modified with it", async () => {
    /** The feed after a reload: the change is seen at the first request, Last-Modified one second later. */
    const reloaded = async (entry: typeof portal.entry) => {
      t.reload({ clients: [entry, other.entry] });
      await (await fetchFeed(t, portal)).text();
      await pastTheSecond();
      return current();
    };
    await pastTheSecond();
    const before = await current();
    const capped = await reloaded(client("portal", { feed: { maxListings: 5 } }).entry);
    expect(capped.etag).not.toBe(before.etag);
    expect(Date.parse(capped.lastModified)).toBeGreaterThan(Date.parse(before.lastModified));
    const full = await reloaded(client("portal", { fullAddress: true }).entry);
    expect(new Set([before.etag, capped.etag, full.etag]).size).toBe(3);
    expect(Date.parse(full.lastModified)).toBeGreaterThan(Date.parse(capped.lastModified));
    const back = await reloaded(portal.entry);
    expect(back.etag).not.toBe(full.etag);
    const listings = (xml: string) => xml.slice(xml.indexOf("<Listings>"));
    expect(listings(back.body)).toBe(listings(before.body));
  });

  test("a reload that leaves the client's settings as they were changes nothing", async () => {
    const before = await current();
    t.reload({ clients: [portal.entry, other.entry], trustedProxies: ["10.0.0.0/8"] });
    const after = await current();
    expect(after.etag).toBe(before.etag);
    expect(after.lastModified).toBe(before.lastModified);
  });
});

describe("304 Not Modified", () => {
  test("If-None-Match with the current ETag (alone, in a list, or *): 304 with the validators and no body", async () => {
    const { etag, lastModified } = await current();
    for (const ifNoneMatch of [etag, `"other", ${etag}`, etag.slice(2), "*"]) {
      const response = await fetchFeed(t, portal, { "if-none-match": ifNoneMatch });
      expect({ ifNoneMatch, status: response.status }).toEqual({ ifNoneMatch, status: 304 });
      expect(response.headers.get("etag")).toBe(etag);
      expect(response.headers.get("last-modified")).toBe(lastModified);
      expect(response.headers.get("x-ratelimit-limit")).not.toBeNull();
      expect(await response.text()).toBe("");
    }
  });

  test("If-None-Match with another ETag: the feed, even when If-Modified-Since would say 304", async () => {
    await pastTheSecond();
    const { lastModified, body } = await current();
    const response = await fetchFeed(t, portal, { "if-none-match": 'W/"stale"', "if-modified-since": lastModified });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe(body);
  });

  test("If-Modified-Since at or after Last-Modified: 304; before it, or unreadable: the feed", async () => {
    await pastTheSecond();
    const { lastModified } = await current();
    const at = Date.parse(lastModified);
    expect((await fetchFeed(t, portal, { "if-modified-since": lastModified })).status).toBe(304);
    for (const since of [new Date(at - 1_000).toUTCString(), "yesterday", ""]) {
      const response = await fetchFeed(t, portal, { "if-modified-since": since });
      expect({ since, status: response.status }).toEqual({ since, status: 200 });
      await response.text();
    }
  });

  test("a change in the database ends the 304s, even one in the second after the answer that gave Last-Modified", async () => {
    const { etag, lastModified } = await current();
    expect(lastModified).not.toBeNull();
    write("UPDATE properties SET description = description || '.' WHERE id = ?", aPublishedId());
    for (const headers of [{ "if-none-match": etag }, { "if-modified-since": lastModified }] as Record<
      string,
      string
    >[]) {
      const response = await fetchFeed(t, portal, headers);
      expect(response.status).toBe(200);
      await response.text();
    }
  });

  test("Last-Modified is left out of an answer within the second of the change (the ETag is there), and given after it", async () => {
    while (Date.now() % 1000 > 500) await Bun.sleep(20);
    write("UPDATE properties SET description = description || '!' WHERE id = ?", aPublishedId());
    const within = await fetchFeed(t, portal);
    expect(within.headers.get("etag")).not.toBeNull();
    expect(within.headers.get("last-modified")).toBeNull();
    await within.text();
    await pastTheSecond();
    const after = await fetchFeed(t, portal);
    expect(after.headers.get("etag")).toBe(within.headers.get("etag"));
    expect(after.headers.get("last-modified")).not.toBeNull();
    await after.text();
  });

  test("HEAD answers 304 on the validators too", async () => {
    const { etag } = await current();
    expect((await fetchFeed(t, portal, { "if-none-match": etag }, { method: "HEAD" })).status).toBe(304);
  });
});

describe("the rules, one by one", () => {
  const validators: Validators = { etag: 'W/"abc"', lastModified: new Date("2026-03-01T10:00:00.000Z") };
  const now = Date.parse("2026-03-02T00:00:00.000Z");
  const ask = (headers: Record<string, string>) => notModified(new Headers(headers), validators, now);

  test("If-None-Match compares weakly and takes precedence", () => {
    expect(ask({ "if-none-match": '"abc"' })).toBe(true);
    expect(ask({ "if-none-match": 'W/"abc"' })).toBe(true);
    expect(ask({ "if-none-match": 'W/"abd", W/"xyz"' })).toBe(false);
    expect(ask({ "if-none-match": '"abd"', "if-modified-since": "Sun, 01 Mar 2026 10:00:00 GMT" })).toBe(false);
  });

  test("If-Modified-Since: not in the future, a valid date", () => {
    expect(ask({ "if-modified-since": "Sun, 01 Mar 2026 10:00:00 GMT" })).toBe(true);
    expect(ask({ "if-modified-since": "Sun, 01 Mar 2026 09:59:59 GMT" })).toBe(false);
    expect(ask({ "if-modified-since": "Fri, 01 Jan 2027 00:00:00 GMT" })).toBe(false);
    expect(ask({ "if-modified-since": "not a date" })).toBe(false);
    expect(ask({})).toBe(false);
  });

  test("Accept-Encoding: gzip with a weight above 0, x-gzip, or *", () => {
    expect(acceptsGzip("gzip")).toBe(true);
    expect(acceptsGzip("deflate, gzip;q=0.5")).toBe(true);
    expect(acceptsGzip("x-gzip")).toBe(true);
    expect(acceptsGzip("*")).toBe(true);
    expect(acceptsGzip("gzip;q=0")).toBe(false);
    expect(acceptsGzip("*, gzip;q=0")).toBe(false);
    expect(acceptsGzip("identity")).toBe(false);
    expect(acceptsGzip("")).toBe(false);
    expect(acceptsGzip(null)).toBe(false);
  });
});
