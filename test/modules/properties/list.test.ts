// GET /v1/properties and GET /v1/properties/{id}: every rule of docs/reference/behaviour.md §8 on a seeded file.
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { PROPERTY_STATUSES } from "../../../src/catalog/enums.ts";
import { client, createTestApp, read, type TestApp } from "../../helpers/app.ts";

const portal = client("portal");
let t: TestApp;
let token: string;
let db: Database;

beforeAll(async () => {
  t = createTestApp({ clients: [portal.entry], properties: 300, leads: 200 });
  token = await t.token(portal);
  db = new Database(t.runtime.config.databases.get("main")!, { readonly: true });
});
afterAll(() => {
  db.close();
  t.close();
});

const list = async (query: string) => read(await t.get(`/v1/properties?${query}`, token));
const scalar = (sql: string, ...params: (string | number)[]) => db.query(sql).values(...params)[0]![0] as number;

describe("fields selection", () => {
  test("returns only the requested fields, keys in first-requested order", async () => {
    const { status, body } = await list("fields=title,id,status");
    expect(status).toBe(200);
    for (const row of body.data) expect(Object.keys(row)).toEqual(["title", "id", "status"]);
  });

  test("spaces around names are ignored and duplicates collapse", async () => {
    const { body } = await list("fields=%20id%20,title,id,%20title");
    expect(Object.keys(body.data[0])).toEqual(["id", "title"]);
  });

  test("a group returns its whole object; photos come as an array ordered by order with one main", async () => {
    const { body } = await list("fields=id,address,coordinates,features,pricing,financing,photos&limit=50");
    for (const row of body.data) {
      expect(Object.keys(row.address)).toEqual([
        "street",
        "number",
        "complement",
        "neighborhood",
        "city",
        "state",
        "uf",
        "cep",
        "visibility",
      ]);
      expect(Object.keys(row.coordinates)).toEqual(["latitude", "longitude"]);
      expect(Object.keys(row.features)).toEqual([
        "totalArea",
        "builtArea",
        "bedrooms",
        "bathrooms",
        "suites",
        "parkingSpaces",
        "floor",
        "totalFloors",
        "isFurnished",
      ]);
      expect(Object.keys(row.pricing)).toEqual(["salePrice", "rentalPrice", "condominiumFee", "iptu"]);
      expect(typeof row.financing.acceptsFinancing).toBe("boolean");
      expect(typeof row.features.isFurnished).toBe("boolean");
      expect(Array.isArray(row.photos)).toBe(true);
      const stored = scalar("SELECT count(*) FROM photos WHERE property_id = ?", row.id);
      expect(row.photos.length).toBe(stored);
      row.photos.forEach((photo: { order: number }, i: number) => expect(photo.order).toBe(i + 1));
      if (row.photos.length > 0) expect(row.photos.filter((p: { isMain: boolean }) => p.isMain).length).toBe(1);
    }
  });

  test("booleans are JSON booleans and isPublished is always true", async () => {
    const { body } = await list("fields=exclusive,isPublished&limit=100");
    for (const row of body.data) {
      expect(typeof row.exclusive).toBe("boolean");
      expect(row.isPublished).toBe(true);
    }
  });

  test("absent or empty fields → VALIDATION_ERROR 'fields: is required'", async () => {
    for (const query of ["", "fields=", "fields=%20,%20", "page=1"]) {
      const { status, body } = await list(query);
      expect(status).toBe(400);
      expect(body.code).toBe("VALIDATION_ERROR");
      expect(body.error).toBe("fields: is required");
      expect(body.details).toEqual([{ field: "fields", message: "is required" }]);
    }
  });

  test("unknown names, sub-field names, wrong case and input-only lead names → INVALID_FIELDS listing them all", async () => {
    const { status, body } = await list("fields=id,street,Title,bogus,salePrice");
    expect(status).toBe(400);
    expect(body).toEqual({ error: "Invalid fields: street, Title, bogus, salePrice", code: "INVALID_FIELDS" });
  });
});

