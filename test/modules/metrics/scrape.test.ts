// GET /metrics through the real app: each finished request is counted by route template and
// status, 429s by client, authentication failures by code, new leads, and database sizes.
import { afterEach, describe, expect, test } from "bun:test";
import { statSync } from "node:fs";
import { NO_CLIENT, UNMATCHED_ROUTE } from "../../../src/metrics/requests.ts";
import { sandboxApp } from "../../docs/sandbox.ts";
import { client, createTestApp, type TestApp } from "../../helpers/app.ts";
import { parseExposition, type Sample, sampleValue } from "../../metrics/parse.ts";

const portal = client("portal", { rateLimitPerMinute: 1000 });
let t: TestApp;

afterEach(() => t?.close());

/** onAfterResponse runs after the response is handed back, so let it run before scraping. */
async function scrape(app: TestApp): Promise<Sample[]> {
  await Bun.sleep(5);
  const response = await app.request("/metrics");
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
  return parseExposition(await response.text());
}

const requests = (labels: Record<string, string>) => ["partner_api_http_requests_total", labels] as const;

describe("requests by route template and status", () => {
  test("a request is counted under its route template, not its raw path, with its status", async () => {
    t = createTestApp({ environment: "sandbox", clients: [portal.entry] });
    const token = await t.token(portal);
    const list = (await (await t.get("/v1/properties?fields=id&limit=1", token)).json()) as { data: { id: string }[] };
    const id = list.data[0]!.id;
    expect((await t.get(`/v1/properties/${id}?fields=id`, token)).status).toBe(200);
    expect((await t.get(`/v1/properties/${id}?fields=id`, token)).status).toBe(200);
    expect((await t.get("/v1/properties/no-such-id?fields=id", token)).status).toBe(404);

    const samples = await scrape(t);
    expect(sampleValue(samples, ...requests({ route: "/v1/properties/:id", method: "GET", status: "200" }))).toBe(2);
    expect(sampleValue(samples, ...requests({ route: "/v1/properties/:id", method: "GET", status: "404" }))).toBe(1);
    expect(sampleValue(samples, ...requests({ route: "/v1/properties", method: "GET", status: "200" }))).toBe(1);
    expect(sampleValue(samples, ...requests({ route: "/v1/auth/token", method: "POST", status: "200" }))).toBe(1);
    expect(samples.some((s) => s.labels.route?.includes(id))).toBe(false);
    expect(
      sampleValue(samples, "partner_api_http_request_duration_seconds_count", {
        route: "/v1/properties/:id",
        method: "GET",
      }),
    ).toBe(3);
  });

  test("unknown paths and wrong methods are counted under one fixed label", async () => {
    t = createTestApp({ environment: "sandbox", clients: [portal.entry] });
    await t.request("/no/such/path/1");
    await t.request("/no/such/path/2");
    await t.request("/health", { method: "DELETE" });
    const samples = await scrape(t);
    expect(sampleValue(samples, ...requests({ route: UNMATCHED_ROUTE, method: "GET", status: "404" }))).toBe(2);
    expect(sampleValue(samples, ...requests({ route: UNMATCHED_ROUTE, method: "DELETE", status: "405" }))).toBe(1);
    expect(samples.some((s) => s.labels.route?.startsWith("/no/"))).toBe(false);
  });
});

describe("429s by client", () => {
  test("a client over its limit is counted under its configured id", async () => {
    const limited = client("limited", { rateLimitPerMinute: 2 });
    t = createTestApp({ environment: "sandbox", clients: [limited.entry] });
    const token = await t.token(limited);
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await t.get("/v1/fields", token)).status);
    expect(statuses).toEqual([200, 200, 429, 429]);
    expect(sampleValue(await scrape(t), "partner_api_rate_limited_total", { client: "limited" })).toBe(2);
  });

  test("an address throttled for failed logins is counted as unauthenticated", async () => {
    t = createTestApp({ environment: "sandbox", clients: [portal.entry] });
    const bad = { method: "POST", headers: { "x-api-key": portal.apiKey, "x-api-secret": "wrong" } };
    for (let i = 0; i < 20; i++) expect((await t.request("/v1/auth/token", bad)).status).toBe(401);
    expect((await t.request("/v1/auth/token", bad)).status).toBe(429);
    const samples = await scrape(t);
    expect(sampleValue(samples, "partner_api_rate_limited_total", { client: NO_CLIENT })).toBe(1);
    expect(sampleValue(samples, "partner_api_auth_failures_total", { code: "INVALID_API_SECRET" })).toBe(20);
  });
});

