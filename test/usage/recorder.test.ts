// Recording what the agency sees (docs/operators/console.md#how-it-is-recorded): the request log
// keeps only its configured size, a batch the file refused is kept for the next try, days are
// UTC days, and a day's quantiles are read from the latency buckets within 10 %.
import { Database } from "bun:sqlite";
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { ControlStore } from "../../src/db/control/store.ts";
import { UsageStore } from "../../src/db/control/usage.ts";
import { bucketUpperMs, latencyBucket, quantileMs } from "../../src/usage/latency.ts";
import { type FinishedRequest, UsageRecorder } from "../../src/usage/recorder.ts";
import { outcomeOf } from "../../src/usage/tally.ts";
import { scheduling } from "../helpers/sched.ts";

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

describe("the writer thread", () => {
  test("runs ten nice steps below the event loop, so a busy core serves requests first", async () => {
    const own = scheduling("/proc/thread-self").nice;
    const before = new Set(readdirSync("/proc/self/task"));
    const { recorder } = setUp();
    recorder.observe(request(Date.parse("2026-03-10T12:00:00.000Z")));
    await recorder.flush(); // the thread has opened the file, and lowered itself first
    const started = readdirSync("/proc/self/task").filter((tid) => !before.has(tid));
    const nice = started.map((tid) => scheduling(`/proc/self/task/${tid}`).nice);
    expect(nice.filter((n) => n === Math.min(19, own + 10))).toHaveLength(1);
    expect(scheduling("/proc/thread-self").nice).toBe(own);
  });

  test("once the recorder and then the server's connection close, the batch is in the file and no WAL is left", async () => {
    const { path, store, recorder } = setUp();
    store.db.close();
    const server = ControlStore.open(path, { create: false });
    recorder.observe(request(Date.parse("2026-03-10T12:00:00.000Z")));
    await recorder.flush();
    expect(existsSync(`${path}-wal`)).toBe(true);
    recorders.splice(recorders.indexOf(recorder), 1);
    await recorder.close();
    server.close();
    expect(existsSync(`${path}-wal`)).toBe(false);
    // And what it wrote is in the file itself.
    const file = new Database(path, { readonly: true, strict: true });
    expect(file.query("SELECT sum(n) AS n FROM request_log").get()).toEqual({ n: 1 });
    file.close();
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

  test("random traffic across midnight, flushed at random points: every counter and last-seen as tallied here", async () => {
    const midnight = Date.parse("2026-03-11T00:00:00.000Z");
    const arbRequest = fc.record({
      // Within a minute either side of midnight, in any order: requests finish out of order.
      at: fc.integer({ min: midnight - 60_000, max: midnight + 60_000 }),
      clientId: fc.constantFrom("alpha", "beta", null),
      method: fc.constantFrom("GET", "POST"),
      route: fc.constantFrom("/v1/properties", "/v1/leads", "/v1/inbound/:clientId", "/v1/feeds/vrsync.xml", "/health"),
      status: fc.constantFrom(200, 201, 304, 401, 403, 404, 429, 500),
      code: fc.constantFrom(null, "IP_NOT_ALLOWED", "INSUFFICIENT_SCOPE"),
      ms: fc.double({ min: 0, max: 2000, noNaN: true }),
      ip: fc.constantFrom("203.0.113.1", "198.51.100.7", null),
      replayed: fc.boolean(),
      feedBytes: fc.option(fc.integer({ min: 0, max: 1_000_000 }), { nil: undefined }),
      flushAfter: fc.boolean(),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(arbRequest, { maxLength: 60 }), async (requests) => {
        const { store, recorder } = setUp(1000);
        const expected = new Map<string, number>();
        const latest = new Map<string, { at: number; ip: string | null; route: string | null }>();
        const count = (client: string, at: number, name: string, n = 1) => {
          if (n <= 0) return;
          const key = `${client} ${new Date(at).toISOString().slice(0, 10)} ${name}`;
          expected.set(key, (expected.get(key) ?? 0) + n);
        };
        for (const [i, { flushAfter, ...r }] of requests.entries()) {
          recorder.observe({ ...r, requestId: `r-${i}` });
          if (flushAfter) await recorder.flush();
          if (r.clientId === null || r.route === "/health") continue;
          const outcome =
            r.status === 200 || r.status === 201
              ? "2xx"
              : r.status === 304
                ? "3xx"
                : r.status === 500
                  ? "5xx"
                  : String(r.status);
          count(r.clientId, r.at, outcome);
          if (r.status === 403 && r.code !== null) count(r.clientId, r.at, `403:${r.code}`);
          count(r.clientId, r.at, `ms:${latencyBucket(r.ms)}`);
          if (
            r.status === 201 &&
            !r.replayed &&
            r.method === "POST" &&
            r.route !== "/v1/feeds/vrsync.xml" &&
            r.route !== "/v1/properties"
          )
            count(r.clientId, r.at, "leads");
          if (r.route === "/v1/feeds/vrsync.xml" && (r.status === 200 || r.status === 304)) {
            count(r.clientId, r.at, "feed");
            if (r.status === 304) count(r.clientId, r.at, "feed:304");
            count(r.clientId, r.at, "feed:bytes", r.feedBytes ?? 0);
          }
          const seen = latest.get(r.clientId);
          if (seen === undefined || seen.at <= r.at) latest.set(r.clientId, { at: r.at, ip: r.ip, route: r.route });
        }
        await recorder.flush();
        const stored = new Map<string, number>();
        for (const client of ["alpha", "beta"])
          for (const c of store.counts(client, "2026-01-01")) stored.set(`${client} ${c.day} ${c.name}`, c.n);
        expect(Object.fromEntries([...stored].sort())).toEqual(Object.fromEntries([...expected].sort()));
        for (const client of ["alpha", "beta"]) expect(store.lastSeen(client)).toEqual(latest.get(client) ?? null);
        expect(store.requestPage({}, 1000, 0, 1000).total).toBe(requests.filter((r) => r.route !== "/health").length);
      }),
      { numRuns: 60 },
    );
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
