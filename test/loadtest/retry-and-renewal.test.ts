// The loadtest lib honours Retry-After (bounded) and renews tokens before expiry. Proved with
// real k6 against a scripted fake server, since a real sandbox cannot be made to answer 429 on
// cue or hand out short-lived tokens. k6 really sleeps, so the waits are a few seconds.
import { afterEach, describe, expect, test } from "bun:test";
import { failedChecks, K6, metric, runK6 } from "./k6.ts";

const FIXTURE = "test/loadtest/fixtures/lib-proof.js";
const K6_RUN_MS = 60_000;
/** A retry may not come sooner than Retry-After; this much earlier is clock granularity. */
const EARLY_MS = 50;

interface Script {
  /** Retry-After values to answer, one 429 per entry, before the token endpoint succeeds. */
  token429s?: number[];
  /** The same for GET /v1/properties; "always" answers 429 forever. */
  properties429s?: number[] | "always";
  expiresIn: number;
}

interface Seen {
  /** Arrival times (ms) of token requests and of property requests. */
  tokenAt: number[];
  propertiesAt: number[];
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
  return json({ error: "Rate limit exceeded", code: "RATE_LIMIT_EXCEEDED" }, 429, {
    "Retry-After": String(retryAfter),
  });
}

function fakeServer(script: Script): { baseUrl: string; seen: Seen } {
  const seen: Seen = { tokenAt: [], propertiesAt: [], authorizations: [] };
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
        seen.tokenAt.push(performance.now());
        const wait = token429s.shift();
        if (wait !== undefined) return tooMany(wait);
        issued++;
        return json({ data: { token: `t${issued}`, expiresIn: script.expiresIn, tokenType: "Bearer" } });
      }
      if (path === "/v1/properties") {
        seen.propertiesAt.push(performance.now());
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

const gaps = (times: number[]) => times.slice(1).map((t, i) => t - times[i]!);

const describeWithK6 = K6 === null ? describe.skip : describe;

describeWithK6("429 RATE_LIMIT_EXCEEDED", () => {
  test(
    "waits Retry-After seconds, then retries the same call, at the token endpoint and after",
    async () => {
      const { baseUrl, seen } = fakeServer({ token429s: [1], properties429s: [2], expiresIn: 3600 });
      const run = await runK6(FIXTURE, { BASE_URL: baseUrl, ITERATIONS: "2" });

      expect(run.exitCode).toBe(0);
      expect(failedChecks(run.summary!)).toEqual([]);
      expect(seen.tokenAt).toHaveLength(2);
      expect(gaps(seen.tokenAt)[0]).toBeGreaterThanOrEqual(1000 - EARLY_MS);
      // The 429, its retry after 2 s, then the second iteration's call.
      expect(seen.propertiesAt).toHaveLength(3);
      expect(gaps(seen.propertiesAt)[0]).toBeGreaterThanOrEqual(2000 - EARLY_MS);
      expect(metric(run.summary!, "rate_limited_responses", "count")).toBe(2);
    },
    K6_RUN_MS,
  );

  test(
    "gives up after three retries, and the failure shows as a failed check",
    async () => {
      const { baseUrl, seen } = fakeServer({ properties429s: "always", expiresIn: 3600 });
      const run = await runK6(FIXTURE, { BASE_URL: baseUrl });

      expect(seen.propertiesAt).toHaveLength(4); // the first try and three retries
      for (const gap of gaps(seen.propertiesAt)) expect(gap).toBeGreaterThanOrEqual(1000 - EARLY_MS);
      expect(failedChecks(run.summary!)).toContain("properties_list: status 200");
      expect(metric(run.summary!, "rate_limited_responses", "count")).toBe(4);
    },
    K6_RUN_MS,
  );
});

describeWithK6("token renewal", () => {
  test(
    "a VU keeps the setup() token while it has more than a minute left",
    async () => {
      const { baseUrl, seen } = fakeServer({ expiresIn: 3600 });
      const run = await runK6(FIXTURE, { BASE_URL: baseUrl, ITERATIONS: "3" });

      expect(run.exitCode).toBe(0);
      expect(failedChecks(run.summary!)).toEqual([]);
      expect(seen.tokenAt).toHaveLength(1);
      expect(seen.authorizations).toEqual(["Bearer t1", "Bearer t1", "Bearer t1"]);
    },
    K6_RUN_MS,
  );

  test(
    "a VU asks for a fresh token once less than a minute is left",
    async () => {
      // 30 s tokens are always inside the renewal margin: every iteration must renew.
      const { baseUrl, seen } = fakeServer({ expiresIn: 30 });
      const run = await runK6(FIXTURE, { BASE_URL: baseUrl, ITERATIONS: "3" });

      expect(run.exitCode).toBe(0);
      expect(failedChecks(run.summary!)).toEqual([]);
      expect(seen.tokenAt).toHaveLength(4); // setup() and one renewal per iteration
      expect(seen.authorizations).toEqual(["Bearer t2", "Bearer t3", "Bearer t4"]);
    },
    K6_RUN_MS,
  );
});
