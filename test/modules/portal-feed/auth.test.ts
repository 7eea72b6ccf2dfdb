// Who may fetch the portal feed (docs/reference/behaviour-extensions.md §17, §4, §6): a bearer token or HTTP Basic auth with
// the API key and secret, through the guard of every route; every failure is a `{ error, code }`
// JSON body, a failed Basic auth is a 401 with WWW-Authenticate and drains the failed-auth bucket.
import { afterEach, describe, expect, test } from "bun:test";
import { AUTH_FAILURE_CAPACITY } from "../../../src/runtime.ts";
import { client, createTestApp, read, type TestApp } from "../../helpers/app.ts";
import { basic, FEED } from "./helpers.ts";

const portal = client("portal");
const CHALLENGE = 'Basic realm="partner-api"';
let t: TestApp;
afterEach(() => t?.close());

const feed = (authorization: string | null, peer?: string) =>
  t.request(FEED, { headers: authorization === null ? {} : { authorization }, ...(peer ? { peer } : {}) });
const encoded = (text: string | Uint8Array) => `Basic ${Buffer.from(text).toString("base64")}`;

async function expectError(response: Response, status: number, code: string) {
  const { status: actual, body, headers } = await read(response);
  expect({ status: actual, code: body.code }).toEqual({ status, code });
  expect(typeof body.error).toBe("string");
  expect(headers.get("content-type")).toBe("application/json; charset=utf-8");
  return headers;
}

describe("Basic auth and bearer tokens both open the feed", () => {
  test("Basic with the API key and secret: 200, the client's rate-limit headers, counted in its window", async () => {
    t = createTestApp({ clients: [client("portal", { rateLimitPerMinute: 5 }).entry] });
    const response = await feed(basic(portal));
    expect(response.status).toBe(200);
    expect(response.headers.get("x-ratelimit-limit")).toBe("5");
    expect(response.headers.get("x-ratelimit-remaining")).toBe("4");
    await response.text();
  });

  test("the scheme in any case, padding dropped, a secret holding colons", async () => {
    const colons = client("colons");
    const entry = {
      ...colons.entry,
      secretHash: (await import("../../../src/security/secrets.ts")).hashSecret("sk:with:colons"),
    };
    t = createTestApp({ clients: [portal.entry, entry] });
    const plain = Buffer.from(`${portal.apiKey}:${portal.secret}`).toString("base64");
    for (const authorization of [
      `basic ${plain}`,
      `BASIC ${plain}`,
      `Basic ${plain.replace(/=+$/, "")}`,
      encoded(`${colons.apiKey}:sk:with:colons`),
    ]) {
      const response = await feed(authorization);
      expect({ authorization, status: response.status }).toEqual({ authorization, status: 200 });
      await response.text();
    }
  });

  test("a bearer token", async () => {
    t = createTestApp({ clients: [portal.entry] });
    const response = await t.get(FEED, await t.token(portal));
    expect(response.status).toBe(200);
    await response.text();
  });
});

