// The dear reads answered from reader threads (docs/internals/architecture.md, "Reads off the
// event loop"): what another connection committed shows at once, whichever side cached the
// page, and the answers are those of the routes as they were (errors, scopes, rate limits).
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { isPlainList } from "../../src/modules/properties/index.ts";
import { client, createTestApp, type TestApp } from "../helpers/app.ts";

const portal = client("portal");
const website = client("website", { scopes: ["properties:read"] });
let t: TestApp;
let token: string;
let websiteToken: string;
let path: string;

beforeAll(async () => {
  t = createTestApp({ clients: [portal.entry, website.entry], properties: 200, leads: 100 });
  token = await t.token(portal);
  websiteToken = await t.token(website);
  path = t.runtime.config.databases.get("main")!;
});
afterAll(() => t.close());

const total = async (response: Response) => {
  expect(response.status).toBe(200);
  return ((await response.json()) as { meta: { total: number } }).meta.total;
};

describe("a reader thread sees every commit at once", () => {
  test("a lead created here shows in the next lead list, the same query, at once", async () => {
    const list = "/v1/leads?fields=id,name&limit=5";
    const before = await total(await t.get(list, token));
    expect(await total(await t.get(list, token))).toBe(before); // now cached
    const created = await t.request("/v1/leads", {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "Ana Thread", email: "ana@example.com", phone: "1", message: "m" }),
    });
    expect(created.status).toBe(201);
    const after = await t.get(list, token);
    const body = (await after.json()) as { data: { name: string }[]; meta: { total: number } };
    expect(body.meta.total).toBe(before + 1);
    expect(body.data[0]!.name).toBe("Ana Thread");
  });

  test("a listing another process changes shows in searches, facets and values at once", async () => {
    const search = "/v1/properties?fields=id,title&q=zimbabwe";
    const facets = "/v1/facets/properties?facets=city&q=zimbabwe";
    const values = "/v1/values/properties/city";
    expect(await total(await t.get(search, token))).toBe(0);
    expect(((await (await t.get(facets, token)).json()) as { data: { total: number } }).data.total).toBe(0);
    const citiesBefore = ((await (await t.get(values, token)).json()) as { data: { values: string[] } }).data.values;
    expect(citiesBefore).not.toContain("Xique-Xique");
    const db = new Database(path);
    try {
      // As an import would: another connection, another process for all the server knows.
      db.run(
        "UPDATE properties SET title = 'Casa Zimbabwe', city = 'Xique-Xique' WHERE id = (SELECT id FROM properties WHERE is_published = 1 ORDER BY id LIMIT 1)",
      );
    } finally {
      db.close();
    }
    expect(await total(await t.get(search, token))).toBe(1);
    const counted = (await (await t.get(facets, token)).json()) as {
      data: { total: number; facets: { city: { value: string; count: number }[] } };
    };
    expect(counted.data).toEqual({ total: 1, facets: { city: [{ value: "Xique-Xique", count: 1 }] } });
    const citiesAfter = ((await (await t.get(values, token)).json()) as { data: { values: string[] } }).data.values;
    expect(citiesAfter).toContain("Xique-Xique");
  });
});

describe("answers from a thread are the routes' answers", () => {
  test("a validation error, with its details and the rate-limit headers, counted in the window", async () => {
    const first = await t.get("/v1/facets/properties?facets=city&minPrice=abc", token);
    const second = await t.get("/v1/facets/properties?facets=city&minPrice=abc", token);
    expect(first.status).toBe(400);
    expect(await first.json()).toEqual({
      error: "minPrice: must be a number ≥ 0",
      code: "VALIDATION_ERROR",
      details: [{ field: "minPrice", message: "must be a number ≥ 0" }],
    });
    expect(first.headers.get("content-type")).toContain("application/json");
    const remaining = Number(first.headers.get("x-ratelimit-remaining"));
    expect(Number(second.headers.get("x-ratelimit-remaining"))).toBe(remaining - 1);
  });

  test("a scope missing: values of places need properties:read; a website without leads gets 403 on leads", async () => {
    const leads = await t.get("/v1/leads?fields=id", websiteToken);
    expect(leads.status).toBe(403);
    expect(((await leads.json()) as { code: string }).code).toBe("INSUFFICIENT_SCOPE");
    const changes = await t.get("/v1/changes?entity=leads", websiteToken);
    expect(changes.status).toBe(403);
    expect((await t.get("/v1/values/properties/uf", websiteToken)).status).toBe(200);
  });

  test("the change feed from a thread: the same page, and a new lead's entry at once", async () => {
    const head = "/v1/changes?entity=leads&after=0&limit=1000";
    const before = (await (await t.get(head, token)).json()) as { meta: { head: number } };
    await t.request("/v1/leads", {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "Bia", email: "bia@example.com", phone: "1", message: "m" }),
    });
    const after = (await (await t.get(head, token)).json()) as { meta: { head: number } };
    expect(after.meta.head).toBeGreaterThan(before.meta.head);
  });
});

describe("which property lists stay on the event loop", () => {
  test("every listing in a date order stays; any filter, date bound or price or area sort goes", () => {
    for (const plain of [
      "",
      "fields=id,title&limit=20&page=3",
      "fields=id%2Ctitle&sort=%2DcreatedAt",
      "fields=id&sort=updatedAt&",
    ])
      expect(isPlainList(plain)).toBe(true);
    for (const dear of [
      // §8's filters and dates: two equality filters in the other date's order read thousands of rows in SQL.
      "fields=id&sort=-updatedAt&operationType=SALE&propertyType=Casa",
      "fields=id&status=AVAILABLE",
      "fields=id&createdAfter=2025-01-01T00:00:00Z",
      // A name the route does not take: its parser refuses it, in the thread.
      "fields=id&nonce=1",
      "fields=id&city=Recife",
      "fields=id&q=casa",
      "fields=id&sort=price",
      "fields=id&sort=-area",
      "fields=id&minBedrooms=2",
      "fields=id&bbox=1,2,3,4",
      "fields=id&radius=10",
      "fields=id&isFurnished=true",
      "fields=id&amenities=Piscina",
      "fields=id&%63ity=Recife",
      "fields=id&sort=%70rice",
      "fields=id&q=casa+grande",
      "fields=id&sort",
    ])
      expect(isPlainList(dear)).toBe(false);
  });
});
