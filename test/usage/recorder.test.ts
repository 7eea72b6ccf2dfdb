// Recording what the agency sees (docs/operators/console.md#how-it-is-recorded): the request log
// keeps only its configured size, a batch the file refused is kept for the next try, days are
// UTC days, and a day's quantiles are read from the latency buckets within 10 %.
import { Database } from "bun:sqlite";
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ControlStore } from "../../src/db/control/store.ts";
import { UsageStore } from "../../src/db/control/usage.ts";
import { bucketUpperMs, latencyBucket, quantileMs } from "../../src/usage/latency.ts";
import { type FinishedRequest, outcomeOf, UsageRecorder } from "../../src/usage/recorder.ts";

const dirs: string[] = [];
const recorders: UsageRecorder[] = [];
afterEach(async () => {
  for (const recorder of recorders.splice(0)) await recorder.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function setUp(logRows = 5) {
  const dir = mkdtempSync(join(tmpdir(), "pa-usage-"));
  dirs.push(dir);
  const path = join(dir, "control.sqlite");
  ControlStore.open(path, { create: true }).close();
  const store = new UsageStore(new Database(path, { readonly: true, strict: true }));
  const errors: string[] = [];
  const recorder = new UsageRecorder(path, {
    requests: true,
    logRows: () => logRows,
    now: () => Date.parse("2026-03-10T23:59:59.000Z"),
    onError: (m) => errors.push(m),
    busyTimeoutMs: 20,
  });
  recorders.push(recorder);
  return { path, store, recorder, errors };
}

const request = (at: number, extra: Partial<FinishedRequest> = {}): FinishedRequest => ({
  at,
  clientId: "alpha",
  method: "GET",
  route: "/v1/properties",
  status: 200,
  code: null,
  ms: 3,
  ip: "203.0.113.1",
  requestId: `r-${at}`,
  replayed: false,
  ...extra,
});

describe("the request log", () => {
  test("keeps only the newest requestLogRows rows", async () => {
    const { store, recorder } = setUp(5);
    const at = Date.parse("2026-03-10T12:00:00.000Z");
    for (let i = 0; i < 8; i++) recorder.observe(request(at + i));
    await recorder.flush();
    for (let i = 8; i < 12; i++) recorder.observe(request(at + i));
    await recorder.flush();
    const { rows, total } = store.requestPage({}, 100, 0, 5);
    expect(total).toBe(5);
    expect(rows.map((r) => r.requestId)).toEqual([11, 10, 9, 8, 7].map((i) => `r-${at + i}`));
    // The file keeps whole batches: the newest five are in the last two, the first goes with a third.
    for (let i = 12; i < 15; i++) recorder.observe(request(at + i));
    await recorder.flush();
    const held = store.db.query("SELECT sum(n) AS n, count(*) AS batches FROM request_log").get();
    expect(held).toEqual({ n: 7, batches: 2 });
    expect(store.requestPage({}, 100, 0, 5).rows.map((r) => r.requestId)).toEqual(
      [14, 13, 12, 11, 10].map((i) => `r-${at + i}`),
    );
  });

  test("the console's and admin API's requests, health checks and scrapes are not recorded", async () => {
    const { store, recorder } = setUp();
    const at = Date.parse("2026-03-10T12:00:00.000Z");
    for (const route of ["/admin/v1/partners", "/console/usage", "/health", "/metrics"])
      recorder.observe(request(at, { route, clientId: null }));
    await recorder.flush();
    expect(store.requestPage({}, 10, 0, 100).total).toBe(0);
  });
});

describe("counters", () => {
  test("UTC days; a refused batch is written at the next try, nothing counted twice", async () => {
    const { path, store, recorder, errors } = setUp();
    recorder.observe(request(Date.parse("2026-03-10T23:59:59.999Z")));
    recorder.observe(request(Date.parse("2026-03-11T00:00:00.000Z"), { status: 403, code: "IP_BLOCKED" }));
    // Another connection holds the write lock past the recorder's wait.
    const blocker = new Database(path);
    blocker.run("PRAGMA busy_timeout = 0");
    blocker.run("BEGIN IMMEDIATE");
    await recorder.flush();
    expect(errors.length).toBe(1);
    expect(errors[0]).toContain("locked");
    blocker.run("COMMIT");
    blocker.close();
    await recorder.flush();
    const counts = store.counts("alpha", "2026-03-01").filter((c) => !c.name.startsWith("ms:"));
    expect(counts).toEqual([
      { day: "2026-03-10", name: "2xx", n: 1 },
      { day: "2026-03-11", name: "403", n: 1 },
      { day: "2026-03-11", name: "403:IP_BLOCKED", n: 1 },
    ]);
    expect(store.requestPage({}, 10, 0, 100).total).toBe(2);
  });

  test("outcomes as the usage route names them", () => {
    expect([200, 201, 304, 400, 401, 403, 404, 405, 413, 429, 500, 503].map(outcomeOf)).toEqual([
      "2xx",
      "2xx",
      "3xx",
      "4xx",
      "401",
      "403",
      "404",
      "4xx",
      "4xx",
      "429",
      "5xx",
      "5xx",
    ]);
  });
});

describe("latency buckets", () => {
  test("a bucket's upper bound is within 10 % of every latency it holds", () => {
    for (const ms of [0.06, 0.5, 1, 3.3, 17, 250, 1234.5, 9999]) {
      const upper = bucketUpperMs(latencyBucket(ms));
      expect(upper).toBeGreaterThanOrEqual(ms * 0.999999);
      expect(upper).toBeLessThanOrEqual(ms * 1.1 + 1e-9);
    }
  });

  test("p50 and p95 of known latencies", () => {
    const counts = new Map<number, number>();
    for (let ms = 1; ms <= 100; ms++) counts.set(latencyBucket(ms), (counts.get(latencyBucket(ms)) ?? 0) + 1);
    const p50 = quantileMs(counts, 0.5)!;
    const p95 = quantileMs(counts, 0.95)!;
    expect(p50).toBeGreaterThanOrEqual(50);
    expect(p50).toBeLessThanOrEqual(55.01);
    expect(p95).toBeGreaterThanOrEqual(95);
    expect(p95).toBeLessThanOrEqual(104.51);
    expect(quantileMs(new Map(), 0.5)).toBeNull();
  });
});
