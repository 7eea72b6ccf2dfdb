// Who may scrape GET /metrics (docs/reference/behaviour-extensions.md §12): anyone in the sandbox; in production only the
// bearer of the configured metrics token, and otherwise a 404 indistinguishable from no route.
import { afterEach, describe, expect, test } from "bun:test";
import { client, createTestApp, type TestApp } from "../../helpers/app.ts";

const METRICS_TOKEN = "metrics-token-0123456789abcdef";
const portal = client("portal");
let t: TestApp;

afterEach(() => t?.close());

async function unknownPathBody(app: TestApp) {
  return (await app.request("/no-such-route")).json();
}

describe("production", () => {
  test("without a metrics token in the config, /metrics is a 404 NOT_FOUND like any unknown path", async () => {
    t = createTestApp({ environment: "production", clients: [portal.entry] });
    const response = await t.request("/metrics");
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual(await unknownPathBody(t));
    expect((await t.request("/metrics", { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).status).toBe(404);
  });

  test("with a metrics token configured, only a request bearing it gets the scrape", async () => {
    t = createTestApp({ environment: "production", clients: [portal.entry] });
    t.reload({ metrics: { token: METRICS_TOKEN } });
    const statusWith = async (authorization?: string) =>
      (await t.request("/metrics", authorization ? { headers: { authorization } } : {})).status;
    expect(await statusWith()).toBe(404);
    expect(await statusWith(`Bearer ${METRICS_TOKEN}x`)).toBe(404);
    expect(await statusWith(`Bearer ${METRICS_TOKEN.slice(0, -1)}`)).toBe(404);
    expect(await statusWith(`Basic ${METRICS_TOKEN}`)).toBe(404);
    expect(await statusWith(METRICS_TOKEN)).toBe(404);
    expect(await statusWith(`Bearer ${METRICS_TOKEN}`)).toBe(200);
    expect(await statusWith(`bearer ${METRICS_TOKEN}`)).toBe(200);
  });

  test("a client's API token does not open /metrics", async () => {
    t = createTestApp({ environment: "production", clients: [portal.entry] });
    t.reload({ metrics: { token: METRICS_TOKEN } });
    const token = await t.token(portal);
    expect((await t.get("/metrics", token)).status).toBe(404);
  });

  test("removing the token on reload closes /metrics again", async () => {
    t = createTestApp({ environment: "production", clients: [portal.entry] });
    t.reload({ metrics: { token: METRICS_TOKEN } });
    expect((await t.request("/metrics", { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).status).toBe(200);
    t.reload({ metrics: undefined });
    expect((await t.request("/metrics", { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).status).toBe(404);
  });
});

describe("sandbox", () => {
  test("/metrics is open", async () => {
    t = createTestApp({ environment: "sandbox", clients: [portal.entry] });
    expect((await t.request("/metrics")).status).toBe(200);
  });
});

describe("outside the guard", () => {
  test("scrapes are not rate limited and carry no rate-limit headers", async () => {
    t = createTestApp({ environment: "sandbox", clients: [client("tiny", { rateLimitPerMinute: 1 }).entry] });
    for (let i = 0; i < 30; i++) {
      const response = await t.request("/metrics");
      expect(response.status).toBe(200);
      expect(response.headers.get("x-ratelimit-limit")).toBeNull();
    }
  });

  test("failed scrapes do not drain the address's failed-login allowance", async () => {
    t = createTestApp({ environment: "production", clients: [portal.entry] });
    for (let i = 0; i < 30; i++)
      expect((await t.request("/metrics", { headers: { authorization: "Bearer wrong" } })).status).toBe(404);
    expect(
      (
        await t.request("/v1/auth/token", {
          method: "POST",
          headers: { "x-api-key": portal.apiKey, "x-api-secret": portal.secret },
        })
      ).status,
    ).toBe(200);
  });
});
