import { describe, expect, test } from "bun:test";
import { OVERFLOW_LABEL } from "../../src/metrics/bounded.ts";
import { AUTH_FAILURE_CODES, MetricsRegistry, NO_CLIENT, renderFactsOnly, UNMATCHED_ROUTE, type ScrapeFacts } from "../../src/metrics/registry.ts";
import { parseExposition, sampleValue } from "./parse.ts";

const FACTS: ScrapeFacts = { version: "1.2.3", environment: "production", databases: [] };

function scrape(registry: MetricsRegistry, facts: ScrapeFacts = FACTS) {
  return parseExposition(registry.render(facts));
}

describe("requests by route and status", () => {
  test("counted per route template, method and status", () => {
    const m = new MetricsRegistry();
    m.observe("/v1/leads/:id", "GET", 200, 1, "portal", undefined, false);
    m.observe("/v1/leads/:id", "GET", 200, 1, "portal", undefined, false);
    m.observe("/v1/leads/:id", "GET", 404, 1, "portal", "NOT_FOUND", false);
    m.observe("/v1/leads", "POST", 201, 1, "portal", undefined, false);
    const s = scrape(m);
    expect(sampleValue(s, "partner_api_http_requests_total", { route: "/v1/leads/:id", method: "GET", status: "200" })).toBe(2);
    expect(sampleValue(s, "partner_api_http_requests_total", { route: "/v1/leads/:id", method: "GET", status: "404" })).toBe(1);
    expect(sampleValue(s, "partner_api_http_requests_total", { route: "/v1/leads", method: "POST", status: "201" })).toBe(1);
  });

  test("requests no route matched share one label, never their raw path", () => {
    const m = new MetricsRegistry();
    m.observe(null, "GET", 404, 1, undefined, "NOT_FOUND", false);
    m.observe(null, "GET", 404, 1, undefined, "NOT_FOUND", false);
    const s = scrape(m);
    expect(sampleValue(s, "partner_api_http_requests_total", { route: UNMATCHED_ROUTE, method: "GET", status: "404" })).toBe(2);
  });

  test("unknown methods are folded into OTHER", () => {
    const m = new MetricsRegistry();
    m.observe(null, "BREW", 404, 1, undefined, undefined, false);
    expect(sampleValue(scrape(m), "partner_api_http_requests_total", { route: UNMATCHED_ROUTE, method: "OTHER", status: "404" })).toBe(1);
  });

  test("the route label set is capped: past the cap, new routes share the overflow label", () => {
    const m = new MetricsRegistry();
    for (let i = 0; i < 150; i++) m.observe(`/r${i}`, "GET", 200, 1, undefined, undefined, false);
    const routes = new Set(scrape(m).filter((x) => x.name === "partner_api_http_requests_total").map((x) => x.labels.route));
    expect(routes.size).toBe(101);
    expect(routes.has(OVERFLOW_LABEL)).toBe(true);
  });
});

describe("latency histogram by route", () => {
  test("durations land in seconds buckets with sum and count per route and method", () => {
    const m = new MetricsRegistry();
    m.observe("/v1/properties", "GET", 200, 0.3, "p", undefined, false); // 0.0003 s
    m.observe("/v1/properties", "GET", 200, 30, "p", undefined, false); // 0.03 s
    const s = scrape(m);
    const labels = { route: "/v1/properties", method: "GET" };
    expect(sampleValue(s, "partner_api_http_request_duration_seconds_bucket", { ...labels, le: "0.0005" })).toBe(1);
    expect(sampleValue(s, "partner_api_http_request_duration_seconds_bucket", { ...labels, le: "0.025" })).toBe(1);
    expect(sampleValue(s, "partner_api_http_request_duration_seconds_bucket", { ...labels, le: "0.05" })).toBe(2);
    expect(sampleValue(s, "partner_api_http_request_duration_seconds_bucket", { ...labels, le: "+Inf" })).toBe(2);
    expect(sampleValue(s, "partner_api_http_request_duration_seconds_count", labels)).toBe(2);
    expect(sampleValue(s, "partner_api_http_request_duration_seconds_sum", labels)).toBeCloseTo(0.0303);
  });
});