describe("pagination", () => {
  test("defaults: page 1, limit 20, exact total of published properties", async () => {
    const { body } = await list("fields=id");
    const published = scalar("SELECT count(*) FROM properties WHERE is_published = 1");
    expect(body.meta).toEqual({ page: 1, limit: 20, total: published, totalPages: Math.ceil(published / 20) });
    expect(body.data.length).toBe(20);
  });

  test("non-integer or out-of-range page and limit are errors, never clamped; all problems listed", async () => {
    const { status, body } = await list("fields=id&page=0&limit=101");
    expect(status).toBe(400);
    expect(body.error).toBe(
      "page: must be an integer greater than or equal to 1; limit: must be an integer between 1 and 100",
    );
    expect(body.details).toHaveLength(2);
    for (const query of ["page=abc", "page=1.5", "page=-1", "limit=0", "limit=1e2", "limit=", "limit=20.0"]) {
      expect((await list(`fields=id&${query}`)).status).toBe(400);
    }
  });

  test("a page past the end is empty with true meta", async () => {
    const { status, body } = await list("fields=id&page=9999&limit=100");
    const published = scalar("SELECT count(*) FROM properties WHERE is_published = 1");
    expect(status).toBe(200);
    expect(body).toEqual({
      data: [],
      meta: { page: 9999, limit: 100, total: published, totalPages: Math.ceil(published / 100) },
    });
  });

  test("totalPages is 0 when nothing matches", async () => {
    const { body } = await list("fields=id&code=NO-SUCH-CODE");
    expect(body.meta).toEqual({ page: 1, limit: 20, total: 0, totalPages: 0 });
  });
});

describe("filters and sorts", () => {
  const walk = async (query: string, limit: number) => {
    const ids: string[] = [];
    let page = 1;
    for (;;) {
      const { body } = await list(`fields=id&limit=${limit}&page=${page}&${query}`);
      ids.push(...body.data.map((r: { id: string }) => r.id));
      if (page >= body.meta.totalPages) return { ids, total: body.meta.total };
      page++;
    }
  };

  const cases: [string, string, (string | number)[]][] = [
    ["", "1=1", []],
    ["status=AVAILABLE", "status = ?", ["AVAILABLE"]],
    ["operationType=RENT&sort=createdAt", "operation_type = ?", ["RENT"]],
    ["highlight=PREMIUM&sort=-updatedAt", "highlight = ?", ["PREMIUM"]],
    ["propertyType=Apartamento&sort=updatedAt", "property_type = ?", ["Apartamento"]],
    ["createdAfter=2025-01-01T00:00:00Z", "created_at > ?", ["2025-01-01T00:00:00.000Z"]],
    [
      "updatedBefore=2025-06-01T00:00:00-03:00&status=SOLD",
      "updated_at < ? AND status = ?",
      ["2025-06-01T03:00:00.000Z", "SOLD"],
    ],
  ];
  for (const [query, where, params] of cases) {
    test(`walking every page of "${query || "no filter"}" returns each matching row exactly once`, async () => {
      const expected = db
        .query(`SELECT id FROM properties WHERE is_published = 1 AND ${where}`)
        .values(...params)
        .map((r) => r[0] as string);
      const { ids, total } = await walk(query, 7);
      expect(total).toBe(expected.length);
      expect(ids.length).toBe(expected.length);
      expect(new Set(ids)).toEqual(new Set(expected));
    });
  }

  test("default sort is newest first; ties broken by id", async () => {
    const { body } = await list("fields=id,createdAt&limit=100");
    const keys = body.data.map((r: { id: string; createdAt: string }) => r.createdAt + r.id);
    expect(keys).toEqual([...keys].sort().reverse());
  });

  test("date bounds are exclusive", async () => {
    const { body: first } = await list("fields=id,createdAt&limit=1");
    const newest = first.data[0].createdAt as string;
    const { body } = await list(`fields=id&createdAfter=${encodeURIComponent(newest)}`);
    expect(body.data.some((r: { id: string }) => r.id === first.data[0].id)).toBe(false);
    const { body: before } = await list(`fields=id,createdAt&createdBefore=${encodeURIComponent(newest)}&limit=100`);
    expect(before.data.every((r: { createdAt: string }) => r.createdAt < newest)).toBe(true);
  });

  test("code filter finds one published property", async () => {
    const code = db
      .query("SELECT code FROM properties WHERE is_published = 1 AND code IS NOT NULL LIMIT 1")
      .values()[0]![0] as string;
    const { body } = await list(`fields=code&code=${encodeURIComponent(code)}`);
    expect(body.data).toEqual([{ code }]);
  });

  test("bad filter values are VALIDATION_ERRORs naming each parameter", async () => {
    const { status, body } = await list(
      "fields=id&status=OPEN&createdAfter=yesterday&sort=cheapest&operationType=sale",
    );
    expect(status).toBe(400);
    expect(body.details.map((d: { field: string }) => d.field)).toEqual([
      "status",
      "operationType",
      "createdAfter",
      "sort",
    ]);
    expect(body.error).toContain(`status: must be one of: ${PROPERTY_STATUSES.join(", ")}`);
    expect(body.error).toContain("createdAfter: must be an ISO 8601 date-time");
  });

  test("impossible calendar dates are refused", async () => {
    expect((await list("fields=id&createdAfter=2025-02-30T00:00:00Z")).status).toBe(400);
    expect((await list("fields=id&createdAfter=2025-02-28T24:00:00Z")).status).toBe(400);
  });

  test("a repeated parameter is an error, not a silent pick", async () => {
    const { body } = await list("fields=id&status=SOLD&status=RENTED");
    expect(body.details).toEqual([{ field: "status", message: "must be given once" }]);
  });
});

