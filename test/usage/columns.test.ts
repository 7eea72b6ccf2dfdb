// A batch's requests held in columns (src/usage/columns.ts) and packed into the log's row
// (src/db/control/request-log.ts) read back as the requests themselves: across the columns'
// growth, with null fields, repeated and distinct values, latencies rounded to hundredths, and
// empty again after each take. A file written before the packed form keeps its batches of lines,
// read beside the packed ones after the upgrade.
import { Database } from "bun:sqlite";
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { CONTROL_APPLICATION_ID, CONTROL_MIGRATIONS, openUsageConnection } from "../../src/db/control/open.ts";
import { packRequests, type RequestLogRow, requestsOf } from "../../src/db/control/request-log.ts";
import { ControlStore } from "../../src/db/control/store.ts";
import { UsageStore } from "../../src/db/control/usage.ts";
import { RequestColumns } from "../../src/usage/columns.ts";

const NOW = 1_800_000_000_000;
/** Arrivals as a batch's are (within a minute), or spread wider than the packed form's narrow column takes. */
const NEAR = fc.integer({ min: NOW, max: NOW + 60_000 });
const FAR = fc.integer({ min: 1_700_000_000_000, max: 1_900_000_000_000 });
const row = (at: fc.Arbitrary<number>): fc.Arbitrary<RequestLogRow> =>
  fc.record({
    at,
    client: fc.constantFrom(null, "alpha", "beta", "portal-zap", "imobiliária-são-joão"),
    method: fc.constantFrom("GET", "POST", "PATCH"),
    route: fc.constantFrom(null, "/v1/properties", "/v1/leads/:id"),
    status: fc.constantFrom(200, 201, 304, 401, 403, 404, 429, 500),
    code: fc.constantFrom(null, "IP_BLOCKED", "NOT_FOUND"),
    // As measured: the log keeps hundredths.
    ms: fc.double({ min: 0, max: 5_000, noNaN: true }),
    ip: fc.oneof(fc.constant(null), fc.ipV4(), fc.ipV6()),
    requestId: fc.oneof(
      fc.uuid(),
      fc.uuid().map((id) => id.toUpperCase()),
      // A UUID's length without being one: kept as text.
      fc.stringMatching(/^[0-9a-f-]{36}$/),
      fc.stringMatching(/^[A-Za-z0-9._-]{1,64}$/),
      // Not one the server makes or takes, but a caller of the recorder may give any id without a newline.
      fc.string({ unit: "grapheme", minLength: 1, maxLength: 20 }).filter((id) => !id.includes("\n")),
    ),
  });

const hundredths = (r: RequestLogRow): RequestLogRow => ({ ...r, ms: Math.round(r.ms * 100) / 100 });

