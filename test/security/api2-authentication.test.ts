// OWASP API2:2023 Broken Authentication. Guessing is throttled per source IP (and only failures
// count), a token altered in any single character is refused, tokens of another environment or
// past their expiry are refused, and neither secrets nor tokens reach the logs.
import { afterEach, describe, expect, test } from "bun:test";
import { generateKeyPair, SignJWT } from "jose";
import pino from "pino";
import { createApp } from "../../src/app.ts";
import type { Runtime } from "../../src/runtime.ts";
import { client, createTestApp, JWT_SECRET, PEER_HEADER, type TestApp } from "../helpers/app.ts";

const portal = client("portal", { rateLimitPerMinute: 100_000 });
let t: TestApp;
afterEach(() => t?.close());

const tokenRequest = (key: string, secret: string, peer: string) =>
  t.request("/v1/auth/token", { method: "POST", headers: { "x-api-key": key, "x-api-secret": secret }, peer });

describe("API2 broken authentication", () => {
  test("the 21st failed attempt from one IP is 429 with Retry-After, even with the right secret; other IPs are unaffected", async () => {
    t = createTestApp({ clients: [portal.entry] });
    for (let i = 0; i < 20; i++)
      expect((await tokenRequest(portal.apiKey, `guess-${i}`, "198.51.100.7")).status).toBe(401);
    const throttled = await tokenRequest(portal.apiKey, portal.secret, "198.51.100.7");
    expect(throttled.status).toBe(429);
    expect(Number(throttled.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    // Bearer guessing from that IP is throttled too: the bucket is per address, not per route.
    expect((await t.get("/v1/fields", "guess", "198.51.100.7")).status).toBe(429);
    expect((await tokenRequest(portal.apiKey, portal.secret, "198.51.100.8")).status).toBe(200);
    t.clock.advance(60_000);
    expect((await tokenRequest(portal.apiKey, portal.secret, "198.51.100.7")).status).toBe(200);
  });

  test("successes never drain the bucket: 50 tokens in a row from one IP", async () => {
    t = createTestApp({ clients: [portal.entry] });
    for (let i = 0; i < 50; i++)
      expect((await tokenRequest(portal.apiKey, portal.secret, "198.51.100.9")).status).toBe(200);
  });

  test("every single-character change to a real token, in any of its three parts, is refused", async () => {
    t = createTestApp({ clients: [portal.entry] });
    const token = await t.token(portal);
    let peer = 0;
    const refused: number[] = [];
    for (let i = 0; i < token.length; i++) {
      if (token[i] === ".") continue;
      for (const replacement of alternatives(token[i]!)) {
        const tampered = token.slice(0, i) + replacement + token.slice(i + 1);
        // A fresh source address per try, so throttling does not stand in for verification.
        const response = await t.get(
          "/v1/fields",
          tampered,
          `10.${(peer >> 16) & 255}.${(peer >> 8) & 255}.${peer++ & 255}`,
        );
        refused.push(response.status);
      }
    }
    expect(refused.filter((s) => s !== 401)).toEqual([]);
    expect(refused.length).toBeGreaterThan(token.length);
  });

  test("a token of the sandbox is refused by production, and an expired one by both", async () => {
    const sandbox = createTestApp({ environment: "sandbox", clients: [portal.entry] });
    t = createTestApp({ clients: [portal.entry] });
    try {
      const sandboxToken = await sandbox.token(portal);
      expect((await t.get("/v1/fields", sandboxToken)).status).toBe(401);
      const token = await t.token(portal);
      t.clock.advance(3600_000);
      expect((await t.get("/v1/fields", token)).status).toBe(401);
    } finally {
      sandbox.close();
    }
  });

  test("secrets and tokens never reach the log, whatever the outcome", async () => {
    t = createTestApp({ clients: [portal.entry] });
    const lines: string[] = [];
    const logger = pino({ level: "debug" }, { write: (line: string) => void lines.push(line) });
    const app = createApp({ runtime: t.runtime as Runtime, logger, peerAddress: (r) => r.headers.get(PEER_HEADER) });
    const send = (path: string, init: RequestInit) =>
      app.handle(
        new Request(`http://localhost${path}`, { ...init, headers: { [PEER_HEADER]: "192.0.2.1", ...init.headers } }),
      );
    const issued = await send("/v1/auth/token", {
      method: "POST",
      headers: { "x-api-key": portal.apiKey, "x-api-secret": portal.secret },
    });
    const token = ((await issued.json()) as { data: { token: string } }).data.token;
    await send("/v1/auth/token", {
      method: "POST",
      headers: { "x-api-key": portal.apiKey, "x-api-secret": "sk_wrong_secret_value" },
    });
    await send("/v1/fields", { headers: { authorization: `Bearer ${token}` } });
    await send("/v1/fields", { headers: { authorization: `Bearer ${token}x` } });
    await send("/v1/leads", {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: "{",
    });
    // The request lines above were logged after the response; let pino's writes land.
    await Bun.sleep(10);
    const log = lines.join("");
    expect(lines.length).toBeGreaterThanOrEqual(5);
    for (const secret of [portal.secret, "sk_wrong_secret_value", token, token.split(".")[2]!])
      expect(log).not.toContain(secret);
  });
});

describe("API2: only this server's HS256 tokens open a route (RFC 8725), whatever else is signed", () => {
  const key = new TextEncoder().encode(JWT_SECRET);
  const claims = () => {
    const now = Math.floor(t.clock.now() / 1000);
    const cred = t.runtime.tokens.credentialTag(t.runtime.config.clients.get("portal")!);
    return { iss: "partner-api", sub: "portal", env: "production", iat: now, exp: now + 3600, jti: "j", cred };
  };
  const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");
  /** The claims under this header, signed HMAC-SHA256 with the server's secret: only the header differs from a good token. */
  const hs256Under = (header: object) => {
    const body = `${b64(header)}.${b64(claims())}`;
    return `${body}.${new Bun.CryptoHasher("sha256", key).update(body).digest("base64url")}`;
  };
  const status = async (token: string) => (await t.get("/v1/fields", token)).status;

  test("the same claims signed HS256 open it (the tokens below differ only in what is refused)", async () => {
    t = createTestApp({ clients: [portal.entry] });
    expect(await status(hs256Under({ alg: "HS256", typ: "JWT" }))).toBe(200);
    expect(await status(hs256Under({ alg: "HS256" }))).toBe(200);
  });

  test("HS384, HS512 and RS256 tokens are refused, signed with the server's secret or a key of their own", async () => {
    t = createTestApp({ clients: [portal.entry] });
    for (const alg of ["HS384", "HS512"])
      expect(await status(await new SignJWT(claims()).setProtectedHeader({ alg }).sign(key))).toBe(401);
    const { privateKey } = await generateKeyPair("RS256");
    expect(await status(await new SignJWT(claims()).setProtectedHeader({ alg: "RS256" }).sign(privateKey))).toBe(401);
    // Algorithm confusion: the header says another algorithm, the signature is the server's HS256.
    for (const alg of ["RS256", "HS384", "none"]) expect(await status(hs256Under({ alg, typ: "JWT" }))).toBe(401);
  });

  test("an unsigned (alg: none) token is refused", async () => {
    t = createTestApp({ clients: [portal.entry] });
    expect(await status(`${b64({ alg: "none", typ: "JWT" })}.${b64(claims())}.`)).toBe(401);
  });

  test("a header with another typ, or with a critical extension, is refused though signed with the server's secret", async () => {
    t = createTestApp({ clients: [portal.entry] });
    expect(await status(hs256Under({ alg: "HS256", typ: "at+jwt" }))).toBe(401);
    expect(await status(hs256Under({ alg: "HS256", typ: "jwt" }))).toBe(401);
    expect(await status(hs256Under({ alg: "HS256", typ: "JWT", crit: ["exp"] }))).toBe(401);
    expect(await status(hs256Under({ alg: "HS256", typ: "JWT", b64: true, crit: ["b64"] }))).toBe(401);
  });
});

/** Two other base64url characters for a position (one is enough to flip bits; two catch more). */
function alternatives(c: string): string[] {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  const i = alphabet.indexOf(c);
  return [alphabet[(i + 1) % 64]!, alphabet[(i + 33) % 64]!];
}
