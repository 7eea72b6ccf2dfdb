// The per-client window on protected routes (docs/reference/behaviour.md §6): what counts, the headers on every
// response, 429 with Retry-After, and the optional burst cap.
import { afterEach, describe, expect, test } from "bun:test";
import { client, createTestApp, read, type TestApp } from "../helpers/app.ts";

let t: TestApp;
afterEach(() => t?.close());

const limited = client("limited", { rateLimitPerMinute: 5 });

describe("per-client sliding window", () => {
  test("N allowed per minute, the N+1th refused with 429, Retry-After and zero remaining", async () => {
    t = createTestApp({ clients: [limited.entry] });
    const token = await t.token(limited);
    const remaining: string[] = [];
    for (let i = 0; i < 5; i++) {
      const response = await t.get("/v1/fields", token);
      expect(response.status).toBe(200);
      remaining.push(response.headers.get("x-ratelimit-remaining")!);
    }
    expect(remaining).toEqual(["4", "3", "2", "1", "0"]);
    const { status, body, headers } = await read(await t.get("/v1/fields", token));
    expect(status).toBe(429);
    expect(body).toEqual({ error: "Rate limit exceeded", code: "RATE_LIMIT_EXCEEDED" });
    expect(headers.get("retry-after")).toBe("60");
    expect(headers.get("x-ratelimit-limit")).toBe("5");
    expect(headers.get("x-ratelimit-remaining")).toBe("0");
    expect(headers.get("ratelimit-policy")).toBe('"minute";q=5;w=60');
    expect(headers.get("ratelimit")).toStartWith('"minute";r=0;t=');
  });

  test("slots free as the window slides; 429s are not counted", async () => {
    t = createTestApp({ clients: [limited.entry] });
    const token = await t.token(limited);
    for (let i = 0; i < 5; i++) await t.get("/v1/fields", token);
    t.clock.advance(30_000);
    for (let i = 0; i < 3; i++) expect((await t.get("/v1/fields", token)).status).toBe(429);
    t.clock.advance(30_000);
    expect((await t.get("/v1/fields", token)).status).toBe(200);
  });

  test("errors after authentication count too, and carry the headers", async () => {
    t = createTestApp({ clients: [limited.entry] });
    const token = await t.token(limited);
    const bad = await t.get("/v1/properties", token); // 400: fields missing
    expect(bad.status).toBe(400);
    expect(bad.headers.get("x-ratelimit-remaining")).toBe("4");
    const missing = await t.get("/v1/leads/nope?fields=id", token);
    expect(missing.status).toBe(404);
    expect(missing.headers.get("x-ratelimit-remaining")).toBe("3");
  });

  test("two tokens of one client share one window; two clients are independent", async () => {
    const other = client("other", { rateLimitPerMinute: 5 });
    t = createTestApp({ clients: [limited.entry, other.entry] });
    const first = await t.token(limited);
    const second = await t.token(limited);
    for (let i = 0; i < 3; i++) await t.get("/v1/fields", first);
    for (let i = 0; i < 2; i++) await t.get("/v1/fields", second);
    expect((await t.get("/v1/fields", first)).status).toBe(429);
    expect((await t.get("/v1/fields", await t.token(other))).status).toBe(200);
  });

  test("a limit lowered by reload applies at once", async () => {
    const roomy = client("roomy", { rateLimitPerMinute: 100 });
    t = createTestApp({ clients: [roomy.entry] });
    const token = await t.token(roomy);
    for (let i = 0; i < 10; i++) await t.get("/v1/fields", token);
    t.reload({ clients: [{ ...roomy.entry, rateLimitPerMinute: 10 }] });
    const response = await t.get("/v1/fields", token);
    expect(response.status).toBe(429);
    expect(response.headers.get("x-ratelimit-limit")).toBe("10");
  });

  test("the token endpoint is not counted in the window", async () => {
    t = createTestApp({ clients: [limited.entry] });
    for (let i = 0; i < 10; i++) await t.token(limited);
    expect((await t.get("/v1/fields", await t.token(limited))).headers.get("x-ratelimit-remaining")).toBe("4");
  });
});

describe("optional burstPerSecond cap", () => {
  test("past the burst within one second → 429 with Retry-After 1; the next second is open again", async () => {
    const bursty = client("bursty", { rateLimitPerMinute: 1000, burstPerSecond: 3 });
    t = createTestApp({ clients: [bursty.entry] });
    const token = await t.token(bursty);
    for (let i = 0; i < 3; i++) expect((await t.get("/v1/fields", token)).status).toBe(200);
    const refused = await t.get("/v1/fields", token);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("1");
    t.clock.advance(1000);
    expect((await t.get("/v1/fields", token)).status).toBe(200);
  });
});
