// A batch's requests held in columns (src/usage/columns.ts) come out as the same log lines as
// encoding each request on its own would give: across the columns' growth, with null fields,
// repeated and distinct values, and empty again after each take.
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { encodeRequest, type RequestLogRow } from "../../src/db/control/usage.ts";
import { linesOf, RequestColumns } from "../../src/usage/columns.ts";

const row: fc.Arbitrary<RequestLogRow> = fc.record({
  at: fc.integer({ min: 1_700_000_000_000, max: 1_900_000_000_000 }),
  client: fc.constantFrom(null, "alpha", "beta", "portal-zap"),
  method: fc.constantFrom("GET", "POST", "PATCH"),
  route: fc.constantFrom(null, "/v1/properties", "/v1/leads/:id"),
  status: fc.constantFrom(200, 201, 304, 401, 403, 404, 429, 500),
  code: fc.constantFrom(null, "IP_BLOCKED", "NOT_FOUND"),
  ms: fc.integer({ min: 0, max: 500_000 }).map((hundredths) => hundredths / 100),
  ip: fc.oneof(fc.constant(null), fc.ipV4(), fc.ipV6()),
  requestId: fc.uuid(),
});

describe("request columns", () => {
  test("the lines of each take are the requests' own lines, in order", () => {
    const columns = new RequestColumns();
    fc.assert(
      fc.property(fc.array(fc.array(row, { maxLength: 3000 }), { minLength: 1, maxLength: 3 }), (batches) => {
        for (const batch of batches) {
          for (const r of batch) columns.add({ ...r, clientId: r.client });
          expect(columns.n).toBe(batch.length);
          expect(linesOf(columns.take()).text).toBe(batch.map(encodeRequest).join("\n"));
          expect(columns.n).toBe(0);
        }
      }),
      { numRuns: 40 },
    );
  });
});
