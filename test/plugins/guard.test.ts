// The guard of every protected route (docs/reference/behaviour.md §4, §5, §7): token checks per RFC 8725, client,
// enabled flag, IP whitelist on every request, database, and the order of those checks.
import { afterEach, describe, expect, test } from "bun:test";
import { SignJWT } from "jose";
import { client, createTestApp, JWT_SECRET, read, type TestApp } from "../helpers/app.ts";

const portal = client("portal");
let t: TestApp;
afterEach(() => t?.close());

const key = new TextEncoder().encode(JWT_SECRET);
/** The tag of portal's current credentials, as the server puts in the tokens it issues. */
const credentialTag = () => t.runtime.tokens.credentialTag(t.runtime.config.clients.get("portal")!);
const claims = (now: number, extra: Record<string, unknown> = {}) => ({
  iss: "partner-api",
  sub: "portal",
  env: "production",
  iat: Math.floor(now / 1000),
  exp: Math.floor(now / 1000) + 3600,
  jti: "j",
  cred: credentialTag(),
  ...extra,
});
const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");

/** A 401 of a bearer route for a token that was sent but is no good (RFC 6750 §3.1: `invalid_token`). */
async function expectInvalidToken(response: Response) {
  const { status, body, headers } = await read(response);
  expect(status).toBe(401);
  expect(body).toEqual({ error: "Invalid or expired token", code: "INVALID_TOKEN" });
  expect(headers.get("www-authenticate")).toBe('Bearer realm="partner-api", error="invalid_token"');
}

/** A 401 of a bearer route for a request that carried no bearer token: the challenge without an error code. */
async function expectMissingToken(response: Response) {
  const { status, body, headers } = await read(response);
  expect(status).toBe(401);
  expect(body).toEqual({
    error: "Missing bearer token: send Authorization: Bearer <token from POST /v1/auth/token>",
    code: "INVALID_TOKEN",
  });
  expect(headers.get("www-authenticate")).toBe('Bearer realm="partner-api"');
}

