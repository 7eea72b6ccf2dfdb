import { describe, expect, test } from "bun:test";
import { Counter } from "prom-client";
import { OVERFLOW_LABEL } from "../../src/metrics/bounded.ts";
import { MetricsRegistry, type ScrapeFacts } from "../../src/metrics/registry.ts";
import { AUTH_FAILURE_CODES, NO_CLIENT, UNMATCHED_ROUTE } from "../../src/metrics/requests.ts";
import { familyTypes, parseExposition, sampleValue } from "./parse.ts";

const FACTS: ScrapeFacts = { version: "1.2.3", environment: "production", databases: [] };

async function scrape(registry: MetricsRegistry, facts: ScrapeFacts = FACTS) {
  return parseExposition(await registry.render(facts));
}

function recorder(registry: MetricsRegistry) {
  return registry.requests!;
}

describe("requests by route and status", () => {
  test("counted per route template, method and status", async () => {
    const m = new MetricsRegistry();
    recorder(m).observe("/v1/leads/:id", "GET", 200, 1, "portal", undefined, false);
    recorder(m).observe("/v1/leads/:id", "GET", 200, 1, "portal", undefined, false);
    recorder(m).observe("/v1/leads/:id", "GET", 404, 1, "portal", "NOT_FOUND", false);
    recorder(m).observe("/v1/leads", "POST", 201, 1, "portal", undefined, false);
    const s = await scrape(m);
    expect(
      sampleValue(s, "partner_api_http_requests_total", { route: "/v1/leads/:id", method: "GET", status: "200" }),
    ).toBe(2);
    expect(
      sampleValue(s, "partner_api_http_requests_total", { route: "/v1/leads/:id", method: "GET", status: "404" }),
    ).toBe(1);
    expect(
      sampleValue(s, "partner_api_http_requests_total", { route: "/v1/leads", method: "POST", status: "201" }),
    ).toBe(1);
  });

  test("requests no route matched share one label, never their raw path", async () => {
    const m = new MetricsRegistry();
    recorder(m).observe(null, "GET", 404, 1, undefined, "NOT_FOUND", false);
    recorder(m).observe(null, "GET", 404, 1, undefined, "NOT_FOUND", false);
    const s = await scrape(m);
    expect(
      sampleValue(s, "partner_api_http_requests_total", { route: UNMATCHED_ROUTE, method: "GET", status: "404" }),
    ).toBe(2);
  });

  test("unknown methods are folded into OTHER", async () => {
    const m = new MetricsRegistry();
    recorder(m).observe(null, "BREW", 404, 1, undefined, undefined, false);
    expect(
      sampleValue(await scrape(m), "partner_api_http_requests_total", {
        route: UNMATCHED_ROUTE,
        method: "OTHER",
        status: "404",
      }),
    ).toBe(1);
  });

  test("the route label set is capped: past the cap, new routes share the overflow label", async () => {
    const m = new MetricsRegistry();
    for (let i = 0; i < 150; i++) recorder(m).observe(`/r${i}`, "GET", 200, 1, undefined, undefined, false);
    const s = await scrape(m);
    const routes = new Set(s.filter((x) => x.name === "partner_api_http_requests_total").map((x) => x.labels.route));
    expect(routes.size).toBe(101);
    expect(
      sampleValue(s, "partner_api_http_requests_total", { route: OVERFLOW_LABEL, method: "GET", status: "200" }),
    ).toBe(50);
  });
});

