// POST /v1/auth/token as OAuth 2.0 client credentials (RFC 6749 §4.4): both ways a client
// authenticates, the RFC's answers and errors, the header exchange's checks and order, and the
// same per-IP bucket of failed attempts.
import { afterEach, describe, expect, test } from "bun:test";
import { decodeJwt } from "jose";
import { client, createTestApp, read, type TestApp } from "../../helpers/app.ts";

const portal = client("portal");
const disabled = client("disabled", { enabled: false });
const walled = client("walled", { ipWhitelist: ["198.51.100.0/24"] });
const noDb = client("nodb", { database: undefined });

let t: TestApp;
afterEach(() => t?.close());

const FORM = "application/x-www-form-urlencoded";
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`;

function grant(form: Record<string, string>, headers: Record<string, string> = {}, peer?: string) {
  return t.request("/v1/auth/token", {
    method: "POST",
    headers: { "content-type": FORM, ...headers },
    body: new URLSearchParams(form).toString(),
    ...(peer ? { peer } : {}),
  });
}
const post = (c: { apiKey: string; secret: string }, secret = c.secret) => ({
  grant_type: "client_credentials",
  client_id: c.apiKey,
  client_secret: secret,
});
const viaBasic = (c: { apiKey: string; secret: string }, secret = c.secret) => ({
  authorization: basic(c.apiKey, secret),
});

describe("the client-credentials grant issues the header exchange's token", () => {
  test("client_secret_basic → 200 { access_token, token_type: Bearer, expires_in: 3600 }, not cacheable", async () => {
    t = createTestApp({ clients: [portal.entry] });
    const { status, body, headers } = await read(await grant({ grant_type: "client_credentials" }, viaBasic(portal)));
    expect(status).toBe(200);
    expect(Object.keys(body).sort()).toEqual(["access_token", "expires_in", "token_type"]);
    expect(body.token_type).toBe("Bearer");
    expect(body.expires_in).toBe(3600);
    expect(headers.get("cache-control")).toBe("no-store");
    expect(headers.get("pragma")).toBe("no-cache");
    expect(headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(decodeJwt(body.access_token)).toMatchObject({ iss: "partner-api", sub: "portal", env: "production" });
  });

  test("client_secret_post → 200, and the token opens the protected routes", async () => {
    t = createTestApp({ clients: [portal.entry] });
    const { status, body } = await read(await grant(post(portal)));
    expect(status).toBe(200);
    expect((await t.get("/v1/properties?fields=id", body.access_token)).status).toBe(200);
  });

  test("a content type with a charset parameter is still the form", async () => {
    t = createTestApp({ clients: [portal.entry] });
    const response = await grant(post(portal), { "content-type": `${FORM}; charset=UTF-8` });
    expect(response.status).toBe(200);
  });

  test("Basic user and password form-encoded before base64 (RFC 6749 §2.3.1) are read too", async () => {
    const odd = client("odd", { apiKey: "pk_live_odd key" });
    t = createTestApp({ clients: [odd.entry] });
    const encoded = `Basic ${Buffer.from(`pk_live_odd+key:${encodeURIComponent(odd.secret)}`).toString("base64")}`;
    expect((await grant({ grant_type: "client_credentials" }, { authorization: encoded })).status).toBe(200);
  });

  test("a client_id beside Basic auth naming the same client is accepted; the scope parameter is ignored", async () => {
    t = createTestApp({ clients: [portal.entry] });
    expect(
      (await grant({ grant_type: "client_credentials", client_id: portal.apiKey, scope: "anything" }, viaBasic(portal)))
        .status,
    ).toBe(200);
  });

  test("a request carrying X-API-Key is the header exchange, whatever body it sends", async () => {
    t = createTestApp({ clients: [portal.entry] });
    const headers = { "x-api-key": portal.apiKey, "x-api-secret": portal.secret };
    // curl -d '' and PHP's CURLOPT_POST send an empty form; a grant's form beside the headers is read as before too.
    for (const body of ["", "grant_type=client_credentials"]) {
      const { status, body: answer } = await read(
        await t.request("/v1/auth/token", { method: "POST", headers: { ...headers, "content-type": FORM }, body }),
      );
      expect({ body, status, shape: Object.keys(answer) }).toEqual({ body, status: 200, shape: ["data"] });
    }
  });

  test("the header exchange is unchanged beside it", async () => {
    t = createTestApp({ clients: [portal.entry] });
    const { status, body } = await read(
      await t.request("/v1/auth/token", {
        method: "POST",
        headers: { "x-api-key": portal.apiKey, "x-api-secret": portal.secret },
      }),
    );
    expect(status).toBe(200);
    expect(Object.keys(body.data).sort()).toEqual(["expiresIn", "token", "tokenType"]);
  });
});

describe("failures: { error, error_description, code } in the header exchange's order", () => {
  type Case = [string, () => Promise<Response>, number, string, string];
  const cases: Case[] = [
    [
      "no client authentication",
      () => grant({ grant_type: "client_credentials" }),
      401,
      "invalid_client",
      "MISSING_CREDENTIALS",
    ],
    [
      "client_id without client_secret",
      () => grant({ grant_type: "client_credentials", client_id: portal.apiKey }),
      401,
      "invalid_client",
      "MISSING_CREDENTIALS",
    ],
    [
      "a Basic header that is not base64 of key:secret",
      () => grant({ grant_type: "client_credentials" }, { authorization: "Basic bm9jb2xvbg==" }),
      401,
      "invalid_client",
      "MISSING_CREDENTIALS",
    ],
    [
      "unknown key",
      () => grant(post({ apiKey: "pk_live_nobody", secret: "x" })),
      401,
      "invalid_client",
      "INVALID_API_KEY",
    ],
    [
      "wrong secret by Basic",
      () => grant({ grant_type: "client_credentials" }, viaBasic(portal, "sk_live_wrong")),
      401,
      "invalid_client",
      "INVALID_API_SECRET",
    ],
    [
      "wrong secret in the form",
      () => grant(post(portal, "sk_live_wrong")),
      401,
      "invalid_client",
      "INVALID_API_SECRET",
    ],
    ["disabled client", () => grant(post(disabled)), 403, "unauthorized_client", "API_DISABLED"],
    ["address off the whitelist", () => grant(post(walled)), 403, "unauthorized_client", "IP_BLOCKED"],
    ["no database", () => grant(post(noDb)), 403, "unauthorized_client", "NO_DATABASE"],
    [
      "no grant_type",
      () => grant({ client_id: portal.apiKey, client_secret: portal.secret }),
      400,
      "invalid_request",
      "VALIDATION_ERROR",
    ],
    [
      "another grant",
      () => grant({ ...post(portal), grant_type: "password" }),
      400,
      "unsupported_grant_type",
      "VALIDATION_ERROR",
    ],
    [
      "a repeated parameter",
      () =>
        t.request("/v1/auth/token", {
          method: "POST",
          headers: { "content-type": FORM },
          body: `grant_type=client_credentials&grant_type=client_credentials&client_id=${portal.apiKey}&client_secret=${portal.secret}`,
        }),
      400,
      "invalid_request",
      "VALIDATION_ERROR",
    ],
    [
      "Basic and client_secret both",
      () => grant(post(portal), viaBasic(portal)),
      400,
      "invalid_request",
      "VALIDATION_ERROR",
    ],
    [
      "a client_id other than the Basic user",
      () => grant({ grant_type: "client_credentials", client_id: "pk_live_other" }, viaBasic(portal)),
      400,
      "invalid_request",
      "VALIDATION_ERROR",
    ],
    [
      "Basic auth with a JSON body",
      () =>
        t.request("/v1/auth/token", {
          method: "POST",
          headers: { ...viaBasic(portal), "content-type": "application/json" },
          body: "{}",
        }),
      415,
      "invalid_request",
      "UNSUPPORTED_MEDIA_TYPE",
    ],
  ];
  for (const [name, send, status, error, code] of cases) {
    test(`${name} → ${status} ${error} (${code})`, async () => {
      t = createTestApp({ clients: [portal.entry, disabled.entry, walled.entry, noDb.entry] });
      const response = await send();
      const { status: got, body, headers } = await read(response);
      expect({ status: got, error: body.error, code: body.code }).toEqual({ status, error, code });
      expect(Object.keys(body).sort()).toEqual(["code", "error", "error_description"]);
      expect(typeof body.error_description).toBe("string");
      expect(headers.get("cache-control")).toBe("no-store");
      expect(headers.get("www-authenticate")).toBe(error === "invalid_client" ? 'Basic realm="partner-api"' : null);
    });
  }

  test("a form over 64 KiB is a 413 and one that is not UTF-8 an invalid_request, both in the RFC's shape", async () => {
    t = createTestApp({ clients: [portal.entry] });
    const big = await read(await grant({ ...post(portal), pad: "x".repeat(70_000) }));
    expect({ status: big.status, error: big.body.error, code: big.body.code }).toEqual({
      status: 413,
      error: "invalid_request",
      code: "PAYLOAD_TOO_LARGE",
    });
    const latin1 = new Uint8Array([...new TextEncoder().encode("grant_type=client_credentials&client_id=caf"), 0xe9]);
    const bad = await read(
      await t.request("/v1/auth/token", { method: "POST", headers: { "content-type": FORM }, body: latin1 }),
    );
    expect({ status: bad.status, error: bad.body.error, code: bad.body.code }).toEqual({
      status: 400,
      error: "invalid_request",
      code: "VALIDATION_ERROR",
    });
  });

  test("from a non-whitelisted IP a wrong and a right secret get the same unauthorized_client (IP_BLOCKED)", async () => {
    t = createTestApp({ clients: [walled.entry] });
    const wrong = await read(await grant(post(walled, "sk_live_wrong"), {}, "192.0.2.1"));
    const right = await read(await grant(post(walled), {}, "192.0.2.1"));
    expect(wrong.status).toBe(403);
    expect(wrong.body.code).toBe("IP_BLOCKED");
    expect({ status: right.status, body: right.body }).toEqual({ status: wrong.status, body: wrong.body });
    expect((await grant(post(walled), {}, "198.51.100.7")).status).toBe(200);
  });

  test("a disabled client with a wrong secret gets invalid_client (the secret is checked first)", async () => {
    t = createTestApp({ clients: [disabled.entry] });
    const { status, body } = await read(await grant(post(disabled, "sk_live_wrong")));
    expect(status).toBe(401);
    expect(body.code).toBe("INVALID_API_SECRET");
  });

  test("a sandbox key is refused by production as invalid_client (INVALID_API_KEY)", async () => {
    t = createTestApp({ clients: [portal.entry] });
    const { status, body } = await read(await grant(post({ apiKey: "pk_sandbox_demo", secret: "sk_sandbox_demo" })));
    expect(status).toBe(401);
    expect(body).toMatchObject({ error: "invalid_client", code: "INVALID_API_KEY" });
  });
});

describe("failed grants drain the header exchange's per-IP bucket", () => {
  test("failures of both ways add up to 20, then 429 temporarily_unavailable with Retry-After, even for the right secret", async () => {
    t = createTestApp({ clients: [portal.entry] });
    const peer = "192.0.2.90";
    for (let i = 0; i < 10; i++) expect((await grant(post(portal, "bad"), {}, peer)).status).toBe(401);
    for (let i = 0; i < 9; i++) {
      const response = await t.request("/v1/auth/token", {
        method: "POST",
        headers: { "x-api-key": portal.apiKey, "x-api-secret": "bad" },
        peer,
      });
      expect(response.status).toBe(401);
    }
    // The 20th attempt: no client authentication at all is a failed attempt too.
    const last = await grant({ grant_type: "client_credentials" }, {}, peer);
    expect(last.status).toBe(401);
    expect(last.headers.get("x-ratelimit-remaining")).toBe("0");
    const { status, body, headers } = await read(await grant(post(portal), {}, peer));
    expect(status).toBe(429);
    expect(body).toMatchObject({ error: "temporarily_unavailable", code: "RATE_LIMIT_EXCEEDED" });
    expect(Number(headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(headers.get("x-ratelimit-limit")).toBe("20");
    // The header exchange is throttled too.
    expect(
      (
        await t.request("/v1/auth/token", {
          method: "POST",
          headers: { "x-api-key": portal.apiKey, "x-api-secret": portal.secret },
          peer,
        })
      ).status,
    ).toBe(429);
  });

  test("malformed requests (no grant) do not drain it; successes report its figures", async () => {
    t = createTestApp({ clients: [portal.entry] });
    const peer = "192.0.2.91";
    for (let i = 0; i < 25; i++)
      expect((await grant({ client_id: portal.apiKey, client_secret: portal.secret }, {}, peer)).status).toBe(400);
    const ok = await grant(post(portal), {}, peer);
    expect(ok.status).toBe(200);
    expect(ok.headers.get("x-ratelimit-limit")).toBe("20");
    expect(ok.headers.get("x-ratelimit-remaining")).toBe("20");
  });
});