describe("tokens are verified per RFC 8725", () => {
  test("a valid token opens a protected route", async () => {
    t = createTestApp({ clients: [portal.entry] });
    expect((await t.get("/v1/fields", await t.token(portal))).status).toBe(200);
  });

  test("no bearer token (no header, an empty one, another scheme) → 401 INVALID_TOKEN saying so, with the Bearer challenge", async () => {
    t = createTestApp({ clients: [portal.entry] });
    const tok = await t.token(portal);
    await expectMissingToken(await t.request("/v1/fields"));
    await expectMissingToken(await t.request("/v1/fields", { headers: { authorization: "Bearer" } }));
    await expectMissingToken(await t.request("/v1/fields", { headers: { authorization: "Bearer   " } }));
    await expectMissingToken(await t.request("/v1/fields", { headers: { authorization: `Basic ${tok}` } }));
  });

  test('a malformed token → 401 INVALID_TOKEN with error="invalid_token" in the challenge', async () => {
    t = createTestApp({ clients: [portal.entry] });
    await expectInvalidToken(await t.request("/v1/fields", { headers: { authorization: "Bearer not.a.jwt" } }));
  });

  test("a forged alg:none token is refused", async () => {
    t = createTestApp({ clients: [portal.entry] });
    const forged = `${b64({ alg: "none", typ: "JWT" })}.${b64(claims(t.clock.now()))}.`;
    await expectInvalidToken(await t.get("/v1/fields", forged));
    await expectInvalidToken(await t.get("/v1/fields", `${forged}AAAA`));
  });

  test("a token signed with another secret is refused", async () => {
    t = createTestApp({ clients: [portal.entry] });
    const other = await new SignJWT(claims(t.clock.now()))
      .setProtectedHeader({ alg: "HS256" })
      .sign(new TextEncoder().encode("another-secret-also-long-enough-0123456789"));
    await expectInvalidToken(await t.get("/v1/fields", other));
  });

  test("a token signed HS512 with the right secret is refused", async () => {
    t = createTestApp({ clients: [portal.entry] });
    const hs512 = await new SignJWT(claims(t.clock.now())).setProtectedHeader({ alg: "HS512" }).sign(key);
    await expectInvalidToken(await t.get("/v1/fields", hs512));
  });

  test("a correctly signed HS256 token is accepted (the forging above is the only difference)", async () => {
    t = createTestApp({ clients: [portal.entry] });
    const good = await new SignJWT(claims(t.clock.now())).setProtectedHeader({ alg: "HS256", typ: "JWT" }).sign(key);
    expect((await t.get("/v1/fields", good)).status).toBe(200);
  });

  test("a token without exp, iat or sub is refused", async () => {
    t = createTestApp({ clients: [portal.entry] });
    for (const missing of ["exp", "iat", "sub"]) {
      const body = claims(t.clock.now());
      delete (body as Record<string, unknown>)[missing];
      const token = await new SignJWT(body).setProtectedHeader({ alg: "HS256" }).sign(key);
      await expectInvalidToken(await t.get("/v1/fields", token));
    }
  });

  test("a token living longer than 3600 s is refused, however it is signed", async () => {
    t = createTestApp({ clients: [portal.entry] });
    const now = t.clock.now();
    const long = await new SignJWT(claims(now, { exp: Math.floor(now / 1000) + 3601 }))
      .setProtectedHeader({ alg: "HS256" })
      .sign(key);
    await expectInvalidToken(await t.get("/v1/fields", long));
    const exact = await new SignJWT(claims(now, { exp: Math.floor(now / 1000) + 3600 }))
      .setProtectedHeader({ alg: "HS256" })
      .sign(key);
    expect((await t.get("/v1/fields", exact)).status).toBe(200);
  });

  test("a token without the credentials tag, or with another one, is refused", async () => {
    t = createTestApp({ clients: [portal.entry] });
    const body = claims(t.clock.now());
    delete (body as Record<string, unknown>).cred;
    await expectInvalidToken(
      await t.get("/v1/fields", await new SignJWT(body).setProtectedHeader({ alg: "HS256" }).sign(key)),
    );
    const other = await new SignJWT(claims(t.clock.now(), { cred: "AAAAAAAAAAAAAAAAAAAAAA" }))
      .setProtectedHeader({ alg: "HS256" })
      .sign(key);
    await expectInvalidToken(await t.get("/v1/fields", other));
  });

  test("a token with another issuer is refused", async () => {
    t = createTestApp({ clients: [portal.entry] });
    const token = await new SignJWT(claims(t.clock.now(), { iss: "someone" }))
      .setProtectedHeader({ alg: "HS256" })
      .sign(key);
    await expectInvalidToken(await t.get("/v1/fields", token));
  });

  test("a token expires after 3600 s (injected clock), cached or not", async () => {
    t = createTestApp({ clients: [portal.entry] });
    const token = await t.token(portal);
    expect((await t.get("/v1/fields", token)).status).toBe(200);
    t.clock.advance(3_599_000);
    expect((await t.get("/v1/fields", token)).status).toBe(200);
    t.clock.advance(1_000);
    await expectInvalidToken(await t.get("/v1/fields", token));
  });

  test("a production token is refused by a sandbox and a sandbox token by production", async () => {
    t = createTestApp({ clients: [portal.entry] });
    const production = await t.token(portal);
    const sandboxToken = await new SignJWT(claims(t.clock.now(), { env: "sandbox" }))
      .setProtectedHeader({ alg: "HS256" })
      .sign(key);
    await expectInvalidToken(await t.get("/v1/fields", sandboxToken));
    t.close();

    t = createTestApp({ environment: "sandbox", clients: [portal.entry] });
    await expectInvalidToken(await t.get("/v1/fields", production));
    expect((await t.get("/v1/fields", sandboxToken)).status).toBe(200);
  });

  test("a token for a client id that no longer exists is refused", async () => {
    const gone = client("gone");
    t = createTestApp({ clients: [portal.entry, gone.entry] });
    const token = await t.token(gone);
    expect((await t.get("/v1/fields", token)).status).toBe(200);
    t.reload({ clients: [portal.entry] });
    await expectInvalidToken(await t.get("/v1/fields", token));
  });
});