describe("latency histogram by route", () => {
  test("durations land in seconds buckets with sum and count per route and method", async () => {
    const m = new MetricsRegistry();
    recorder(m).observe("/v1/properties", "GET", 200, 0.3, "p", undefined, false); // 0.0003 s
    recorder(m).observe("/v1/properties", "GET", 200, 30, "p", undefined, false); // 0.03 s
    const s = await scrape(m);
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
  test("counted under the client id, or the unauthenticated label when none was known", async () => {
    const m = new MetricsRegistry();
    recorder(m).observe("/v1/leads", "GET", 429, 1, "portal", "RATE_LIMIT_EXCEEDED", false);
    recorder(m).observe("/v1/leads", "GET", 429, 1, "portal", "RATE_LIMIT_EXCEEDED", false);
    recorder(m).observe("/v1/auth/token", "POST", 429, 1, undefined, "RATE_LIMIT_EXCEEDED", false);
    recorder(m).observe("/v1/leads", "GET", 200, 1, "other", undefined, false);
    const s = await scrape(m);
    expect(sampleValue(s, "partner_api_rate_limited_total", { client: "portal" })).toBe(2);
    expect(sampleValue(s, "partner_api_rate_limited_total", { client: NO_CLIENT })).toBe(1);
    expect(sampleValue(s, "partner_api_rate_limited_total", { client: "other" })).toBeUndefined();
  });

  test("the client label set is capped", async () => {
    const m = new MetricsRegistry();
    for (let i = 0; i < 1100; i++)
      recorder(m).observe("/v1/leads", "GET", 429, 1, `c${i}`, "RATE_LIMIT_EXCEEDED", false);
    const s = await scrape(m);
    expect(s.filter((x) => x.name === "partner_api_rate_limited_total").length).toBe(1001);
    expect(sampleValue(s, "partner_api_rate_limited_total", { client: OVERFLOW_LABEL })).toBe(100);
  });
});

describe("authentication failures by code", () => {
  test("every code of the contract's authentication failures is reported, from zero", async () => {
    const s = await scrape(new MetricsRegistry());
    for (const code of AUTH_FAILURE_CODES) expect(sampleValue(s, "partner_api_auth_failures_total", { code })).toBe(0);
  });

  test("those codes are counted; other error codes are not authentication failures", async () => {
    const m = new MetricsRegistry();
    recorder(m).observe("/v1/auth/token", "POST", 401, 1, undefined, "INVALID_API_SECRET", false);
    recorder(m).observe("/v1/leads", "GET", 401, 1, undefined, "INVALID_TOKEN", false);
    recorder(m).observe("/v1/leads", "GET", 403, 1, undefined, "IP_BLOCKED", false);
    recorder(m).observe("/v1/leads", "GET", 400, 1, "p", "VALIDATION_ERROR", false);
    const s = await scrape(m);
    expect(sampleValue(s, "partner_api_auth_failures_total", { code: "INVALID_API_SECRET" })).toBe(1);
    expect(sampleValue(s, "partner_api_auth_failures_total", { code: "INVALID_TOKEN" })).toBe(1);
    expect(sampleValue(s, "partner_api_auth_failures_total", { code: "IP_BLOCKED" })).toBe(1);
    expect(sampleValue(s, "partner_api_auth_failures_total", { code: "VALIDATION_ERROR" })).toBeUndefined();
  });
});

describe("leads created", () => {
  test("201s of POST /v1/leads count, idempotent replays and other routes do not", async () => {
    const m = new MetricsRegistry();
    recorder(m).observe("/v1/leads", "POST", 201, 1, "p", undefined, false);
    recorder(m).observe("/v1/leads", "POST", 201, 1, "p", undefined, true);
    recorder(m).observe("/v1/leads", "POST", 400, 1, "p", "VALIDATION_ERROR", false);
    recorder(m).observe("/v1/other", "POST", 201, 1, "p", undefined, false);
    expect(sampleValue(await scrape(m), "partner_api_leads_created_total", {})).toBe(1);
  });
});

describe("scrape-time facts", () => {
  test("database sizes per configured database and file, and the build info", async () => {
    const s = await scrape(new MetricsRegistry(), {
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

  test("a database gone from the config leaves no stale series at the next scrape", async () => {
    const m = new MetricsRegistry();
    await m.render({ ...FACTS, databases: [{ database: "old", file: "main", bytes: 1 }] });
    const s = await scrape(m, { ...FACTS, databases: [{ database: "new", file: "main", bytes: 2 }] });
    expect(sampleValue(s, "partner_api_database_size_bytes", { database: "old", file: "main" })).toBeUndefined();
    expect(sampleValue(s, "partner_api_database_size_bytes", { database: "new", file: "main" })).toBe(2);
  });
});

describe("the process", () => {
  test("memory, CPU, open files, event-loop lag and garbage collections are in every scrape", async () => {
    const text = await new MetricsRegistry().render(FACTS);
    const types = familyTypes(text);
    for (const [name, type] of [
      ["process_resident_memory_bytes", "gauge"],
      ["process_cpu_seconds_total", "counter"],
      ["process_open_fds", "gauge"],
      ["nodejs_eventloop_lag_seconds", "gauge"],
      ["nodejs_eventloop_lag_p99_seconds", "gauge"],
      ["nodejs_heap_size_used_bytes", "gauge"],
      ["partner_api_gc_collections_total", "counter"],
    ]) {
      expect(types.get(name!)).toBe(type!);
    }
    expect(sampleValue(parseExposition(text), "process_resident_memory_bytes", {})).toBeGreaterThan(0);
  });

  test("default metrics Bun never feeds are left out rather than shown empty or at zero", async () => {
    const names = [...familyTypes(await new MetricsRegistry().render(FACTS)).keys()];
    expect(
      names.filter(
        (name) =>
          name === "nodejs_gc_duration_seconds" ||
          name.startsWith("nodejs_active_") ||
          name.startsWith("nodejs_heap_space_"),
      ),
    ).toEqual([]);
  });

  test("every family declared in a scrape has samples", async () => {
    const text = await new MetricsRegistry().render(FACTS);
    const sampled = new Set(parseExposition(text).map((s) => s.name.replace(/_(bucket|sum|count)$/, "")));
    const empty = [...familyTypes(text).keys()].filter((name) => !sampled.has(name));
    // Families labelled by route, client or database get samples with their first request or
    // database; every other family always has samples.
    expect(empty.sort()).toEqual([
      "partner_api_database_size_bytes",
      "partner_api_http_request_duration_seconds",
      "partner_api_http_requests_total",
      "partner_api_rate_limited_total",
    ]);
  });

  test("a garbage collection is counted", async () => {
    const m = new MetricsRegistry();
    const collections = async () => sampleValue(await scrape(m), "partner_api_gc_collections_total", {})!;
    const before = await collections();
    // The finaliser runs in a later turn after the collection that reclaimed the sentinel.
    for (let i = 0; i < 50 && (await collections()) === before; i++) {
      Bun.gc(true);
      await Bun.sleep(10);
    }
    expect(await collections()).toBeGreaterThan(before);
  });
});

describe("servers side by side", () => {
  test("two registries in one process keep their own request counts and share the process metrics", async () => {
    const a = new MetricsRegistry();
    const b = new MetricsRegistry();
    recorder(a).observe("/v1/leads", "GET", 200, 1, "p", undefined, false);
    expect(
      sampleValue(await scrape(a), "partner_api_http_requests_total", {
        route: "/v1/leads",
        method: "GET",
        status: "200",
      }),
    ).toBe(1);
    const other = await scrape(b);
    expect(
      sampleValue(other, "partner_api_http_requests_total", { route: "/v1/leads", method: "GET", status: "200" }),
    ).toBeUndefined();
    expect(sampleValue(other, "process_open_fds", {})).toBeGreaterThan(0);
  });
});

describe("adding a feature's metrics", () => {
  test("a metric registered on the server's registry is in its scrape", async () => {
    const m = new MetricsRegistry();
    const deliveries = new Counter({
      name: "partner_api_test_deliveries_total",
      help: "Test deliveries.",
      labelNames: ["outcome"],
      registers: [m.registry],
    });
    deliveries.labels("succeeded").inc(3);
    expect(sampleValue(await scrape(m), "partner_api_test_deliveries_total", { outcome: "succeeded" })).toBe(3);
  });
});

describe("the hot path", () => {
  test("a warm observe allocates no new series", async () => {
    const m = new MetricsRegistry();
    recorder(m).observe("/v1/leads", "GET", 200, 1, "p", undefined, false);
    const count = async () => (await scrape(m)).filter((s) => s.name.startsWith("partner_api_http")).length;
    const before = await count();
    for (let i = 0; i < 10_000; i++) recorder(m).observe("/v1/leads", "GET", 200, 1, "p", undefined, false);
    expect(await count()).toBe(before);
  });
});

describe("request metrics off", () => {
  test("no request family is shown at a false zero; the facts and the process are", async () => {
    const text = await new MetricsRegistry({ requests: false }).render(FACTS);
    const names = [...familyTypes(text).keys()];
    expect(
      names.filter(
        (name) =>
          name.startsWith("partner_api_http") ||
          name.includes("rate_limited") ||
          name.includes("auth_failures") ||
          name.includes("leads_created"),
      ),
    ).toEqual([]);
    expect(names).toContain("partner_api_build_info");
    expect(names).toContain("process_resident_memory_bytes");
  });
});
