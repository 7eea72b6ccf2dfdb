// Totals and deep pages found through the per-day counters must be exactly what a plain
// COUNT(*) and LIMIT/OFFSET over the same file give: for random filters (one, or a lead status
// with a second), date bounds (same day, across days, open-ended), sorts and pages (past
// DEEP_OFFSET and past the end), and again after another connection has inserted, edited,
// unpublished and deleted rows. Each case is asked through the app, and of a repository that
// treats every page past the 25th row as deep: on a file this small, that is how pages start on
// every kind of day. Lead lists are asked both by a client that reads every lead and by one that
// reads only its own (the owner filter forced: docs/partners/scopes.md), over leads spread among
// owners. A lead status has no index of its own: its lists start where its day counters place
// them, at the edge day on page 1 (query/list-repo.ts edgeBounds), checked here with a status that
// only a few old leads hold.
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fc from "fast-check";
import { CATALOGS } from "../../src/catalog/index.ts";
import { DEEP_OFFSET, ListRepo } from "../../src/query/list-repo.ts";
import { ownLeadsOf } from "../../src/query/lists.ts";
import { parseListQuery } from "../../src/query/params.ts";
import { client, createTestApp, read, type TestApp } from "../helpers/app.ts";

// Several hundred lists per check: a limit no check reaches.
const portal = client("portal", { rateLimitPerMinute: 100_000 });
/** A client with the default scopes: it reads the leads whose created_by is its id. */
const owner = client("owner", { rateLimitPerMinute: 100_000, scopes: undefined });
let t: TestApp;
let token: string;
let ownerToken: string;
let db: Database;
let shallow: Record<Entity, ListRepo>;

beforeAll(async () => {
  t = createTestApp({ clients: [portal.entry, owner.entry], properties: 2_500, leads: 2_500 });
  token = await t.token(portal);
  ownerToken = await t.token(owner);
  db = new Database(t.runtime.config.databases.get("main")!);
  db.run("PRAGMA busy_timeout = 5000");
  // Seeded leads have no owner: a third become the owner client's, a third another client's,
  // through the triggers that keep the per-owner counters.
  db.run("UPDATE leads SET created_by = CASE rowid % 3 WHEN 0 THEN 'owner' WHEN 1 THEN 'other' ELSE NULL END");
  const tenant = t.runtime.tenants.get(t.runtime.config.databases.get("main")!)!;
  shallow = {
    properties: new ListRepo(tenant, CATALOGS.properties, 25),
    leads: new ListRepo(tenant, CATALOGS.leads, 25),
  };
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
    { param: "priority", column: "priority" },
    { param: "createdBy", column: "created_by" },
  ],
};
/** Given beside a lead status: no counter holds the pair, so such a list is walked. */
const SECOND_LEAD_FILTERS = [
  { param: "priority", column: "priority" },
  { param: "source", column: "source" },
];
const DATES = [
  { param: "createdAfter", column: "created_at", op: ">" },
  { param: "createdBefore", column: "created_at", op: "<" },
  { param: "updatedAfter", column: "updated_at", op: ">" },
  { param: "updatedBefore", column: "updated_at", op: "<" },
] as const;

interface Case {
  entity: Entity;
  filters: { param: string; column: string; value: string }[];
  dates: { param: string; column: string; op: string; value: string }[];
  sort: (typeof SORTS)[number];
  limit: number;
  page: number;
  /** Asked by the client that reads only its own leads. */
  own?: boolean;
}

/** A stored date of the entity, moved by up to a day either way: bounds land inside days and on their edges. */
function dateNear(entity: Entity, pick: number, shiftMs: number): string {
  const dates = db.query(`SELECT created_at FROM ${entity} ORDER BY rowid LIMIT 1 OFFSET ?`).values(pick % 2_000) as [
    string,
  ][];
  return new Date(Date.parse(dates[0]![0]) + shiftMs).toISOString();
}

