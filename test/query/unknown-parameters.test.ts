// A query parameter the route does not take is refused, never ignored (docs/reference/behaviour.md
// §8): `bedrooms=2` for `minBedrooms` must not return every listing. Each read route that takes
// parameters answers VALIDATION_ERROR `<name>: unknown parameter` (with `; did you mean <known>?`
// when a name it takes is close), beside its other problems, `; `-separated.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { closest, editDistance } from "../../src/query/query-params.ts";
import { client, createTestApp, read, type TestApp } from "../helpers/app.ts";

const portal = client("portal");
let t: TestApp;
let token = "";
beforeAll(async () => {
  t = createTestApp({ clients: [portal.entry], properties: 60, leads: 40 });
  token = await t.token(portal);
});
afterAll(() => t.close());

/** The answer to GET `path`: its status and `{ error, code, details }`. */
async function get(path: string) {
  const { status, body } = await read(await t.get(path, token));
  return { status, body };
}

/** A 400 VALIDATION_ERROR whose message is `message`, each problem in `details` in the same order. */
function refused(message: string) {
  const details = message.split(/; (?=[A-Za-z0-9_]+: )/).map((entry) => {
    const at = entry.indexOf(": ");
    return { field: entry.slice(0, at), message: entry.slice(at + 2) };
  });
  return { status: 400, body: { error: message, code: "VALIDATION_ERROR", details } };
}

describe("lists refuse what they do not take", () => {
  test("bedrooms=2 on the property list: unknown, with minBedrooms suggested; nothing is listed", async () => {
    expect(await get("/v1/properties?fields=id&bedrooms=2")).toEqual(
      refused("bedrooms: unknown parameter; did you mean minBedrooms?"),
    );
  });

  test("every problem at once, `; `-separated: the route's own first, then the unknown names in the order sent", async () => {
    expect(await get("/v1/properties?fields=id&limit=0&bedrooms=2&colour=blue&price=9")).toEqual(
      refused(
        "limit: must be an integer between 1 and 100; bedrooms: unknown parameter; did you mean minBedrooms?; " +
          "colour: unknown parameter; price: unknown parameter; did you mean minPrice?",
      ),
    );
  });

  test("a wrong case or a typo of a name the route takes is suggested; a repeat is named once", async () => {
    expect(await get("/v1/leads?fields=id&LIMIT=5&Limit=6")).toEqual(
      refused("LIMIT: unknown parameter; did you mean limit?; Limit: unknown parameter; did you mean limit?"),
    );
    expect(await get("/v1/leads?feilds=id&pgae=2&pgae=3")).toEqual(
      refused(
        "fields: is required; feilds: unknown parameter; did you mean fields?; pgae: unknown parameter; did you mean page?",
      ),
    );
  });

  test("each entity's own parameters: the lead list takes no search filter, the property list no lead filter", async () => {
    expect(await get("/v1/leads?fields=id&city=Recife")).toEqual(refused("city: unknown parameter"));
    expect(await get("/v1/properties?fields=id&source=PORTAL")).toEqual(refused("source: unknown parameter"));
  });

  test("a query of junk names the first 20 unknown parameters and counts the rest", async () => {
    const junk = Array.from({ length: 5_000 }, (_, i) => `junk${i}=${i}`).join("&");
    const { status, body } = await get(`/v1/properties?fields=id&${junk}`);
    expect(status).toBe(400);
    expect(body.details).toHaveLength(21);
    expect(body.details[0]).toEqual({ field: "junk0", message: "unknown parameter" });
    expect(body.details[20]).toEqual({ field: "query", message: "4980 more unknown parameters" });
  });

  test("every parameter a list takes is still taken, and an empty name (a stray `&`, `=x`) names nothing", async () => {
    const all =
      "fields=id&page=1&limit=5&sort=-createdAt&status=AVAILABLE&operationType=SALE&createdAfter=2020-01-01T00:00:00Z" +
      "&city=sao%20paulo&minPrice=0&maxPrice=99999999&minBedrooms=0&maxBedrooms=20&minBathrooms=0&minSuites=0" +
      "&minParkingSpaces=0&minArea=0&maxArea=100000&isFurnished=false&q=apartamento&radius=1000&near=-23.5,-46.6";
    expect((await get(`/v1/properties?${all}&&=x`)).status).toBe(200);
    expect((await get("/v1/leads?fields=id&page=2&limit=3&source=PORTAL&priority=HIGH&createdBy=portal")).status).toBe(
      200,
    );
  });
});

describe("single records, the change feed, the facets and the values refuse them too", () => {
  test("a single record takes fields only", async () => {
    const id = (await get("/v1/properties?fields=id&limit=1")).body.data[0].id;
    expect(await get(`/v1/properties/${id}?fields=id&limit=1`)).toEqual(refused("limit: unknown parameter"));
    expect((await get(`/v1/properties/${id}?fields=id`)).status).toBe(200);
  });

  test("the change feed takes entity, after and limit", async () => {
    expect(await get("/v1/changes?entity=leads&since=5&afterr=1")).toEqual(
      refused("since: unknown parameter; afterr: unknown parameter; did you mean after?"),
    );
    expect((await get("/v1/changes?entity=leads&after=0&limit=10")).status).toBe(200);
  });

  test("the facets take facets and the list's filters, nothing else", async () => {
    expect(await get("/v1/facets/properties?facets=city&bedrooms=2")).toEqual(
      refused("bedrooms: unknown parameter; did you mean minBedrooms?"),
    );
    expect(await get("/v1/facets/properties?facet=city")).toEqual(
      refused("facets: is required; facet: unknown parameter; did you mean facets?"),
    );
    expect(await get("/v1/facets/properties?facets=city&fields=id")).toEqual(refused("fields: unknown parameter"));
    expect((await get("/v1/facets/properties?facets=city,bedrooms&minBedrooms=2&q=casa")).status).toBe(200);
  });

  test("values: the property fields take city (it narrows neighborhood), the lead fields nothing", async () => {
    expect((await get("/v1/values/properties/neighborhood?city=Recife")).status).toBe(200);
    expect((await get("/v1/values/properties/status?city=Recife")).status).toBe(200);
    expect(await get("/v1/values/leads/source?city=Recife")).toEqual(refused("city: unknown parameter"));
    expect(await get("/v1/values/properties/status?limit=5")).toEqual(refused("limit: unknown parameter"));
    expect(await get("/v1/values/properties/neighborhood?cidade=Recife")).toEqual(refused("cidade: unknown parameter"));
  });
});

describe("what is close enough to suggest", () => {
  test("the same name in another case, two edits (an adjacent swap is one), or a part of a longer name", () => {
    expect(editDistance("pgae", "page")).toBe(1);
    expect(editDistance("feilds", "fields")).toBe(1);
    expect(editDistance("minpirce", "minprice")).toBe(1);
    const list = ["fields", "page", "limit", "minPrice", "maxPrice", "minBedrooms", "maxBedrooms", "q", "uf"];
    expect(closest("LIMIT", list)).toBe("limit");
    expect(closest("bedrooms", list)).toBe("minBedrooms");
    expect(closest("maxbedroom", list)).toBe("maxBedrooms");
    expect(closest("price", list)).toBe("minPrice");
    expect(closest("colour", list)).toBeNull();
    // Too short to be a part of anything: `id` is in no name the route takes.
    expect(closest("id", ["valid", "ideal"])).toBeNull();
  });
});
