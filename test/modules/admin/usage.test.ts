// What the agency sees (docs/operators/console.md#what-the-agency-sees): known traffic from
// several partners appears in each one's usage and in the request log, exactly; a refusal at the
// door counts under the key it claimed; no query value or body reaches the control database.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { client, read } from "../../helpers/app.ts";
import { type ConsoleApp, consoleApp, type Session } from "./helpers.ts";

const MARKER = "zq7marker";
const a = client("alpha");
const b = client("beta", { ipWhitelist: ["198.51.100.7"] });
const c = client("gamma", { scopes: ["properties:read"] });
const d = client("delta", { rateLimitPerMinute: 2 });

let t: ConsoleApp;
let owner: Session;

beforeAll(async () => {
  t = consoleApp({ clients: [a.entry, b.entry, c.entry, d.entry] });
  const { email, secret } = await t.admin("owner@agency.example", "owner");
  owner = await t.signIn(email, secret);
  const ta = await t.token(a);
  const listed = await t.get(`/v1/properties?fields=id&q=${MARKER}`, ta);
  expect(listed.status, await listed.clone().text()).toBe(200);
  expect((await t.get(`/v1/properties/${MARKER}?fields=id`, ta)).status).toBe(404);
  const lead = await t.request("/v1/leads", {
    method: "POST",
    headers: { authorization: `Bearer ${ta}`, "content-type": "application/json" },
    body: JSON.stringify({
      name: `Maria ${MARKER}`,
      email: "m@example.com",
      phone: "+55 11 98765-4321",
      message: MARKER,
    }),
  });
  expect(lead.status).toBe(201);
  // A wrong secret for alpha's key: a 401 counted under alpha.
  const wrong = await t.request("/v1/auth/token", {
    method: "POST",
    headers: { "x-api-key": a.apiKey, "x-api-secret": "not-the-secret" },
  });
  expect(wrong.status).toBe(401);
  // beta from an address off its list: 403 IP_BLOCKED, counted under beta.
  const blocked = await t.request("/v1/auth/token", {
    method: "POST",
    headers: { "x-api-key": b.apiKey, "x-api-secret": b.secret },
    peer: "203.0.113.99",
  });
  expect(blocked.status).toBe(403);
  await t.token(b, "198.51.100.7");
  // gamma reads leads without the scope: 403 INSUFFICIENT_SCOPE.
  const tc = await t.token(c);
  expect((await t.get("/v1/leads", tc)).status).toBe(403);
  // delta past its limit: 429.
  const td = await t.token(d);
  const statuses = [];
  for (let i = 0; i < 3; i++) statuses.push((await t.get("/v1/properties?fields=id", td)).status);
  expect(statuses).toEqual([200, 200, 429]);
  // No client: an unknown key and a path that does not exist.
  expect(
    (
      await t.request("/v1/auth/token", {
        method: "POST",
        headers: { "x-api-key": "pk_live_nobody", "x-api-secret": "x" },
      })
    ).status,
  ).toBe(401);
  expect((await t.request(`/v1/nothing-here?q=${MARKER}`)).status).toBe(404);
  // The access hooks run once each answer is out: let them.
  await Bun.sleep(20);
  await t.runtime.usage!.flush();
});
afterAll(() => t.close());

async function usage(id: string) {
  const { status, body } = await read(await owner.call(`/admin/v1/partners/${id}/usage?days=7`));
  expect(status).toBe(200);
  return body.data as {
    days: {
      date: string;
      requests: Record<string, number>;
      forbiddenByCode: Record<string, number>;
      leadsCreated: number;
      p50Ms: number | null;
      p95Ms: number | null;
    }[];
    lastSeen: { at: string; ip: string; route: string } | null;
  };
}

