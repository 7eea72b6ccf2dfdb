// OWASP API3:2023 Broken Object Property Level Authorization. Mass assignment: read-only and
// unknown keys of a lead body are ignored, never stored. Excessive exposure: answers carry only
// catalogue fields; write-only lead fields and internal columns can never be read back.
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { LEAD, postLead, type Tenants, twoTenants } from "./tenants.ts";

let s: Tenants;
beforeAll(async () => {
  s = await twoTenants();
});
afterAll(() => s.close());

const READ_ONLY = {
  id: "00000000-0000-4000-8000-000000000000",
  status: "CONVERTED",
  priority: "URGENT",
  propertyId: "someone-elses-property",
  createdAt: "2000-01-01T00:00:00.000Z",
  updatedAt: "2000-01-01T00:00:00.000Z",
  clientId: "rival",
  tenant: "rival",
  isPublished: false,
  constructor: { prototype: { admin: true } },
};
/** A literal "__proto__" key: an object literal would set the prototype instead of a key. */
const withProto = (body: object) => `${JSON.stringify(body).slice(0, -1)},"__proto__":{"admin":true,"status":"LOST"}}`;

describe("API3 broken object property level authorization", () => {
  test("read-only and unknown keys in a lead body are ignored and never stored", async () => {
    const response = await postLead(s.t, s.tokens.portal, withProto({ ...LEAD, ...READ_ONLY }));
    expect(response.status).toBe(201);
    const { data } = (await response.json()) as { data: Record<string, unknown> };
    expect(data).toMatchObject({
      status: "NEW_LEAD",
      priority: "MEDIUM",
      propertyId: null,
      interestedPropertyTitle: null,
    });
    expect(data.id).not.toBe(READ_ONLY.id);
    expect(data.createdAt).toBe(new Date(s.t.clock.now()).toISOString());
    expect(Object.keys(data)).toEqual([
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
      "createdAt",
      "updatedAt",
    ]);
    const db = new Database(s.mainPath, { readonly: true });
    const row = db.query("SELECT * FROM leads WHERE id = ?").get(data.id as string) as Record<string, unknown>;
    db.close();
    expect(row).toMatchObject({ status: "NEW_LEAD", priority: "MEDIUM", property_id: null });
    expect(JSON.stringify(row)).not.toContain("rival");
    expect(JSON.stringify(row)).not.toContain("admin");
  });

  test("write-only lead fields are stored but no route reads them back", async () => {
    const link = "https://example.com/imovel/secret-campaign-link";
    const origin = "utm_campaign=secret-campaign";
    const { data } = (await (
      await postLead(s.t, s.tokens.portal, { ...LEAD, interestedPropertyLink: link, trafficOrigin: origin })
    ).json()) as {
      data: { id: string };
    };
    for (const path of [
      `/v1/leads/${data.id}?fields=interestedPropertyLink`,
      `/v1/leads?fields=trafficOrigin`,
      `/v1/leads?fields=id,interestedPropertyLink`,
    ]) {
      const response = await s.t.get(path, s.tokens.portal);
      expect(response.status).toBe(400);
      expect(((await response.json()) as { code: string }).code).toBe("INVALID_FIELDS");
    }
    const fields = (await (await s.t.get("/v1/fields", s.tokens.portal)).json()) as {
      data: { leads: Record<string, unknown> };
    };
    const everything = Object.keys(fields.data.leads).join(",");
    for (const path of [
      `/v1/leads/${data.id}?fields=${everything}`,
      `/v1/leads?fields=${everything}&limit=100`,
      "/v1/changes?entity=leads&limit=1000",
    ]) {
      const text = await (await s.t.get(path, s.tokens.portal)).text();
      expect(text).not.toContain(link);
      expect(text).not.toContain(origin);
    }
  });

  test("asking for every catalogued field returns those fields and nothing else (no internal columns)", async () => {
    const fields = (await (await s.t.get("/v1/fields", s.tokens.portal)).json()) as {
      data: Record<string, Record<string, unknown>>;
    };
    for (const entity of ["properties", "leads"]) {
      const names = Object.keys(fields.data[entity]!);
      const page = (await (
        await s.t.get(`/v1/${entity}?fields=${names.join(",")}&limit=100`, s.tokens.portal)
      ).json()) as {
        data: Record<string, unknown>[];
      };
      expect(page.data.length).toBeGreaterThan(0);
      for (const item of page.data) expect(Object.keys(item)).toEqual(names);
      const text = JSON.stringify(page);
      for (const internal of ["is_published", "property_id", "client_id", "request_hash", "rowid", "secretHash"])
        expect(text).not.toContain(internal);
    }
  });

  test("sub-field names and snake_case column names are not selectable", async () => {
    for (const names of ["street", "latitude", "salePrice", "is_published", "created_at", "rowid", "*", "id,*"]) {
      const response = await s.t.get(`/v1/properties?fields=${encodeURIComponent(names)}`, s.tokens.portal);
      expect(response.status).toBe(400);
    }
  });
});