describe("a token is bound to the credentials that obtained it (docs/reference/behaviour.md §5)", () => {
  const rotated = { apiKey: "pk_live_portal_new_key", secretHash: client("rotated").entry.secretHash };
  const rotatedClient = { id: "portal", apiKey: rotated.apiKey, secret: client("rotated").secret };

  test("a new key and secret for the same client id (SIGHUP) revoke every token issued under the old pair at once", async () => {
    t = createTestApp({ clients: [portal.entry] });
    const old = await t.token(portal);
    expect((await t.get("/v1/fields", old)).status).toBe(200);
    t.reload({ clients: [{ ...portal.entry, ...rotated }] });
    await expectInvalidToken(await t.get("/v1/fields", old));
    const fresh = await t.token(rotatedClient);
    expect((await t.get("/v1/fields", fresh)).status).toBe(200);
  });

  test("a new secret alone, or a new key alone, revokes them too", async () => {
    for (const change of [{ secretHash: rotated.secretHash }, { apiKey: rotated.apiKey }]) {
      t = createTestApp({ clients: [portal.entry] });
      const old = await t.token(portal);
      t.reload({ clients: [{ ...portal.entry, ...change }] });
      await expectInvalidToken(await t.get("/v1/fields", old));
      t.close();
    }
  });

  test("a reload that leaves the key and secret alone keeps the tokens valid", async () => {
    t = createTestApp({ clients: [portal.entry] });
    const token = await t.token(portal);
    t.reload({ clients: [{ ...portal.entry, rateLimitPerMinute: 500, name: "Portal renamed" }] });
    expect((await t.get("/v1/fields", token)).status).toBe(200);
  });

  test("another client's token does not open this client's account after it takes the old credentials' id", async () => {
    const other = client("other");
    t = createTestApp({ clients: [portal.entry, other.entry] });
    const token = await t.token(other);
    // The operator renames: "other" disappears and its key pair now belongs to "portal".
    t.reload({ clients: [{ ...other.entry, id: "portal" }] });
    await expectInvalidToken(await t.get("/v1/fields", token));
  });
});

describe("config reloads apply to live tokens", () => {
  test("disabling a client (SIGHUP) refuses its live token with 403 API_DISABLED", async () => {
    t = createTestApp({ clients: [portal.entry] });
    const token = await t.token(portal);
    expect((await t.get("/v1/fields", token)).status).toBe(200);
    t.reload({ clients: [{ ...portal.entry, enabled: false }] });
    const { status, body, headers } = await read(await t.get("/v1/fields", token));
    expect(status).toBe(403);
    expect(body).toEqual({ error: "API access disabled for this client", code: "API_DISABLED" });
    expect(headers.get("x-ratelimit-limit")).toBe("1000");
  });

  test("a whitelist added by reload blocks a live token from another IP, on every request", async () => {
    t = createTestApp({ clients: [portal.entry] });
    const token = await t.token(portal, "192.0.2.5");
    t.reload({ clients: [{ ...portal.entry, ipWhitelist: ["192.0.2.0/28"] }] });
    expect((await t.get("/v1/fields", token, "192.0.2.5")).status).toBe(200);
    const { status, body } = await read(await t.get("/v1/fields", token, "192.0.2.200"));
    expect(status).toBe(403);
    expect(body).toEqual({ error: "IP not allowed", code: "IP_BLOCKED" });
  });
});