describe("per partner usage by day and outcome", () => {
  test("alpha: its 2xx, its 404, its lead, and the wrong secret sent with its key", async () => {
    const u = await usage("alpha");
    expect(u.days).toHaveLength(7);
    const today = u.days.at(-1)!;
    expect(today.date).toBe(new Date(t.clock.now()).toISOString().slice(0, 10));
    expect(today.requests).toEqual({ "2xx": 3, "3xx": 0, "401": 1, "403": 0, "404": 1, "429": 0, "4xx": 0, "5xx": 0 });
    expect(today.leadsCreated).toBe(1);
    expect(today.p50Ms).toBeGreaterThan(0);
    expect(today.p95Ms!).toBeGreaterThanOrEqual(today.p50Ms!);
    expect(u.days.slice(0, -1).every((d) => d.requests["2xx"] === 0 && d.p50Ms === null)).toBe(true);
    expect(u.lastSeen).toMatchObject({ ip: "203.0.113.10", route: "/v1/auth/token" });
  });

  test("beta: refused for its address at the door, then a token", async () => {
    const today = (await usage("beta")).days.at(-1)!;
    expect(today.requests["403"]).toBe(1);
    expect(today.forbiddenByCode).toEqual({ IP_BLOCKED: 1 });
    expect(today.requests["2xx"]).toBe(1);
  });

  test("gamma: 403 for a scope, by its code", async () => {
    const today = (await usage("gamma")).days.at(-1)!;
    expect(today.forbiddenByCode).toEqual({ INSUFFICIENT_SCOPE: 1 });
    expect(today.requests).toMatchObject({ "2xx": 1, "403": 1 });
  });

  test("delta: 429 past its limit", async () => {
    const today = (await usage("delta")).days.at(-1)!;
    expect(today.requests).toMatchObject({ "2xx": 3, "429": 1 });
  });

  test("an unknown partner is a 404; days out of range a 400", async () => {
    expect((await owner.call("/admin/v1/partners/nobody/usage")).status).toBe(404);
    expect((await owner.call("/admin/v1/partners/alpha/usage?days=91")).status).toBe(400);
  });

  test("the partner list says when each was last seen", async () => {
    const { body } = await read(await owner.call("/admin/v1/partners"));
    const seen = Object.fromEntries(
      (body.data as { id: string; lastSeenAt: string | null }[]).map((p) => [p.id, p.lastSeenAt]),
    );
    expect(seen.alpha).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect(seen.delta).not.toBeNull();
  });
});

describe("the request log", () => {
  test("every request, newest first, with no client for the unknown key and the unknown path", async () => {
    const { body } = await read(await owner.call("/admin/v1/requests?limit=100"));
    // alpha 5, beta 2, gamma 2, delta 4, nobody 2; the admin's own calls are not logged.
    expect(body.meta.total).toBe(15);
    expect(body.data[0]).toMatchObject({ client: null, method: "GET", route: null, status: 404, code: "NOT_FOUND" });
    expect(Object.keys(body.data[0]).sort()).toEqual(
      ["at", "client", "code", "ip", "latencyMs", "method", "requestId", "route", "status"].sort(),
    );
  });

  test("filtered by client, status, address and time", async () => {
    const byClient = await read(await owner.call("/admin/v1/requests?client=delta"));
    expect(byClient.body.data.map((r: { status: number }) => r.status)).toEqual([429, 200, 200, 200]);
    const forbidden = await read(await owner.call("/admin/v1/requests?status=403"));
    expect(forbidden.body.data.map((r: { code: string }) => r.code).sort()).toEqual([
      "INSUFFICIENT_SCOPE",
      "IP_BLOCKED",
    ]);
    const clientErrors = await read(await owner.call("/admin/v1/requests?status=4xx"));
    expect(clientErrors.body.meta.total).toBe(7);
    const byIp = await read(await owner.call("/admin/v1/requests?ip=198.51.100.7"));
    expect(byIp.body.data).toHaveLength(1);
    expect(byIp.body.data[0]).toMatchObject({ client: "beta", route: "/v1/auth/token", status: 200 });
    const later = new Date(t.clock.now() + 60_000).toISOString();
    expect((await read(await owner.call(`/admin/v1/requests?since=${later}`))).body.meta.total).toBe(0);
    expect((await read(await owner.call(`/admin/v1/requests?until=${later}`))).body.meta.total).toBe(15);
    expect((await owner.call("/admin/v1/requests?status=abc")).status).toBe(400);
    expect((await owner.call("/admin/v1/requests?ip=nope")).status).toBe(400);
  });

  test("no query value and no body is stored in the control database's file", () => {
    t.store.db.run("PRAGMA wal_checkpoint(TRUNCATE)");
    const bytes = readFileSync(join(t.dir, "control.sqlite"));
    expect(bytes.includes(Buffer.from("Maria"))).toBe(false);
    expect(bytes.includes(Buffer.from(MARKER))).toBe(false);
    // The routes are there, as their templates.
    expect(bytes.includes(Buffer.from("/v1/properties/:id"))).toBe(true);
  });
});

describe("leads by origin", () => {
  test("the lead alpha created counts under its source and partner, by status", async () => {
    const { status, body } = await read(await owner.call("/admin/v1/leads/origins?months=2"));
    expect(status).toBe(200);
    const alpha = (body.data as { partner: string | null; byStatus: Record<string, number>; source: string }[]).filter(
      (r) => r.partner === "alpha",
    );
    expect(alpha).toHaveLength(1);
    expect(alpha[0]).toMatchObject({ source: "API", byStatus: { NEW_LEAD: 1 }, total: 1 });
  });
});
