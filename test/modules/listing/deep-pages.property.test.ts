// Totals and deep pages found through the per-day counters must be exactly what a plain
// COUNT(*) and LIMIT/OFFSET over the same file give: for random filters, date bounds (same
// day, across days, open-ended), sorts and pages (past DEEP_OFFSET and past the end), and
// again after another connection has inserted, edited, unpublished and deleted rows.
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fc from "fast-check";
import { DEEP_OFFSET } from "../../../src/modules/listing/repo.ts";
import { client, createTestApp, read, type TestApp } from "../../helpers/app.ts";

const portal = client("portal");
let t: TestApp;
let token: string;
let db: Database;

beforeAll(async () => {
  t = createTestApp({ clients: [portal.entry], properties: 2_500, leads: 2_500 });
  token = await t.token(portal);
  db = new Database(t.runtime.config.databases.get("main")!);
  db.run("PRAGMA busy_timeout = 5000");
});
afterAll(() => {
  db.close();
  t.close();
});

type Entity = "properties" | "leads";
const SORTS = ["createdAt", "-createdAt", "updatedAt", "-updatedAt"] as const;
const FILTERS: Record<Entity, { param: string; column: string }[]> = {
  properties: [
    { param: "status", column: "status" },
    { param: "operationType", column: "operation_type" },
    { param: "propertyType", column: "property_type" },
    { param: "highlight", column: "highlight" },
    { param: "code", column: "code" },
  ],
  leads: [
    { param: "status", column: "status" },
    { param: "source", column: "source" },
  ],
};
const DATES = [
  { param: "createdAfter", column: "created_at", op: ">" },
  { param: "createdBefore", column: "created_at", op: "<" },
  { param: "updatedAfter", column: "updated_at", op: ">" },
  { param: "updatedBefore", column: "updated_at", op: "<" },
] as const;

interface Case {
  entity: Entity;
  filter: { param: string; column: string; value: string } | null;
  dates: { param: string; column: string; op: string; value: string }[];
  sort: (typeof SORTS)[number];
  limit: number;
  page: number;
}

/** A stored date of the entity, moved by up to a day either way: bounds land inside days and on their edges. */
function dateNear(entity: Entity, pick: number, shiftMs: number): string {
  const dates = db.query(`SELECT created_at FROM ${entity} ORDER BY rowid LIMIT 1 OFFSET ?`).values(pick % 2_000) as [string][];
  return new Date(Date.parse(dates[0]![0]) + shiftMs).toISOString();
}

function valueOf(entity: Entity, column: string, pick: number): string {
  const rows = db.query(`SELECT DISTINCT ${column} FROM ${entity} WHERE ${column} IS NOT NULL ORDER BY 1`).values() as [string][];
  return rows[pick % rows.length]![0];
}

const caseArb = fc
  .record({
    entity: fc.constantFrom<Entity>("properties", "leads"),
    filterPick: fc.option(fc.nat(100), { nil: null }),
    valuePick: fc.nat(1_000),
    dateParams: fc.subarray([0, 1, 2, 3]),
    datePicks: fc.array(fc.tuple(fc.nat(5_000), fc.integer({ min: -86_400_000, max: 86_400_000 })), { minLength: 4, maxLength: 4 }),
    sameDay: fc.boolean(),
    sort: fc.constantFrom(...SORTS),
    limit: fc.constantFrom(1, 7, 20, 100),
    // Pages around and past DEEP_OFFSET, the end of the list and far beyond it.
    rowOffset: fc.oneof(fc.nat(3_000), fc.integer({ min: DEEP_OFFSET - 5, max: DEEP_OFFSET + 5 }), fc.constant(1_000_000)),
  })
  .map((r): Case => {
    const filters = FILTERS[r.entity];
    const spec = r.filterPick === null ? null : filters[r.filterPick % filters.length]!;
    const dates = r.dateParams.map((i) => {
      const [pick, shift] = r.datePicks[i]!;
      return { ...DATES[i]!, value: dateNear(r.entity, pick, shift) };
    });
    // Both bounds of one column within a day of each other, sometimes: the one-day path.
    const after = dates.find((d) => d.op === ">");
    const before = dates.find((d) => d.op === "<" && d.column === after?.column);
    if (r.sameDay && after && before) before.value = new Date(Date.parse(after.value) + 3_600_000).toISOString();
    return {
      entity: r.entity,
      filter: spec === null ? null : { ...spec, value: valueOf(r.entity, spec.column, r.valuePick) },
      dates,
      sort: r.sort,
      limit: r.limit,
      page: Math.floor(r.rowOffset / r.limit) + 1,
    };
  });

