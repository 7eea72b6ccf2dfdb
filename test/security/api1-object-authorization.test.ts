// OWASP API1:2023 Broken Object Level Authorization. Another agency's ids and Idempotency-Keys
// reach nothing of theirs: a foreign record answers exactly like one that never existed, lists
// and feeds read only the caller's database, and a reused key never replays someone else's lead.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { LEAD, postLead, type Tenants, twoTenants } from "./tenants.ts";

let s: Tenants;
beforeAll(async () => {
  s = await twoTenants();
});
afterAll(() => s.close());

/** Status and body with the per-request id removed, to compare two answers byte for byte. */
async function shape(response: Response) {
  return { status: response.status, body: await response.text(), cache: response.headers.get("cache-control") };
}

describe("API1 broken object level authorization", () => {
  test("the two databases share no id, so any cross-read below would be a leak", () => {
    const main = s.ids(s.mainPath, "SELECT id FROM properties UNION SELECT id FROM leads");
    const rival = s.ids(s.rivalPath, "SELECT id FROM properties UNION SELECT id FROM leads");
    expect([...rival].filter((id) => main.has(id))).toEqual([]);
  });

  test("another tenant's property and lead ids answer exactly like ids that never existed", async () => {
    const rivalProperty = [...s.ids(s.rivalPath, "SELECT id FROM properties WHERE is_published = 1")][0]!;
    const rivalLead = [...s.ids(s.rivalPath, "SELECT id FROM leads")][0]!;
    for (const [route, foreign] of [
      ["properties", rivalProperty],
      ["leads", rivalLead],
    ] as const) {
      const theirs = await shape(await s.t.get(`/v1/${route}/${foreign}?fields=id`, s.tokens.portal));
      const nobody = await shape(await s.t.get(`/v1/${route}/${crypto.randomUUID()}?fields=id`, s.tokens.portal));
      expect(theirs.status).toBe(404);
      expect(theirs).toEqual(nobody);
      // The owner still reads it: the 404 is authorization, not a broken id.
      expect((await s.t.get(`/v1/${route}/${foreign}?fields=id`, s.tokens.rival)).status).toBe(200);
    }
  });

  test("an unpublished property of one's own database is just as absent", async () => {
    const hidden = [...s.ids(s.mainPath, "SELECT id FROM properties WHERE is_published = 0")][0]!;
    const response = await s.t.get(`/v1/properties/${hidden}?fields=id`, s.tokens.portal);
    expect(await shape(response)).toEqual(
      await shape(await s.t.get(`/v1/properties/${crypto.randomUUID()}?fields=id`, s.tokens.portal)),
    );
  });

  test("lists and the change feed return only the caller's records, every page", async () => {
    const mine = s.ids(s.mainPath, "SELECT id FROM properties WHERE is_published = 1 UNION SELECT id FROM leads");
    const seen: string[] = [];
    for (const route of ["properties", "leads"]) {
      for (let page = 1; ; page++) {
        const body = (await (
          await s.t.get(`/v1/${route}?fields=id&limit=100&page=${page}`, s.tokens.portal)
        ).json()) as { data: { id: string }[] };
        if (body.data.length === 0) break;
        seen.push(...body.data.map((r) => r.id));
      }
    }
    for (const entity of ["properties", "leads"]) {
      const feed = (await (await s.t.get(`/v1/changes?entity=${entity}&limit=1000`, s.tokens.portal)).json()) as {
        data: { id: string }[];
      };
      seen.push(...feed.data.map((c) => c.id));
    }
    expect(seen.length).toBeGreaterThan(100);
    expect(seen.filter((id) => !mine.has(id))).toEqual([]);
  });

  test("an Idempotency-Key another tenant used creates a new lead here: no replay, no 422", async () => {
    const key = "order-2026-0001";
    const theirs = (await (await postLead(s.t, s.tokens.rival, LEAD, { "idempotency-key": key })).json()) as {
      data: { id: string };
    };
    const same = await postLead(s.t, s.tokens.portal, LEAD, { "idempotency-key": key });
    expect(same.status).toBe(201);
    expect(same.headers.get("idempotent-replayed")).toBeNull();
    expect(((await same.json()) as { data: { id: string } }).data.id).not.toBe(theirs.data.id);
    // A different body under their key is not a conflict either: a 422 would reveal the key exists.
    expect((await postLead(s.t, s.tokens.crm, { ...LEAD, name: "Outra" }, { "idempotency-key": key })).status).toBe(
      201,
    );
  });

  test("keys are per client even on a shared database", async () => {
    const key = "shared-db-key";
    const first = (await (await postLead(s.t, s.tokens.portal, LEAD, { "idempotency-key": key })).json()) as {
      data: { id: string };
    };
    const sibling = await postLead(s.t, s.tokens.crm, LEAD, { "idempotency-key": key });
    expect(sibling.status).toBe(201);
    expect(((await sibling.json()) as { data: { id: string } }).data.id).not.toBe(first.data.id);
  });

  test("a propertyCode that exists only in another database links nothing", async () => {
    const codes = s.ids(s.rivalPath, "SELECT code FROM properties WHERE is_published = 1 AND code IS NOT NULL");
    const mineCodes = s.ids(s.mainPath, "SELECT code FROM properties WHERE code IS NOT NULL");
    const foreignCode = [...codes].find((c) => !mineCodes.has(c));
    if (foreignCode === undefined) throw new Error("seeds share every code; pick other seeds");
    const body = (await (await postLead(s.t, s.tokens.portal, { ...LEAD, propertyCode: foreignCode })).json()) as {
      data: Record<string, unknown>;
    };
    expect(body.data).toMatchObject({ propertyId: null, interestedPropertyTitle: null });
  });

  test("values of free-text fields come from the caller's database only", async () => {
    const response = await s.t.get("/v1/values/properties/propertyType", s.tokens.rival);
    const values = ((await response.json()) as { data: { values: string[] } }).data.values;
    const rivalTypes = s.ids(
      s.rivalPath,
      "SELECT DISTINCT property_type FROM properties WHERE is_published = 1 AND property_type IS NOT NULL",
    );
    expect(new Set(values)).toEqual(rivalTypes);
  });
});