function valueOf(entity: Entity, column: string, pick: number): string {
  const rows = db.query(`SELECT DISTINCT ${column} FROM ${entity} WHERE ${column} IS NOT NULL ORDER BY 1`).values() as [
    string,
  ][];
  return rows[pick % rows.length]![0];
}

/** Which date filters and which sort: mostly one date filter under the other date's order (date-order.ts). */
const datesAndSortArb = fc.oneof(
  {
    weight: 1,
    arbitrary: fc.record({ dateParams: fc.subarray<number>([0, 1, 2, 3]), sort: fc.constantFrom(...SORTS) }),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom(0, 1, 2, 3).chain((i) =>
      fc.record({
        dateParams: fc.constant<number[]>([i]),
        sort: fc.constantFrom(
          ...(DATES[i]!.column === "created_at"
            ? (["updatedAt", "-updatedAt"] as const)
            : (["createdAt", "-createdAt"] as const)),
        ),
      }),
    ),
  },
);

const caseArb = fc
  .record({
    entity: fc.constantFrom<Entity>("properties", "leads"),
    filterPick: fc.option(fc.nat(100), { nil: null, freq: 2 }),
    valuePick: fc.nat(1_000),
    second: fc.option(fc.tuple(fc.nat(1), fc.nat(1_000)), { nil: null, freq: 3 }),
    datesAndSort: datesAndSortArb,
    // Bounds inside days, on their edges, and exactly on stored dates.
    datePicks: fc.array(
      fc.tuple(fc.nat(5_000), fc.oneof(fc.constant(0), fc.integer({ min: -86_400_000, max: 86_400_000 }))),
      { minLength: 4, maxLength: 4 },
    ),
    sameDay: fc.boolean(),
    own: fc.boolean(),
    limit: fc.constantFrom(1, 7, 20, 100),
    // Pages from the top, around and past DEEP_OFFSET, near the end of the list and far beyond it.
    rowOffset: fc.oneof(
      { weight: 1, arbitrary: fc.nat(3_000) },
      { weight: 1, arbitrary: fc.integer({ min: DEEP_OFFSET - 5, max: DEEP_OFFSET + 5 }) },
      { weight: 3, arbitrary: fc.integer({ min: DEEP_OFFSET, max: 2_400 }) },
      { weight: 1, arbitrary: fc.constant(1_000_000) },
    ),
  })
  .map((r): Case => {
    const filters = FILTERS[r.entity];
    const spec = r.filterPick === null ? null : filters[r.filterPick % filters.length]!;
    const first = spec === null ? [] : [{ ...spec, value: valueOf(r.entity, spec.column, r.valuePick) }];
    const second =
      spec?.param === "status" && r.entity === "leads" && r.second !== null
        ? [
            {
              ...SECOND_LEAD_FILTERS[r.second[0]]!,
              value: valueOf(r.entity, SECOND_LEAD_FILTERS[r.second[0]]!.column, r.second[1]),
            },
          ]
        : [];
    const dates = r.datesAndSort.dateParams.map((i) => {
      const [pick, shift] = r.datePicks[i]!;
      return { ...DATES[i]!, value: dateNear(r.entity, pick, shift) };
    });
    // Both bounds of one column within a day of each other, sometimes: the one-day path.
    const after = dates.find((d) => d.op === ">");
    const before = dates.find((d) => d.op === "<" && d.column === after?.column);
    if (r.sameDay && after && before) before.value = new Date(Date.parse(after.value) + 3_600_000).toISOString();
    return {
      entity: r.entity,
      filters: [...first, ...second],
      dates,
      sort: r.datesAndSort.sort,
      limit: r.limit,
      page: Math.floor(r.rowOffset / r.limit) + 1,
      own: r.entity === "leads" && r.own,
    };
  });

