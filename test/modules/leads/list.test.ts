// GET /v1/leads and GET /v1/leads/{id}, and tenant isolation between databases.
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LEAD_STATUSES } from "../../../src/catalog/enums.ts";
import { client, createTestApp, read, seededDatabase, type TestApp } from "../../helpers/app.ts";

const portal = client("portal");
const rival = client("rival", { database: "rival" });
let t: TestApp;
let token: string;
let rivalToken: string;
let db: Database;

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), "pa-leads-"));
  // Two tenants: the same generator with different seeds gives disjoint ids.
  t = createTestApp({
    clients: [portal.entry, rival.entry],
    databases: { main: seededDatabase(dir, 100, 300, 42), rival: seededDatabase(dir, 100, 300, 7) },
  });
  token = await t.token(portal);
  rivalToken = await t.token(rival);
  db = new Database(t.runtime.config.databases.get("main")!, { readonly: true });
});
afterAll(() => {
  db.close();
  t.close();
});

const list = async (query: string, bearer = token) => read(await t.get(`/v1/leads?${query}`, bearer));

describe("GET /v1/leads", () => {
  test("returns requested fields with an exact total", async () => {
    const { status, body } = await list("fields=id,name,status,priority&limit=5");
    expect(status).toBe(200);
    expect(Object.keys(body.data[0])).toEqual(["id", "name", "status", "priority"]);
    expect(body.meta.total).toBe(db.query("SELECT count(*) FROM leads").values()[0]![0] as number);
  });

  test("status, source and priority filters match the stored rows", async () => {
    for (const [query, where, value] of [
      ["status=CONVERTED", "status", "CONVERTED"],
      ["source=WHATSAPP", "source", "WHATSAPP"],
      ["priority=URGENT", "priority", "URGENT"],
    ] as const) {
      const { body } = await list(`fields=id,${where}&limit=100&${query}`);
      const expected = db.query(`SELECT count(*) FROM leads WHERE ${where} = ?`).values(value)[0]![0] as number;
      expect(body.meta.total).toBe(expected);
      expect(body.data.every((r: Record<string, string>) => r[where] === value)).toBe(true);
    }
  });

  test("a property status is not a lead status", async () => {
    const { status, body } = await list("fields=id&status=AVAILABLE");
    expect(status).toBe(400);
    expect(body.error).toBe(`status: must be one of: ${LEAD_STATUSES.join(", ")}`);
  });

  test("date filters and sort by updatedAt", async () => {
    const { body } = await list("fields=id,updatedAt&updatedAfter=2025-06-01T00:00:00Z&sort=updatedAt&limit=100");
    const expected = db
      .query("SELECT count(*) FROM leads WHERE updated_at > ?")
      .values("2025-06-01T00:00:00.000Z")[0]![0] as number;
    expect(body.meta.total).toBe(expected);
    const stamps = body.data.map((r: { updatedAt: string }) => r.updatedAt);
    expect(stamps).toEqual([...stamps].sort());
  });

  test("input-only names are not readable fields", async () => {
    expect((await list("fields=id,interestedPropertyLink,trafficOrigin")).body).toEqual({
      error: "Invalid fields: interestedPropertyLink, trafficOrigin",
      code: "INVALID_FIELDS",
    });
  });
});

describe("tenants never see each other's rows", () => {
  test("lists of two clients on different databases share no id", async () => {
    const mine = (await list("fields=id&limit=100")).body.data.map((r: { id: string }) => r.id);
    const theirs = (await list("fields=id&limit=100", rivalToken)).body.data.map((r: { id: string }) => r.id);
    expect(mine.filter((id: string) => theirs.includes(id))).toEqual([]);
  });

  test("another tenant's lead or property id is 404, exactly like a missing one", async () => {
    const theirLead = (await list("fields=id&limit=1", rivalToken)).body.data[0].id;
    const missing = await read(await t.get("/v1/leads/00000000-0000-4000-8000-000000000000?fields=id", token));
    const foreign = await read(await t.get(`/v1/leads/${theirLead}?fields=id`, token));
    expect(foreign.status).toBe(404);
    expect(foreign.body.code).toBe(missing.body.code);
    const theirProperty = (await read(await t.get("/v1/properties?fields=id&limit=1", rivalToken))).body.data[0].id;
    expect((await t.get(`/v1/properties/${theirProperty}?fields=id`, token)).status).toBe(404);
  });

  test("a lead created by one client is invisible to the other", async () => {
    const response = await t.request("/v1/leads", {
      method: "POST",
      headers: { authorization: `Bearer ${rivalToken}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "Rival", email: "r@example.com", phone: "1", message: "m" }),
    });
    const id = ((await response.json()) as { data: { id: string } }).data.id;
    expect((await t.get(`/v1/leads/${id}?fields=id`, rivalToken)).status).toBe(200);
    expect((await t.get(`/v1/leads/${id}?fields=id`, token)).status).toBe(404);
  });
});

describe("lists stay exact when another connection writes the file", () => {
  test("a lead inserted by another process-like connection shows in the next total", async () => {
    const before = (await list("fields=id&status=LOST")).body.meta.total;
    // Same query again is served from the page cache…
    expect((await list("fields=id&status=LOST")).body.meta.total).toBe(before);
    const writer = new Database(t.runtime.config.databases.get("main")!);
    writer.run(
      "INSERT INTO leads (id, name, email, phone, message, source, status, priority, created_at, updated_at) VALUES " +
        "('ext-1', 'Ext', 'e@example.com', '1', 'm', 'API', 'LOST', 'LOW', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')",
    );
    writer.close();
    // …but not once the database has changed under it.
    const after = await list("fields=id&status=LOST");
    expect(after.body.meta.total).toBe(before + 1);
    expect((await t.get("/v1/leads/ext-1?fields=id", token)).status).toBe(200);
  });
});