describe("the guard's order: token → client → enabled → IP → database → rate limit", () => {
  test("a disabled client from a blocked IP gets API_DISABLED", async () => {
    const both = client("both", { ipWhitelist: ["198.51.100.0/24"] });
    t = createTestApp({ clients: [both.entry] });
    const token = await t.token(both, "198.51.100.1");
    t.reload({ clients: [{ ...both.entry, enabled: false }] });
    expect((await read(await t.get("/v1/fields", token, "192.0.2.1"))).body.code).toBe("API_DISABLED");
  });

  test("a client whose database disappears from the config gets NO_DATABASE", async () => {
    t = createTestApp({ clients: [portal.entry] });
    const token = await t.token(portal);
    t.reload({ databases: {} });
    const { status, body } = await read(await t.get("/v1/fields", token));
    expect(status).toBe(403);
    expect(body).toEqual({ error: "Client database not configured", code: "NO_DATABASE" });
  });

  test("invalid bearer tokens drain the IP's bucket until 429", async () => {
    t = createTestApp({ clients: [portal.entry] });
    const statuses: number[] = [];
    for (let i = 0; i < 22; i++) statuses.push((await t.get("/v1/fields", "junk", "192.0.2.99")).status);
    expect(statuses.filter((s) => s === 401).length).toBe(20);
    expect(statuses.slice(20)).toEqual([429, 429]);
    // A valid token from the same address still gets through: successes are never throttled.
    expect((await t.get("/v1/fields", await t.token(portal, "192.0.2.98"), "192.0.2.99")).status).toBe(200);
  });

  test("authenticated responses are not cacheable and carry nosniff and a request id", async () => {
    t = createTestApp({ clients: [portal.entry] });
    const response = await t.get("/v1/fields", await t.token(portal));
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    expect(response.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe("client IP (docs/reference/behaviour.md §7)", () => {
  const proxied = client("proxied", { ipWhitelist: ["198.51.100.7", "2001:db8::/32"] });

  test("X-Forwarded-For from an untrusted peer is ignored", async () => {
    t = createTestApp({ clients: [proxied.entry], trustedProxies: ["10.0.0.0/8"] });
    const response = await t.request("/v1/auth/token", {
      method: "POST",
      peer: "192.0.2.1",
      headers: { "x-api-key": proxied.apiKey, "x-api-secret": proxied.secret, "x-forwarded-for": "198.51.100.7" },
    });
    expect((await read(response)).body.code).toBe("IP_BLOCKED");
  });

  test("X-Forwarded-For from a trusted proxy is honoured: right-most untrusted address", async () => {
    t = createTestApp({ clients: [proxied.entry], trustedProxies: ["10.0.0.0/8"] });
    const response = await t.request("/v1/auth/token", {
      method: "POST",
      peer: "10.1.2.3",
      headers: {
        "x-api-key": proxied.apiKey,
        "x-api-secret": proxied.secret,
        // The client forged the first entry; the proxy chain appended the real one and itself.
        "x-forwarded-for": "192.0.2.66, 198.51.100.7, 10.9.9.9",
      },
    });
    expect(response.status).toBe(200);
  });

  test("a forged left-most entry does not help an attacker behind a trusted proxy", async () => {
    t = createTestApp({ clients: [proxied.entry], trustedProxies: ["10.0.0.0/8"] });
    const response = await t.request("/v1/auth/token", {
      method: "POST",
      peer: "10.1.2.3",
      headers: {
        "x-api-key": proxied.apiKey,
        "x-api-secret": proxied.secret,
        "x-forwarded-for": "198.51.100.7, 192.0.2.66",
      },
    });
    expect((await read(response)).body.code).toBe("IP_BLOCKED");
  });

  test("IPv6 peers match IPv6 ranges; IPv4-mapped IPv6 equals its IPv4 form", async () => {
    t = createTestApp({ clients: [proxied.entry] });
    const ask = (peer: string) =>
      t.request("/v1/auth/token", {
        method: "POST",
        peer,
        headers: { "x-api-key": proxied.apiKey, "x-api-secret": proxied.secret },
      });
    expect((await ask("2001:db8::1")).status).toBe(200);
    expect((await ask("2001:db9::1")).status).toBe(403);
    expect((await ask("::ffff:198.51.100.7")).status).toBe(200);
    expect((await ask("::ffff:198.51.100.8")).status).toBe(403);
  });

  test("a request with no known peer address is refused", async () => {
    t = createTestApp({ clients: [portal.entry] });
    const response = await t.request("/v1/auth/token", {
      method: "POST",
      peer: "not-an-address",
      headers: { "x-api-key": portal.apiKey, "x-api-secret": portal.secret },
    });
    expect((await read(response)).body.code).toBe("IP_BLOCKED");
  });
});