describe("only published properties ever leave the server", () => {
  test("no list, filter or record returns an unpublished property", async () => {
    const hidden = db.query("SELECT id, code FROM properties WHERE is_published = 0").all() as {
      id: string;
      code: string | null;
    }[];
    expect(hidden.length).toBeGreaterThan(0);
    const { body } = await list("fields=id&limit=100&page=1");
    const all: string[] = [];
    for (let page = 1; page <= body.meta.totalPages; page++) {
      all.push(...(await list(`fields=id&limit=100&page=${page}`)).body.data.map((r: { id: string }) => r.id));
    }
    for (const { id, code } of hidden) {
      expect(all).not.toContain(id);
      const single = await read(await t.get(`/v1/properties/${id}?fields=id`, token));
      expect(single.status).toBe(404);
      if (code) expect((await list(`fields=id&code=${encodeURIComponent(code)}`)).body.data).toEqual([]);
    }
  });
});

describe("GET /v1/properties/{id}", () => {
  test("returns the record with the requested fields", async () => {
    const id = db.query("SELECT id FROM properties WHERE is_published = 1 LIMIT 1").values()[0]![0] as string;
    const { status, body } = await read(await t.get(`/v1/properties/${id}?fields=id,title,address`, token));
    expect(status).toBe(200);
    expect(Object.keys(body.data)).toEqual(["id", "title", "address"]);
    expect(body.data.id).toBe(id);
  });

  test("unknown id → 404 NOT_FOUND; missing fields → 400; unknown fields → INVALID_FIELDS", async () => {
    expect(
      await read(await t.get("/v1/properties/00000000-0000-4000-8000-000000000000?fields=id", token)),
    ).toMatchObject({
      status: 404,
      body: { code: "NOT_FOUND" },
    });
    const id = db.query("SELECT id FROM properties WHERE is_published = 1 LIMIT 1").values()[0]![0] as string;
    expect((await read(await t.get(`/v1/properties/${id}`, token))).body.code).toBe("VALIDATION_ERROR");
    expect((await read(await t.get(`/v1/properties/${id}?fields=nope`, token))).body.code).toBe("INVALID_FIELDS");
  });

  test("requires a token", async () => {
    expect((await t.request("/v1/properties?fields=id")).status).toBe(401);
    expect((await t.request("/v1/properties/x?fields=id")).status).toBe(401);
  });
});

describe("the page cache stays exact", () => {
  test("lead creations here leave property pages as they were; another process's property change shows at once", async () => {
    const query = "fields=id,title&sort=-updatedAt&limit=5";
    const before = await list(query);
    const created = await t.request("/v1/leads", {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({
        name: "Ana Souza",
        email: "ana@example.com",
        phone: "11987654321",
        message: "Tenho interesse",
      }),
    });
    expect(created.status).toBe(201);
    expect((await list(query)).body).toEqual(before.body);

    // Another connection (an import, say) retitles the first listing of the page.
    const writer = new Database(t.runtime.config.databases.get("main")!);
    writer.run(
      "UPDATE properties SET title = 'Cobertura renovada', updated_at = '2099-01-01T00:00:00.000Z' WHERE id = ?",
      [before.body.data[2].id],
    );
    writer.close();
    const after = await list(query);
    expect(after.body.data[0]).toEqual({ id: before.body.data[2].id, title: "Cobertura renovada" });
    expect(after.body.meta.total).toBe(before.body.meta.total);
  });
});
