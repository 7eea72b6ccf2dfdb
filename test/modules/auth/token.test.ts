// POST /v1/auth/token: happy path, every error code in docs/reference/behaviour.md §4's order, and throttling.
import { afterEach, describe, expect, test } from "bun:test";
import { decodeJwt, decodeProtectedHeader } from "jose";
import { client, createTestApp, read, type TestApp } from "../../helpers/app.ts";

const portal = client("portal");
const disabled = client("disabled", { enabled: false });
const walled = client("walled", { ipWhitelist: ["198.51.100.0/24"] });
const homeless = client("homeless", { database: "missing" });
const noDb = client("nodb", { database: undefined });

let t: TestApp;
afterEach(() => t?.close());

function tokenRequest(headers: Record<string, string>, peer?: string) {
  return t.request("/v1/auth/token", { method: "POST", headers, ...(peer ? { peer } : {}) });
}
const credentials = (c: { apiKey: string; secret: string }, secret = c.secret) => ({
  "x-api-key": c.apiKey,
  "x-api-secret": secret,
});

describe("POST /v1/auth/token issues a one-hour HS256 token", () => {
  test("valid credentials get token, expiresIn 3600 and tokenType Bearer, not cacheable", async () => {
    t = createTestApp({ clients: [portal.entry] });
    const response = await tokenRequest(credentials(portal));
    const { status, body, headers } = await read(response);
    expect(status).toBe(200);
    expect(body.data.expiresIn).toBe(3600);
    expect(body.data.tokenType).toBe("Bearer");
    expect(headers.get("cache-control")).toBe("no-store");
    expect(headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(decodeProtectedHeader(body.data.token).alg).toBe("HS256");
    const claims = decodeJwt(body.data.token);
    expect(claims).toMatchObject({ iss: "partner-api", sub: "portal", env: "production" });
    expect(claims.exp! - claims.iat!).toBe(3600);
    expect(typeof claims.jti).toBe("string");
  });

  test("a JSON content type and body are accepted and ignored", async () => {
    t = createTestApp({ clients: [portal.entry] });
    const response = await t.request("/v1/auth/token", {
      method: "POST",
      headers: { ...credentials(portal), "content-type": "application/json" },
      body: "{}",
    });
    expect(response.status).toBe(200);
  });
});

describe("token errors, with SPEC's messages and docs/reference/behaviour.md §4's statuses", () => {
  const cases: [string, () => Record<string, string>, number, string, string][] = [
    ["no headers", () => ({}), 401, "MISSING_CREDENTIALS", "X-API-Key and X-API-Secret headers are required"],
    [
      "key only",
      () => ({ "x-api-key": portal.apiKey }),
      401,
      "MISSING_CREDENTIALS",
      "X-API-Key and X-API-Secret headers are required",
    ],
    [
      "empty secret",
      () => ({ "x-api-key": portal.apiKey, "x-api-secret": "" }),
      401,
      "MISSING_CREDENTIALS",
      "X-API-Key and X-API-Secret headers are required",
    ],
    [
      "unknown key",
      () => ({ "x-api-key": "pk_live_nobody", "x-api-secret": "x" }),
      401,
      "INVALID_API_KEY",
      "Invalid API key",
    ],
    ["wrong secret", () => credentials(portal, "sk_live_wrong"), 401, "INVALID_API_SECRET", "Invalid API secret"],
    ["disabled client", () => credentials(disabled), 403, "API_DISABLED", "API access disabled for this client"],
    ["IP not on the whitelist", () => credentials(walled), 403, "IP_BLOCKED", "IP not allowed"],
    ["database not configured", () => credentials(noDb), 403, "NO_DATABASE", "Client database not configured"],
    ["database name unknown", () => credentials(homeless), 403, "NO_DATABASE", "Client database not configured"],
  ];
  for (const [name, headers, status, code, message] of cases) {
    test(`${name} → ${status} ${code}`, async () => {
      t = createTestApp({ clients: [portal.entry, disabled.entry, walled.entry, homeless.entry, noDb.entry] });
      const { status: got, body } = await read(await tokenRequest(headers()));
      expect(got).toBe(status);
      expect(body).toEqual({ error: message, code });
    });
  }

  test("a disabled client with a wrong secret gets INVALID_API_SECRET (secret is checked first)", async () => {
    t = createTestApp({ clients: [disabled.entry] });
    const { body } = await read(await tokenRequest(credentials(disabled, "sk_live_wrong")));
    expect(body.code).toBe("INVALID_API_SECRET");
  });

  test("from a non-whitelisted IP a wrong and a right secret get the same IP_BLOCKED (the IP is checked as soon as the key is known)", async () => {
    t = createTestApp({ clients: [walled.entry] });
    const wrong = await read(await tokenRequest(credentials(walled, "sk_live_wrong"), "192.0.2.1"));
    const right = await read(await tokenRequest(credentials(walled), "192.0.2.1"));
    expect(wrong.status).toBe(403);
    expect(wrong.body).toEqual({ error: "IP not allowed", code: "IP_BLOCKED" });
    expect(right.status).toBe(wrong.status);
    expect(right.body).toEqual(wrong.body);
  });

  test("a whitelisted IP gets its token", async () => {
    t = createTestApp({ clients: [walled.entry] });
    expect((await tokenRequest(credentials(walled), "198.51.100.77")).status).toBe(200);
  });

  test("a disabled client asked from off its whitelist gets IP_BLOCKED (the address is checked before anything about the client)", async () => {
    const both = client("both", { enabled: false, ipWhitelist: ["198.51.100.0/24"] });
    t = createTestApp({ clients: [both.entry] });
    const { body } = await read(await tokenRequest(credentials(both), "192.0.2.1"));
    expect(body.code).toBe("IP_BLOCKED");
  });

  test("a disabled client asked from its whitelist gets API_DISABLED", async () => {
    const both = client("both", { enabled: false, ipWhitelist: ["198.51.100.0/24"] });
    t = createTestApp({ clients: [both.entry] });
    const { body } = await read(await tokenRequest(credentials(both), "198.51.100.9"));
    expect(body.code).toBe("API_DISABLED");
  });
});

describe("sandbox credentials only work in the sandbox", () => {
  test("a pk_sandbox_ key is refused by production with INVALID_API_KEY", async () => {
    const sneaky = client("sneaky");
    t = createTestApp({ clients: [sneaky.entry] });
    // Production configs refuse such keys at load; this covers a key arriving at request time.
    const { status, body } = await read(
      await tokenRequest({ "x-api-key": "pk_sandbox_demo", "x-api-secret": "sk_sandbox_demo" }),
    );
    expect(status).toBe(401);
    expect(body.code).toBe("INVALID_API_KEY");
  });

  test("the sandbox accepts the published sandbox credentials", async () => {
    const sandbox = { ...client("sandbox").entry, apiKey: "pk_sandbox_demo", secretHash: client("x").entry.secretHash };
    t = createTestApp({ environment: "sandbox", clients: [sandbox] });
    expect((await tokenRequest({ "x-api-key": "pk_sandbox_demo", "x-api-secret": "sk_live_x_secret" })).status).toBe(
      200,
    );
  });
});

describe("failed authentication is throttled per source IP (20, refilled 20/min)", () => {
  test("25 wrong secrets from one IP end in 429; a correct secret from another IP still works", async () => {
    const other = client("other");
    t = createTestApp({ clients: [portal.entry, other.entry] });
    const statuses: number[] = [];
    let last: Response | undefined;
    for (let i = 0; i < 25; i++) {
      last = await tokenRequest(credentials(portal, "sk_live_wrong"), "192.0.2.50");
      statuses.push(last.status);
    }
    expect(statuses.slice(0, 20).every((s) => s === 401)).toBe(true);
    expect(statuses.slice(20).every((s) => s === 429)).toBe(true);
    const { body, headers } = await read(last!);
    expect(body).toEqual({ error: "Rate limit exceeded", code: "RATE_LIMIT_EXCEEDED" });
    expect(Number(headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(headers.get("x-ratelimit-limit")).toBe("20");
    expect(headers.get("x-ratelimit-remaining")).toBe("0");

    // Even the right secret from the throttled IP waits…
    expect((await tokenRequest(credentials(portal), "192.0.2.50")).status).toBe(429);
    // …while another address is untouched.
    expect((await tokenRequest(credentials(other), "192.0.2.51")).status).toBe(200);
  });

  test("the bucket refills with time: one attempt per 3 s", async () => {
    t = createTestApp({ clients: [portal.entry] });
    for (let i = 0; i < 20; i++) await tokenRequest(credentials(portal, "bad"), "192.0.2.60");
    expect((await tokenRequest(credentials(portal), "192.0.2.60")).status).toBe(429);
    t.clock.advance(3_000);
    expect((await tokenRequest(credentials(portal), "192.0.2.60")).status).toBe(200);
  });

  test("successes never drain the bucket", async () => {
    t = createTestApp({ clients: [portal.entry] });
    for (let i = 0; i < 30; i++) expect((await tokenRequest(credentials(portal), "192.0.2.70")).status).toBe(200);
  });

  test("failures report the bucket's figures", async () => {
    t = createTestApp({ clients: [portal.entry] });
    const { headers } = await read(await tokenRequest(credentials(portal, "bad"), "192.0.2.80"));
    expect(headers.get("x-ratelimit-limit")).toBe("20");
    expect(headers.get("x-ratelimit-remaining")).toBe("19");
  });
});