describe("429s by client", () => {
  test("counted under the client id, or the unauthenticated label when none was known", () => {
    const m = new MetricsRegistry();
    m.observe("/v1/leads", "GET", 429, 1, "portal", "RATE_LIMIT_EXCEEDED", false);
    m.observe("/v1/leads", "GET", 429, 1, "portal", "RATE_LIMIT_EXCEEDED", false);
    m.observe("/v1/auth/token", "POST", 429, 1, undefined, "RATE_LIMIT_EXCEEDED", false);
    m.observe("/v1/leads", "GET", 200, 1, "other", undefined, false);
    const s = scrape(m);
    expect(sampleValue(s, "partner_api_rate_limited_total", { client: "portal" })).toBe(2);
    expect(sampleValue(s, "partner_api_rate_limited_total", { client: NO_CLIENT })).toBe(1);
    expect(sampleValue(s, "partner_api_rate_limited_total", { client: "other" })).toBeUndefined();
  });

  test("the client label set is capped", () => {
    const m = new MetricsRegistry();
    for (let i = 0; i < 1100; i++) m.observe("/v1/leads", "GET", 429, 1, `c${i}`, "RATE_LIMIT_EXCEEDED", false);
    const clients = scrape(m).filter((x) => x.name === "partner_api_rate_limited_total");
    expect(clients.length).toBe(1001);
    expect(sampleValue(scrape(m), "partner_api_rate_limited_total", { client: OVERFLOW_LABEL })).toBe(100);
  });
});

describe("authentication failures by code", () => {
  test("every code of the contract's authentication failures is reported, from zero", () => {
    const s = scrape(new MetricsRegistry());
    for (const code of AUTH_FAILURE_CODES) expect(sampleValue(s, "partner_api_auth_failures_total", { code })).toBe(0);
  });

  test("those codes are counted; other error codes are not authentication failures", () => {
    const m = new MetricsRegistry();
    m.observe("/v1/auth/token", "POST", 401, 1, undefined, "INVALID_API_SECRET", false);
    m.observe("/v1/leads", "GET", 401, 1, undefined, "INVALID_TOKEN", false);
    m.observe("/v1/leads", "GET", 403, 1, undefined, "IP_BLOCKED", false);
    m.observe("/v1/leads", "GET", 400, 1, "p", "VALIDATION_ERROR", false);
    const s = scrape(m);
    expect(sampleValue(s, "partner_api_auth_failures_total", { code: "INVALID_API_SECRET" })).toBe(1);
    expect(sampleValue(s, "partner_api_auth_failures_total", { code: "INVALID_TOKEN" })).toBe(1);
    expect(sampleValue(s, "partner_api_auth_failures_total", { code: "IP_BLOCKED" })).toBe(1);
    expect(sampleValue(s, "partner_api_auth_failures_total", { code: "VALIDATION_ERROR" })).toBeUndefined();
  });
});

describe("leads created", () => {
  test("201s of POST /v1/leads count, idempotent replays and other routes do not", () => {
    const m = new MetricsRegistry();
    m.observe("/v1/leads", "POST", 201, 1, "p", undefined, false);
    m.observe("/v1/leads", "POST", 201, 1, "p", undefined, true);
    m.observe("/v1/leads", "POST", 400, 1, "p", "VALIDATION_ERROR", false);
    m.observe("/v1/other", "POST", 201, 1, "p", undefined, false);
    expect(sampleValue(scrape(m), "partner_api_leads_created_total", {})).toBe(1);
  });
});

describe("scrape-time facts", () => {
  test("database sizes per configured database and file, and the build info", () => {
    const s = scrape(new MetricsRegistry(), {
      version: "1.2.3",
      environment: "sandbox",
      databases: [
        { database: "agency", file: "main", bytes: 4096 },
        { database: "agency", file: "wal", bytes: 0 },
      ],
    });
    expect(sampleValue(s, "partner_api_database_size_bytes", { database: "agency", file: "main" })).toBe(4096);
    expect(sampleValue(s, "partner_api_database_size_bytes", { database: "agency", file: "wal" })).toBe(0);
    expect(sampleValue(s, "partner_api_build_info", { version: "1.2.3", environment: "sandbox" })).toBe(1);
  });
});

describe("the hot path", () => {
  test("a warm observe allocates no new series", () => {
    const m = new MetricsRegistry();
    m.observe("/v1/leads", "GET", 200, 1, "p", undefined, false);
    const before = m.render(FACTS);
    for (let i = 0; i < 10_000; i++) m.observe("/v1/leads", "GET", 200, 1, "p", undefined, false);
    // Same series, only the numbers moved.
    expect(m.render(FACTS).split("\n").length).toBe(before.split("\n").length);
  });
});

describe("metrics off", () => {
  test("the facts-only scrape has no counter families to read as false zeros", () => {
    const names = new Set(parseExposition(renderFactsOnly(FACTS)).map((s) => s.name));
    expect([...names]).toEqual(["partner_api_build_info"]);
  });
});