function expected(c: Case): { ids: string[]; total: number } {
  const where = [c.entity === "properties" ? "is_published = 1" : "1 = 1"];
  const params: string[] = [];
  for (const f of c.filters) {
    where.push(`${f.column} = ?`);
    params.push(f.value);
  }
  if (c.own) {
    where.push("created_by = ?");
    params.push("owner");
  }
  for (const d of c.dates) {
    where.push(`${d.column} ${d.op} ?`);
    params.push(d.value);
  }
  const column = c.sort.endsWith("updatedAt") ? "updated_at" : "created_at";
  const direction = c.sort.startsWith("-") ? "DESC" : "ASC";
  const sql = `FROM ${c.entity} WHERE ${where.join(" AND ")}`;
  const total = (db.query(`SELECT count(*) ${sql}`).values(...params)[0] as [number])[0];
  const ids = (
    db
      .query(`SELECT id ${sql} ORDER BY ${column} ${direction}, id ${direction} LIMIT ? OFFSET ?`)
      .values(...params, c.limit, (c.page - 1) * c.limit) as [string][]
  ).map((r) => r[0]);
  return { ids, total };
}

function paramsOf(c: Case): URLSearchParams {
  const query = new URLSearchParams({ fields: "id", sort: c.sort, limit: String(c.limit), page: String(c.page) });
  for (const f of c.filters) query.set(f.param, f.value);
  for (const d of c.dates) query.set(d.param, d.value);
  return query;
}

async function actual(c: Case): Promise<{ ids: string[]; total: number }> {
  const { status, body } = await read(await t.get(`/v1/${c.entity}?${paramsOf(c)}`, c.own ? ownerToken : token));
  expect(status).toBe(200);
  return { ids: body.data.map((row: { id: string }) => row.id), total: body.meta.total };
}

function fromShallowRepo(c: Case): { ids: string[]; total: number } {
  const query = parseListQuery(CATALOGS[c.entity], paramsOf(c));
  const { rows, total } = shallow[c.entity].list(c.own ? ownLeadsOf(query, "owner") : query, "partner");
  return { ids: rows.map((row) => (JSON.parse(row) as { id: string }).id), total };
}

const checkAll = () =>
  fc.assert(
    fc.asyncProperty(caseArb, async (c) => {
      const want = expected(c);
      expect(await actual(c)).toEqual(want);
      expect(fromShallowRepo(c)).toEqual(want);
    }),
    { numRuns: 400 },
  );