describe("failures are 401/403/429 JSON errors, never 5xx", () => {
  test("no credentials or a bad token: 401 INVALID_TOKEN, with the Basic challenge first, then the Bearer one", async () => {
    t = createTestApp({ clients: [portal.entry] });
    const challenges = {
      none: `${CHALLENGE}, Bearer realm="partner-api"`,
      bad: `${CHALLENGE}, Bearer realm="partner-api", error="invalid_token"`,
    };
    for (const [authorization, challenge] of [
      [null, challenges.none],
      ["Digest abc", challenges.none],
      ["Bearer not.a.jwt", challenges.bad],
    ] as const) {
      const headers = await expectError(await feed(authorization), 401, "INVALID_TOKEN");
      expect({ authorization, challenge: headers.get("www-authenticate") }).toEqual({ authorization, challenge });
    }
  });

  test("malformed Basic credentials: 401 MISSING_CREDENTIALS with the challenge", async () => {
    t = createTestApp({ clients: [portal.entry] });
    const malformed = [
      "Basic",
      "Basic ",
      "Basic !!!not-base64!!!",
      "Basic abc", // 4n+1 characters: not base64
      "Basic YWJj=", // padding where none belongs
      encoded("no-colon-at-all"),
      encoded(`:${portal.secret}`), // empty user
      encoded(`${portal.apiKey}:`), // empty password
      encoded(new Uint8Array([0x70, 0x6b, 0xff, 0xfe, 0x3a, 0x73])), // not UTF-8
      `Basic ${"A".repeat(100_000)}`,
    ];
    for (const authorization of malformed) {
      const headers = await expectError(
        await feed(authorization, `198.51.100.${malformed.indexOf(authorization) + 1}`),
        401,
        "MISSING_CREDENTIALS",
      );
      expect({ authorization: authorization.slice(0, 40), challenge: headers.get("www-authenticate") }).toEqual({
        authorization: authorization.slice(0, 40),
        challenge: CHALLENGE,
      });
    }
  });

  test("an unknown key: 401 INVALID_API_KEY; a wrong secret: 401 INVALID_API_SECRET; both with the challenge", async () => {
    t = createTestApp({ clients: [portal.entry] });
    let headers = await expectError(await feed(encoded(`pk_live_nobody:${portal.secret}`)), 401, "INVALID_API_KEY");
    expect(headers.get("www-authenticate")).toBe(CHALLENGE);
    headers = await expectError(await feed(encoded(`${portal.apiKey}:wrong`)), 401, "INVALID_API_SECRET");
    expect(headers.get("www-authenticate")).toBe(CHALLENGE);
  });

  test("a sandbox key in production: INVALID_API_KEY", async () => {
    t = createTestApp({ clients: [portal.entry] });
    await expectError(await feed(encoded("pk_sandbox_demo:sk_sandbox_demo")), 401, "INVALID_API_KEY");
  });

  test("IP list: 403 IP_BLOCKED decided before the secret (a right and a wrong secret get the same answer), for Basic and bearer", async () => {
    t = createTestApp({ clients: [client("portal", { ipWhitelist: ["192.0.2.0/24"] }).entry] });
    await expectError(await feed(basic(portal), "203.0.113.9"), 403, "IP_BLOCKED");
    await expectError(await feed(encoded(`${portal.apiKey}:wrong`), "203.0.113.9"), 403, "IP_BLOCKED");
    const allowed = await feed(basic(portal), "192.0.2.7");
    expect(allowed.status).toBe(200);
    await allowed.text();
    const token = await t.token(portal, "192.0.2.7");
    await expectError(await t.get(FEED, token, "203.0.113.9"), 403, "IP_BLOCKED");
  });

  test("a disabled client: 403 API_DISABLED once its secret is right (a wrong one is still INVALID_API_SECRET)", async () => {
    t = createTestApp({ clients: [client("portal", { enabled: false, rateLimitPerMinute: 7 }).entry] });
    const headers = await expectError(await feed(basic(portal)), 403, "API_DISABLED");
    expect(headers.get("x-ratelimit-limit")).toBe("7"); // the client's window, as on the bearer path
    expect(headers.get("www-authenticate")).toBeNull();
    await expectError(await feed(encoded(`${portal.apiKey}:wrong`)), 401, "INVALID_API_SECRET");
  });

  test("a client whose database is gone: 403 NO_DATABASE", async () => {
    t = createTestApp({ clients: [client("portal", { database: "elsewhere" }).entry] });
    await expectError(await feed(basic(portal)), 403, "NO_DATABASE");
  });

  test("over the client's limit: 429 with Retry-After, for Basic as for bearer", async () => {
    t = createTestApp({ clients: [client("portal", { rateLimitPerMinute: 2 }).entry] });
    for (let i = 0; i < 2; i++) await (await feed(basic(portal))).text();
    const headers = await expectError(await feed(basic(portal)), 429, "RATE_LIMIT_EXCEEDED");
    expect(Number(headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(headers.get("x-ratelimit-remaining")).toBe("0");
  });
});

describe("the failed-authentication bucket", () => {
  test("failed Basic attempts drain the address's bucket; once empty, even the right credentials get 429 from it", async () => {
    t = createTestApp({ clients: [portal.entry] });
    const peer = "198.51.100.77";
    for (let i = 0; i < AUTH_FAILURE_CAPACITY; i++) {
      const headers = await expectError(
        await feed(encoded(`${portal.apiKey}:wrong-${i}`), peer),
        401,
        "INVALID_API_SECRET",
      );
      expect(headers.get("x-ratelimit-remaining")).toBe(String(AUTH_FAILURE_CAPACITY - 1 - i));
    }
    await expectError(await feed(encoded(`${portal.apiKey}:wrong`), peer), 429, "RATE_LIMIT_EXCEEDED");
    const right = await expectError(await feed(basic(portal), peer), 429, "RATE_LIMIT_EXCEEDED");
    expect(right.get("retry-after")).not.toBeNull();
    // The same address's token requests are throttled too: one bucket per address.
    await expectError(
      await t.request("/v1/auth/token", {
        method: "POST",
        headers: { "x-api-key": portal.apiKey, "x-api-secret": portal.secret },
        peer,
      }),
      429,
      "RATE_LIMIT_EXCEEDED",
    );
    // Another address is not.
    const elsewhere = await feed(basic(portal), "198.51.100.78");
    expect(elsewhere.status).toBe(200);
    await elsewhere.text();
  });

  test("malformed Basic headers and IP_BLOCKED drain it too; successes never do", async () => {
    t = createTestApp({ clients: [client("portal", { ipWhitelist: ["192.0.2.0/24"] }).entry] });
    const ok = await feed(basic(portal), "192.0.2.1");
    expect(ok.headers.get("x-ratelimit-limit")).not.toBe(String(AUTH_FAILURE_CAPACITY));
    await ok.text();
    let headers = await expectError(await feed("Basic %%%", "203.0.113.50"), 401, "MISSING_CREDENTIALS");
    expect(headers.get("x-ratelimit-remaining")).toBe(String(AUTH_FAILURE_CAPACITY - 1));
    headers = await expectError(await feed(basic(portal), "203.0.113.50"), 403, "IP_BLOCKED");
    expect(headers.get("x-ratelimit-remaining")).toBe(String(AUTH_FAILURE_CAPACITY - 2));
  });
});

describe("bad input never reaches a 5xx", () => {
  test("a huge Authorization header, odd schemes and binary junk: 4xx JSON answers", async () => {
    t = createTestApp({ clients: [portal.entry] });
    const junk = [
      `Basic ${"=".repeat(50_000)}`,
      "Basic \u00e9\u00e9\u00e9",
      `Bearer ${"x".repeat(60_000)}`,
      "Basic YQ==",
      encoded("\u0000:\u0000"),
      encoded(`${portal.apiKey}:${"s".repeat(50_000)}`),
    ];
    for (const [i, authorization] of junk.entries()) {
      const response = await feed(authorization, `198.51.100.${100 + i}`);
      expect({ i, status: response.status < 500 && response.status >= 400 }).toEqual({ i, status: true });
      expect(((await response.json()) as { code: unknown }).code).toBeString();
    }
  });
});
