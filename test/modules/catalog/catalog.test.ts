// GET /v1/fields and GET /v1/values/{entity}/{field} (SPEC, docs/reference/behaviour.md §8).
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  LEAD_PRIORITIES,
  LEAD_SOURCES,
  LEAD_STATUSES,
  OPERATION_TYPES,
  PROPERTY_STATUSES,
} from "../../../src/catalog/enums.ts";
import { client, createTestApp, read, type TestApp } from "../../helpers/app.ts";

const portal = client("portal");
let t: TestApp;
let token: string;

beforeAll(async () => {
  t = createTestApp({ clients: [portal.entry] });
  token = await t.token(portal);
});
afterAll(() => t.close());

describe("GET /v1/fields", () => {
  test("lists every selectable field with a description; groups list their sub-fields", async () => {
    const { status, body } = await read(await t.get("/v1/fields", token));
    expect(status).toBe(200);
    expect(Object.keys(body.data)).toEqual(["properties", "leads"]);
    expect(Object.keys(body.data.properties)).toEqual([
      "id",
      "code",
      "title",
      "description",
      "operationType",
      "status",
      "propertyType",
      "highlight",
      "exclusive",
      "isPublished",
      "createdAt",
      "updatedAt",
      "address",
      "coordinates",
      "features",
      "amenities",
      "pricing",
      "financing",
      "photos",
    ]);
    expect(Object.keys(body.data.leads)).toEqual([
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
    expect(Object.keys(body.data.properties.pricing.fields)).toEqual([
      "salePrice",
      "rentalPrice",
      "condominiumFee",
      "iptu",
    ]);
    expect(Object.keys(body.data.properties.address.fields)).toEqual([
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
    expect(body.data.properties.address.fields.visibility.description).toContain("NEIGHBORHOOD");
    expect(body.data.properties.amenities.fields).toBeUndefined();
    for (const info of Object.values(body.data.properties) as { description: string }[])
      expect(info.description.length).toBeGreaterThan(3);
    expect(body.data.properties.title.fields).toBeUndefined();
  });

  test("every listed name is accepted by the fields parameter", async () => {
    const { body } = await read(await t.get("/v1/fields", token));
    for (const entity of ["properties", "leads"]) {
      const names = Object.keys(body.data[entity]).join(",");
      expect((await t.get(`/v1/${entity}?fields=${names}&limit=1`, token)).status).toBe(200);
    }
  });
});

describe("GET /v1/values/{entity}/{field}", () => {
  test("enumerations come whole, in SPEC's order", async () => {
    for (const [path, values] of [
      ["properties/status", PROPERTY_STATUSES],
      ["properties/operationType", OPERATION_TYPES],
      ["leads/status", LEAD_STATUSES],
      ["leads/source", LEAD_SOURCES],
      ["leads/priority", LEAD_PRIORITIES],
    ] as const) {
      const { status, body } = await read(await t.get(`/v1/values/${path}`, token));
      const [entity, field] = path.split("/");
      expect(status).toBe(200);
      expect(body).toEqual({ data: { entity, field, values: [...values] } });
    }
  });

  test("propertyType and highlight list the distinct values among published properties, sorted", async () => {
    const db = new Database(t.runtime.config.databases.get("main")!, { readonly: true });
    for (const [field, column] of [
      ["propertyType", "property_type"],
      ["highlight", "highlight"],
    ]) {
      const expected = db
        .query(`SELECT DISTINCT ${column} FROM properties WHERE is_published = 1 AND ${column} IS NOT NULL ORDER BY 1`)
        .values()
        .map((r) => r[0]);
      const { body } = await read(await t.get(`/v1/values/properties/${field}`, token));
      expect(body.data.values).toEqual(expected);
    }
    db.close();
  });

  test("unknown entity → 400 INVALID_ENTITY with SPEC's message", async () => {
    expect((await read(await t.get("/v1/values/users/status", token))).body).toEqual({
      error: "Invalid entity: users. Use one of: properties, leads",
      code: "INVALID_ENTITY",
    });
  });

  test("a field that is not queryable → 400 INVALID_FIELD naming field, entity and the queryable ones", async () => {
    expect((await read(await t.get("/v1/values/leads/email", token))).body).toEqual({
      error: "Invalid field: email for entity leads. Queryable fields: status, source, priority, createdBy",
      code: "INVALID_FIELD",
    });
    expect((await read(await t.get("/v1/values/properties/priority", token))).status).toBe(400);
  });

  test("requires a token", async () => {
    expect((await t.request("/v1/values/leads/status")).status).toBe(401);
    expect((await t.request("/v1/fields")).status).toBe(401);
  });
});
