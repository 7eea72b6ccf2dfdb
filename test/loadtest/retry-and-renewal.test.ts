// The loadtest lib honours Retry-After (bounded) and renews tokens before expiry. Proved through
// the shim against a scripted fake server, since a real sandbox cannot be made to answer 429
// on cue or hand out short-lived tokens.
import { afterEach, describe, expect, test } from "bun:test";
import { runShim } from "./run-shim.ts";

const FIXTURE = "test/loadtest/fixtures/lib-proof.js";

interface Script {
  /** Retry-After values to answer, one 429 per entry, before the token endpoint succeeds. */
  token429s?: number[];
  /** The same for GET /v1/properties; "always" answers 429 forever. */
  properties429s?: number[] | "always";
  expiresIn: number;
}

interface Seen {
  tokenRequests: number;
  authorizations: string[];
}

let server: ReturnType<typeof Bun.serve> | null = null;

afterEach(() => {
  server?.stop(true);
  server = null;
});

function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return Response.json(body, { status, headers });
}

function tooMany(retryAfter: number): Response {
  return json({ error: "Rate limit exceeded", code: "RATE_LIMIT_EXCEEDED" }, 429, { "Retry-After": String(retryAfter) });
}

function fakeServer(script: Script): { baseUrl: string; seen: Seen } {
  const seen: Seen = { tokenRequests: 0, authorizations: [] };
  const token429s = [...(script.token429s ?? [])];
  const properties429s = script.properties429s ?? [];
  const pending = properties429s === "always" ? [] : [...properties429s];
  let issued = 0;
  server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(req) {
      const path = new URL(req.url).pathname;
      if (path === "/v1/auth/token") {
        seen.tokenRequests++;
        const wait = token429s.shift();
        if (wait !== undefined) return tooMany(wait);
        issued++;
        return json({ data: { token: `t${issued}`, expiresIn: script.expiresIn, tokenType: "Bearer" } });
      }
      if (path === "/v1/properties") {
        seen.authorizations.push(req.headers.get("authorization") ?? "");
        if (properties429s === "always") return tooMany(1);
        const wait = pending.shift();
        if (wait !== undefined) return tooMany(wait);
        return json({ data: [{ id: "p1" }], meta: { page: 1, limit: 20, total: 1, totalPages: 1 } });
      }
      return json({ error: "Not found", code: "NOT_FOUND" }, 404);
    },
  });
  return { baseUrl: `http://127.0.0.1:${server.port}`, seen };
}

describe("429 RATE_LIMIT_EXCEEDED", () => {
  test("waits Retry-After seconds, then retries the same call, at the token endpoint and after", async () => {
    const { baseUrl, seen } = fakeServer({ token429s: [2], properties429s: [3], expiresIn: 3600 });
    const { exitCode, summary } = await runShim(FIXTURE, { BASE_URL: baseUrl }, 2);

    expect(summary.errors).toEqual([]);
    expect(summary.failedChecks).toBe(0);
    expect(exitCode).toBe(0);
    // The shim records what sleep() was asked for: exactly the two Retry-After values, in order.
    expect(summary.sleeps).toEqual([2, 3]);
    expect(seen.tokenRequests).toBe(2);
    expect(summary.byEndpoint.properties_list?.statuses).toEqual({ "429": 1, "200": 2 });
    expect(summary.metrics.rate_limited_responses?.sum).toBe(2);
  });

  test("gives up after three retries, and the failure shows as failed checks", async () => {
    const { baseUrl, seen } = fakeServer({ properties429s: "always", expiresIn: 3600 });
    const { exitCode, summary } = await runShim(FIXTURE, { BASE_URL: baseUrl }, 1);

    expect(seen.authorizations).toHaveLength(4); // the first try and three retries
    expect(summary.sleeps).toEqual([1, 1, 1]);
    expect(summary.checks["properties_list: status 200"]).toEqual({ passes: 0, fails: 1 });
    expect(summary.metrics.rate_limited_responses?.sum).toBe(4);
    expect(exitCode).toBe(1);
  });
});

describe("token renewal", () => {
  test("a VU keeps the setup() token while it has more than a minute left", async () => {
    const { baseUrl, seen } = fakeServer({ expiresIn: 3600 });
    const { exitCode, summary } = await runShim(FIXTURE, { BASE_URL: baseUrl }, 3);

    expect(exitCode).toBe(0);
    expect(summary.failedChecks).toBe(0);
    expect(seen.tokenRequests).toBe(1);
    expect(seen.authorizations).toEqual(["Bearer t1", "Bearer t1", "Bearer t1"]);
  });

  test("a VU asks for a fresh token once less than a minute is left", async () => {
    // 30 s tokens are always inside the renewal margin: every iteration must renew.
    const { baseUrl, seen } = fakeServer({ expiresIn: 30 });
    const { exitCode, summary } = await runShim(FIXTURE, { BASE_URL: baseUrl }, 3);

    expect(exitCode).toBe(0);
    expect(summary.failedChecks).toBe(0);
    expect(seen.tokenRequests).toBe(4); // setup() and one renewal per iteration
    expect(seen.authorizations).toEqual(["Bearer t2", "Bearer t3", "Bearer t4"]);
  });
});