describe("request columns", () => {
  test("each take, packed and read back, is the requests added, in order", () => {
    const columns = new RequestColumns();
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.array(row(NEAR), { maxLength: 3000 }), fc.array(row(FAR), { maxLength: 300 })), {
          minLength: 1,
          maxLength: 3,
        }),
        (batches) => {
          for (const batch of batches) {
            for (const r of batch) columns.add({ ...r, clientId: r.client, replayed: false });
            expect(columns.n).toBe(batch.length);
            const packed = packRequests(columns.take().data);
            expect(columns.n).toBe(0);
            expect(packed.n).toBe(batch.length);
            expect(requestsOf(packed.bytes)).toEqual(batch.map(hundredths));
            if (batch.length > 0) {
              expect(packed.firstAt).toBe(Math.min(...batch.map((r) => r.at)));
              expect(packed.lastAt).toBe(Math.max(...batch.map((r) => r.at)));
            }
          }
        },
      ),
      { numRuns: 40 },
    );
  });

  test("more distinct values than a u16 position reaches: each request keeps its own", () => {
    const columns = new RequestColumns();
    const batch: RequestLogRow[] = Array.from({ length: 70_000 }, (_, i) => ({
      at: NOW + i,
      client: "alpha",
      method: "GET",
      route: "/v1/properties",
      status: 200,
      code: null,
      ms: 1.25,
      // A distinct address each: 70,002 distinct values in all.
      ip: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`,
      requestId: crypto.randomUUID(),
    }));
    for (const r of batch) columns.add({ ...r, clientId: r.client, replayed: false });
    const rows = requestsOf(packRequests(columns.take().data).bytes);
    expect(rows.length).toBe(batch.length);
    for (const i of [0, 65_535, 65_536, 65_537, 69_999]) expect(rows[i]).toEqual(batch[i]!);
  });

  test("a UUID as the server makes it takes 16 bytes; any other id its own bytes", () => {
    const pack = (ids: string[]) => {
      const columns = new RequestColumns();
      for (const requestId of ids)
        columns.add({
          at: NOW,
          clientId: "alpha",
          method: "GET",
          route: "/v1/properties",
          status: 200,
          code: null,
          ms: 1,
          ip: null,
          requestId,
          replayed: false,
        });
      return packRequests(columns.take().data).bytes.length;
    };
    const uuids = Array.from({ length: 100 }, () => crypto.randomUUID());
    // 100 more UUIDs add 100 × (16 bytes and a 1-byte mark) and the rest of their rows.
    const perRow = (pack([...uuids, ...uuids]) - pack(uuids)) / 100;
    const upper = (pack([...uuids, ...uuids.map((id) => id.toUpperCase())]) - pack(uuids)) / 100;
    // An upper-case UUID is kept as written: 36 bytes and its newline instead of 16.
    expect(upper - perRow).toBe(37 - 16);
  });
});

describe("the request log's rows across the upgrade to the packed form", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  test("a batch of lines written before is read beside a packed one written after", () => {
    const dir = mkdtempSync(join(tmpdir(), "pa-request-log-"));
    dirs.push(dir);
    const path = join(dir, "control.sqlite");
    // A control file as the build before the packed form left it: its three migrations, one batch of lines.
    const before = new Database(path, { create: true, strict: true });
    for (const [i, sql] of CONTROL_MIGRATIONS.slice(0, 3).entries()) {
      before.run(sql);
      before.run(`PRAGMA user_version = ${i + 1}`);
    }
    before.run(`PRAGMA application_id = ${CONTROL_APPLICATION_ID}`);
    const old = [
      "1767225600000\x1falpha\x1fGET\x1f/v1/properties\x1f200\x1f\x00\x1f3.25\x1f203.0.113.1\x1fold-1",
      "1767225600500\x1f\x00\x1fGET\x1f\x00\x1f401\x1fUNAUTHORIZED\x1f0.5\x1f\x00\x1fold-2",
    ].join("\n");
    before
      .query("INSERT INTO request_log (first_at, last_at, n, upto, requests) VALUES (?, ?, 2, 2, ?)")
      .run(1767225600000, 1767225600500, old);
    before.close();

    ControlStore.open(path, { create: false }).close(); // the upgrade
    const store = new UsageStore(openUsageConnection(path));
    const columns = new RequestColumns();
    columns.add({
      at: 1767225601000,
      clientId: "beta",
      method: "POST",
      route: "/v1/leads",
      status: 201,
      code: null,
      ms: 12.346,
      ip: "2001:db8::1",
      requestId: "new-1",
      replayed: false,
    });
    store.write(
      {
        counts: new Map(),
        lastSeen: new Map(),
        requests: packRequests(columns.take().data),
        attempts: [],
        feedRuns: [],
      },
      1000,
    );
    const page = store.requestPage({}, 10, 0, 1000);
    expect(page.total).toBe(3);
    expect(page.rows).toEqual([
      {
        at: 1767225601000,
        client: "beta",
        method: "POST",
        route: "/v1/leads",
        status: 201,
        code: null,
        ms: 12.35,
        ip: "2001:db8::1",
        requestId: "new-1",
      },
      {
        at: 1767225600500,
        client: null,
        method: "GET",
        route: null,
        status: 401,
        code: "UNAUTHORIZED",
        ms: 0.5,
        ip: null,
        requestId: "old-2",
      },
      {
        at: 1767225600000,
        client: "alpha",
        method: "GET",
        route: "/v1/properties",
        status: 200,
        code: null,
        ms: 3.25,
        ip: "203.0.113.1",
        requestId: "old-1",
      },
    ]);
    const kinds = store.db.query("SELECT typeof(requests) AS kind FROM request_log ORDER BY id").all();
    expect(kinds).toEqual([{ kind: "text" }, { kind: "blob" }]);
    store.db.close();
  });
});