describe("authentication failures by code", () => {
  test("token-endpoint failures and refused bearer tokens are counted by their code", async () => {
    t = createTestApp({ environment: "sandbox", clients: [portal.entry] });
    await t.request("/v1/auth/token", { method: "POST" });
    await t.request("/v1/auth/token", {
      method: "POST",
      headers: { "x-api-key": "pk_live_nobody", "x-api-secret": "x" },
    });
    await t.get("/v1/fields", "not-a-token");
    await t.request("/v1/fields");
    const samples = await scrape(t);
    expect(sampleValue(samples, "partner_api_auth_failures_total", { code: "MISSING_CREDENTIALS" })).toBe(1);
    expect(sampleValue(samples, "partner_api_auth_failures_total", { code: "INVALID_API_KEY" })).toBe(1);
    expect(sampleValue(samples, "partner_api_auth_failures_total", { code: "INVALID_TOKEN" })).toBe(2);
    expect(sampleValue(samples, "partner_api_auth_failures_total", { code: "INVALID_API_SECRET" })).toBe(0);
  });
});

describe("leads created", () => {
  test("a new lead counts once; its idempotent replay and a refused body do not", async () => {
    t = createTestApp({ environment: "sandbox", clients: [portal.entry] });
    const token = await t.token(portal);
    const post = (body: unknown, key?: string) =>
      t.request("/v1/leads", {
        method: "POST",
        headers: {
          authorization: `Bearer ${token}`,
          "content-type": "application/json",
          ...(key ? { "idempotency-key": key } : {}),
        },
        body: JSON.stringify(body),
      });
    const lead = { name: "Ana", email: "ana@example.com", phone: "+55 11 90000-0000", message: "Olá" };
    expect((await post(lead, "k-1")).status).toBe(201);
    const replay = await post(lead, "k-1");
    expect(replay.status).toBe(201);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect((await post({ ...lead, email: "nope" })).status).toBe(400);
    expect((await post({ ...lead, name: "Bia" })).status).toBe(201);
    const samples = await scrape(t);
    expect(sampleValue(samples, "partner_api_leads_created_total", {})).toBe(2);
    expect(sampleValue(samples, ...requests({ route: "/v1/leads", method: "POST", status: "201" }))).toBe(3);
  });
});

describe("database sizes", () => {
  test("each configured database's file and WAL sizes, read at scrape time", async () => {
    t = createTestApp({ environment: "sandbox", clients: [portal.entry] });
    const path = t.runtime.config.databases.get("main")!;
    const samples = await scrape(t);
    expect(sampleValue(samples, "partner_api_database_size_bytes", { database: "main", file: "main" })).toBe(
      statSync(path).size,
    );
    expect(
      sampleValue(samples, "partner_api_database_size_bytes", { database: "main", file: "wal" }),
    ).toBeGreaterThanOrEqual(0);
  });
});

describe("metrics off", () => {
  test("with a null registry no request is recorded: the scrape has no request family, only the facts and the process", async () => {
    const sandbox = sandboxApp({ metrics: null });
    try {
      await sandbox.request("/health");
      await Bun.sleep(5);
      const samples = parseExposition(await (await sandbox.request("/metrics")).text());
      const names = new Set(samples.map((s) => s.name));
      expect(
        [...names].filter((name) => name.startsWith("partner_api_http") || name === "partner_api_leads_created_total"),
      ).toEqual([]);
      expect(names.has("partner_api_build_info")).toBe(true);
      expect(names.has("process_resident_memory_bytes")).toBe(true);
      expect(
        sampleValue(samples, "partner_api_database_size_bytes", { database: "sandbox", file: "main" }),
      ).toBeGreaterThan(0);
    } finally {
      sandbox.close();
    }
  });
});
