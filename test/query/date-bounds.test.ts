// Date bounds finer than the stored millisecond are compared exactly (docs/reference/behaviour.md §8: bounds are
// exclusive): many clients send microseconds (Python's isoformat()), and cutting them off
// before comparing strictly answered the wrong rows at the edge of a millisecond.
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { exportCommand } from "../../src/cli/export.ts";
import { client, createTestApp, read, type TestApp } from "../helpers/app.ts";

const portal = client("portal");
let t: TestApp;
let token: string;

/** Two records a millisecond apart, on either side of midnight, in a year no seeded record reaches. */
const LAST_OF_NOVEMBER = "2030-11-30T23:59:59.999Z";
const FIRST_OF_DECEMBER = "2030-12-01T00:00:00.000Z";
const WINDOW = { after: "2030-11-30T00:00:00Z", before: "2030-12-02T00:00:00Z" };
const ids: Record<"properties" | "leads", { november: string; december: string }> = {
  properties: { november: "", december: "" },
  leads: { november: "", december: "" },
};

beforeAll(async () => {
  t = createTestApp({ clients: [portal.entry], properties: 100, leads: 100 });
  token = await t.token(portal);
  const db = new Database(t.runtime.config.databases.get("main")!);
  for (const [entity, table, where] of [
    ["properties", "properties", "WHERE is_published = 1"],
    ["leads", "leads", ""],
  ] as const) {
    const [november, december] = (
      db.query(`SELECT id FROM ${table} ${where} ORDER BY id LIMIT 2`).values() as [string][]
    ).map((row) => row[0]);
    ids[entity] = { november: november!, december: december! };
    const stamp = db.query(`UPDATE ${table} SET created_at = ?1, updated_at = ?1 WHERE id = ?2`);
    stamp.run(LAST_OF_NOVEMBER, november!);
    stamp.run(FIRST_OF_DECEMBER, december!);
  }
  db.close();
});
afterAll(() => t.close());

async function idsFor(entity: "properties" | "leads", bounds: Record<string, string>): Promise<string[]> {
  const query = new URLSearchParams({ fields: "id", limit: "100", sort: "createdAt", ...bounds });
  const { status, body } = await read(await t.get(`/v1/${entity}?${query}`, token));
  expect(status).toBe(200);
  return (body.data as { id: string }[]).map((row) => row.id);
}

/** Nanoseconds since the epoch of an ISO date-time in Z, digits beyond the millisecond included. */
function exactNanos(text: string): bigint {
  const [, whole, fraction = ""] = /^(.*T\d{2}:\d{2}:\d{2})(?:\.(\d+))?Z$/.exec(text)!;
  return BigInt(Date.parse(`${whole}Z`)) * 1_000_000n + BigInt((fraction + "000000000").slice(0, 9));
}

describe("the issue's cases, for both entities and both dates", () => {
  for (const entity of ["properties", "leads"] as const) {
    for (const date of ["created", "updated"] as const) {
      test(`${entity} ${date}Before/${date}After at the edge of a millisecond`, async () => {
        const { november, december } = ids[entity];
        const within = (bound: Record<string, string>) =>
          idsFor(entity, { [`${date}After`]: WINDOW.after, [`${date}Before`]: WINDOW.before, ...bound });
        // 23:59:59.9999 is after 23:59:59.999: that record is before the bound.
        expect(await within({ [`${date}Before`]: "2030-11-30T23:59:59.9999Z" })).toEqual([november]);
        // 00:00:00.0005 is after both records.
        expect(await within({ [`${date}Before`]: "2030-12-01T00:00:00.0005Z" })).toEqual([november, december]);
        // Microseconds of zeros are the millisecond itself: exclusive.
        expect(await within({ [`${date}Before`]: "2030-12-01T00:00:00.000000Z" })).toEqual([november]);
        expect(await within({ [`${date}After`]: "2030-11-30T23:59:59.9985Z" })).toEqual([november, december]);
        expect(await within({ [`${date}After`]: "2030-11-30T23:59:59.9995Z" })).toEqual([december]);
        expect(await within({ [`${date}After`]: "2030-11-30T23:59:59.999000001Z" })).toEqual([december]);
        // The same instants written with an offset.
        expect(await within({ [`${date}Before`]: "2030-11-30T20:59:59.9999-03:00" })).toEqual([november]);
      });
    }
  }
});

describe("any bound, to the nanosecond, answers exactly the records on its side", () => {
  test("random bounds around the two records, every filter, both entities", async () => {
    const stamps = { november: exactNanos(LAST_OF_NOVEMBER), december: exactNanos(FIRST_OF_DECEMBER) };
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("properties" as const, "leads" as const),
        fc.constantFrom("createdAfter", "createdBefore", "updatedAfter", "updatedBefore"),
        fc.integer({ min: -3_000_000, max: 3_000_000 }), // nanoseconds around midnight
        fc.integer({ min: 0, max: 9 }), // digits written after the seconds
        async (entity, filter, offset, digits) => {
          const nanos = stamps.december + BigInt(offset);
          const seconds = nanos / 1_000_000_000n;
          const fraction = (nanos % 1_000_000_000n).toString().padStart(9, "0");
          // Cut to the digits the client writes: the bound is exactly what it says.
          const written = digits === 0 ? "" : `.${fraction.slice(0, digits)}`;
          const bound = `${new Date(Number(seconds) * 1000).toISOString().slice(0, 19)}${written}Z`;
          const exact = exactNanos(bound);
          const before = filter.endsWith("Before");
          const expected = (["november", "december"] as const)
            .filter((which) => (before ? stamps[which] < exact : stamps[which] > exact))
            .map((which) => ids[entity][which]);
          const date = filter.startsWith("created") ? "created" : "updated";
          const window: Record<string, string> = { [`${date}After`]: WINDOW.after, [`${date}Before`]: WINDOW.before };
          expect(await idsFor(entity, { ...window, [filter]: bound })).toEqual(expected);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("export --since compares exactly too", () => {
  for (const entity of ["properties", "leads"] as const) {
    test(`${entity}: a since bound finer than a millisecond`, async () => {
      const exported = async (since: string) => {
        const out = join(t.dir, `${entity}-${Math.random().toString(36).slice(2)}.ndjson`);
        const args = [
          "--db",
          t.runtime.config.databases.get("main")!,
          "--format",
          "ndjson",
          "--entity",
          entity,
          "--since",
          since,
          "--out",
          out,
        ];
        expect(await exportCommand(args)).toBe(0);
        return readFileSync(out, "utf8")
          .trim()
          .split("\n")
          .filter(Boolean)
          .map((line) => (JSON.parse(line) as { id: string }).id)
          .sort();
      };
      const { november, december } = ids[entity];
      expect(await exported("2030-11-30T23:59:59.9985Z")).toEqual([november, december].sort());
      expect(await exported("2030-11-30T23:59:59.9995Z")).toEqual([december]);
      expect(await exported("2030-11-30T23:59:59.999000001Z")).toEqual([december]);
    });
  }
});