function expected(c: Case): { ids: string[]; total: number } {
  const where = [c.entity === "properties" ? "is_published = 1" : "1 = 1"];
  const params: string[] = [];
  if (c.filter) {
    where.push(`${c.filter.column} = ?`);
    params.push(c.filter.value);
  }
  for (const d of c.dates) {
    where.push(`${d.column} ${d.op} ?`);
    params.push(d.value);
  }
  const column = c.sort.endsWith("updatedAt") ? "updated_at" : "created_at";
  const direction = c.sort.startsWith("-") ? "DESC" : "ASC";
  const sql = `FROM ${c.entity} WHERE ${where.join(" AND ")}`;
  const total = (db.query(`SELECT count(*) ${sql}`).values(...params)[0] as [number])[0];
  const ids = (db.query(`SELECT id ${sql} ORDER BY ${column} ${direction}, id ${direction} LIMIT ? OFFSET ?`).values(...params, c.limit, (c.page - 1) * c.limit) as [string][]).map((r) => r[0]);
  return { ids, total };
}

async function actual(c: Case): Promise<{ ids: string[]; total: number }> {
  const query = new URLSearchParams({ fields: "id", sort: c.sort, limit: String(c.limit), page: String(c.page) });
  if (c.filter) query.set(c.filter.param, c.filter.value);
  for (const d of c.dates) query.set(d.param, d.value);
  const { status, body } = await read(await t.get(`/v1/${c.entity}?${query}`, token));
  expect(status).toBe(200);
  return { ids: body.data.map((row: { id: string }) => row.id), total: body.meta.total };
}

const checkAll = () =>
  fc.assert(
    fc.asyncProperty(caseArb, async (c) => {
      expect(await actual(c)).toEqual(expected(c));
    }),
    { numRuns: 300 },
  );

describe("lists through the per-day counters equal a plain COUNT and OFFSET", () => {
  test("on the seeded file", checkAll, 60_000);

  test("after another connection inserts, edits, unpublishes and deletes rows", async () => {
    db.transaction(() => {
      // Retimed across days, re-statused, unpublished, republished, deleted: every trigger path.
      db.run("UPDATE properties SET updated_at = '2026-05-31T23:59:59.999Z', status = 'RESERVED' WHERE rowid % 7 = 0");
      db.run("UPDATE properties SET created_at = '2025-01-01T00:00:00.000Z', property_type = NULL WHERE rowid % 11 = 0");
      db.run("UPDATE properties SET is_published = 1 - is_published WHERE rowid % 13 = 0");
      db.run("DELETE FROM photos WHERE property_id IN (SELECT id FROM properties WHERE rowid % 17 = 0)");
      db.run("DELETE FROM properties WHERE rowid % 17 = 0");
      db.run("UPDATE leads SET status = 'LOST', updated_at = '2026-05-30T00:00:00.000Z' WHERE rowid % 5 = 0");
      db.run("DELETE FROM leads WHERE rowid % 19 = 0");
      db.run(
        `INSERT INTO leads (id, name, email, phone, message, source, status, priority, created_at, updated_at)
         SELECT 'copy-' || id, name, email, phone, message, source, status, priority, created_at, updated_at FROM leads WHERE rowid % 3 = 0`,
      );
    })();
    await checkAll();
  }, 60_000);
});