describe("lists through the per-day counters equal a plain COUNT and OFFSET", () => {
  test("on the seeded file", async () => {
    for (const entity of ["properties", "leads"] as const) expect(exceptions(entity)).toBe(0);
    await checkAll();
  }, 60_000);

  test("after another connection inserts, edits, unpublishes and deletes rows", async () => {
    db.transaction(() => {
      // Retimed across days, re-statused, unpublished, republished, deleted: every trigger path.
      db.run("UPDATE properties SET updated_at = '2026-05-31T23:59:59.999Z', status = 'RESERVED' WHERE rowid % 7 = 0");
      db.run(
        "UPDATE properties SET created_at = '2025-01-01T00:00:00.000Z', property_type = NULL WHERE rowid % 11 = 0",
      );
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

  test("while records updated before they were created are stored, and once they are mended", async () => {
    // A feed can carry such records: the lists that rely on the order (date-order.ts) must notice.
    db.transaction(() => {
      db.run(
        "UPDATE properties SET created_at = strftime('%Y-%m-%dT%H:%M:%fZ', updated_at, '+2 days') WHERE rowid % 5 = 1",
      );
      db.run(
        "UPDATE leads SET created_at = strftime('%Y-%m-%dT%H:%M:%fZ', updated_at, '+3 hours') WHERE rowid % 6 = 1",
      );
    })();
    for (const entity of ["properties", "leads"] as const) expect(exceptions(entity)).toBeGreaterThan(100);
    await checkAll();

    db.transaction(() => {
      db.run("UPDATE properties SET updated_at = created_at WHERE created_at > updated_at");
      db.run("UPDATE leads SET updated_at = created_at WHERE created_at > updated_at");
    })();
    for (const entity of ["properties", "leads"] as const) expect(exceptions(entity)).toBe(0);
    await checkAll();
  }, 60_000);
});

describe("lists when many records share a few days", () => {
  test("pages that start on the day of a bound", async () => {
    // A third of the records crowded into three days, each updated up to two days after its
    // creation: bounds and page starts then fall on the same crowded day.
    const crowd = (entity: Entity) =>
      db.run(
        `UPDATE ${entity} SET
           created_at = strftime('%Y-%m-%dT%H:%M:%fZ', '2025-06-14', '+' || (rowid * 37 % 259200) || ' seconds'),
           updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', '2025-06-14', '+' || (rowid * 37 % 259200 + rowid * 53 % 172800) || ' seconds')
         WHERE rowid % 3 = 0`,
      );
    db.transaction(() => {
      crowd("properties");
      crowd("leads");
    })();
    for (const entity of ["properties", "leads"] as const) expect(exceptions(entity)).toBe(0);
    await checkAll();
  }, 60_000);

  test("pages around the first row of a trailing run of rows that all match", async () => {
    // updatedAfter=X under createdAt: rows created after X all match, and come last; likewise
    // createdBefore=X under -updatedAt with rows updated before X. X on the crowded day. Alone
    // the filter goes through the date pairs, beside a status through the run (date-order.ts).
    const X = (
      db
        .query("SELECT created_at FROM properties WHERE rowid % 3 = 0 ORDER BY created_at LIMIT 1 OFFSET 150")
        .values()[0] as [string]
    )[0];
    const runs = [
      {
        param: "updatedAfter",
        column: "updated_at",
        op: ">",
        sort: "createdAt",
        rest: "created_at <= ? AND updated_at > ?",
      },
      {
        param: "createdBefore",
        column: "created_at",
        op: "<",
        sort: "-updatedAt",
        rest: "updated_at >= ? AND created_at < ?",
      },
    ] as const;
    for (const entity of ["properties", "leads"] as const) {
      const commonest = db
        .query(`SELECT status FROM ${entity} GROUP BY status ORDER BY count(*) DESC LIMIT 1`)
        .values()[0] as [string];
      for (const filter of [null, { param: "status", column: "status", value: commonest[0] }]) {
        for (const run of runs) {
          const where = [
            entity === "properties" ? "is_published = 1" : "1 = 1",
            run.rest,
            filter ? "status = ?" : "1 = 1",
          ].join(" AND ");
          const params = filter ? [X, X, filter.value] : [X, X];
          const rest = (db.query(`SELECT count(*) FROM ${entity} WHERE ${where}`).values(...params)[0] as [number])[0];
          expect(rest).toBeGreaterThan(25); // past the shallow repository's deep offset
          for (const rowOffset of [rest - 2, rest - 1, rest, rest + 1, rest + 4]) {
            // With limit 1, page n starts at row n - 1.
            const c: Case = {
              entity,
              filters: filter ? [filter] : [],
              dates: [{ param: run.param, column: run.column, op: run.op, value: X }],
              sort: run.sort,
              limit: 1,
              page: rowOffset + 1,
            };
            const want = expected(c);
            expect(fromShallowRepo(c)).toEqual(want);
            expect(await actual(c)).toEqual(want);
          }
        }
      }
    }
  });
});

describe("an owner's leads in the order of the other date", () => {
  test("every page by last update, both ways, is the file's page, including those counted from the end", async () => {
    // The owner's index is in creation order: these pages are sorted from its entries, and past
    // the middle of the list from the other end (query/list-repo.ts sortedFromDriver).
    for (const sort of ["-updatedAt", "updatedAt"] as const) {
      for (const filter of [null, { param: "status", column: "status", value: "NEW_LEAD" }]) {
        const filters = filter ? [filter] : [];
        const first = expected({ entity: "leads", filters, dates: [], sort, limit: 7, page: 1, own: true });
        expect(first.total).toBeGreaterThan(50);
        const pages = Math.ceil(first.total / 7) + 1; // and one past the end
        for (let page = 1; page <= pages; page++) {
          const c: Case = { entity: "leads", filters, dates: [], sort, limit: 7, page, own: true };
          const want = expected(c);
          expect(await actual(c)).toEqual(want);
          expect(fromShallowRepo(c)).toEqual(want);
        }
      }
    }
  }, 60_000);
});

describe("a lead status that only a few old leads hold", () => {
  test("every page of its lists is the file's page: alone, beside a priority, under date bounds", async () => {
    // Nine leads in three clusters of days, none near either end of the list: its lists start
    // days of other statuses away from their ends, so a walk started anywhere but the day its
    // counters give skips or repeats rows (query/list-repo.ts edgeBounds).
    db.transaction(() => {
      db.run("UPDATE leads SET status = 'LOST' WHERE status = 'CONVERTED'");
      db.run(
        `UPDATE leads SET status = 'CONVERTED' WHERE id IN (
           SELECT id FROM (SELECT id, row_number() OVER (ORDER BY created_at, id) AS i,
                                  count(*) OVER () AS n FROM leads)
            WHERE i IN (n / 5, n / 5 + 1, n / 5 + 7, n / 2, n / 2 + 3, n / 2 + 40, 3 * n / 4, 3 * n / 4 + 1, 3 * n / 4 + 2))`,
      );
    })();
    const rare = db
      .query("SELECT count(*), min(created_at), max(created_at) FROM leads WHERE status = 'CONVERTED'")
      .values()[0] as [number, string, string];
    expect(rare[0]).toBe(9);
    const status = { param: "status", column: "status", value: "CONVERTED" };
    const priorities = (
      db.query("SELECT DISTINCT priority FROM leads WHERE status = 'CONVERTED'").values() as [string][]
    ).map((r) => ({ param: "priority", column: "priority", value: r[0] }));
    // Bounds between the clusters and at the rare leads' own dates.
    const middle = (
      db
        .query("SELECT created_at FROM leads WHERE status = 'CONVERTED' ORDER BY created_at LIMIT 1 OFFSET 4")
        .values()[0] as [string]
    )[0];
    const dateSets = [
      [],
      [{ param: "createdBefore", column: "created_at", op: "<", value: middle }],
      [{ param: "createdAfter", column: "created_at", op: ">", value: rare[1] }],
      [{ param: "updatedAfter", column: "updated_at", op: ">", value: middle }],
      [{ param: "updatedBefore", column: "updated_at", op: "<", value: rare[2] }],
    ];
    for (const sort of SORTS) {
      for (const filters of [[status], ...priorities.map((p) => [status, p])]) {
        for (const dates of dateSets) {
          const first = expected({ entity: "leads", filters, dates, sort, limit: 2, page: 1 });
          for (let page = 1; page <= Math.ceil(first.total / 2) + 1; page++) {
            const c: Case = { entity: "leads", filters, dates, sort, limit: 2, page };
            const want = expected(c);
            expect(fromShallowRepo(c)).toEqual(want);
            expect(await actual(c)).toEqual(want);
          }
        }
      }
    }
  }, 60_000);
});

/** The count schema 3 keeps, checked against the table itself. */
function exceptions(entity: Entity): number {
  const kept = (db.query("SELECT n FROM date_order_exceptions WHERE entity = ?").values(entity)[0] as [number])[0];
  const actual = (db.query(`SELECT count(*) FROM ${entity} WHERE created_at > updated_at`).values()[0] as [number])[0];
  expect(kept).toBe(actual);
  return kept;
}
