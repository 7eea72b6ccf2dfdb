// The shrunk requests the fuzzers once failed on, sent as they were found: each keeps the
// contract and gets the status its rule gives.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createFuzzTarget, type FuzzTarget } from "./harness.ts";
import { REGRESSION_CASES } from "./regressions.ts";

let target: FuzzTarget;
beforeAll(async () => {
  target = await createFuzzTarget();
});
afterAll(() => target.close());

describe("fuzz regressions", () => {
  for (const { found, spec, status, code } of REGRESSION_CASES) {
    test(found, async () => {
      const before = target.leadCount();
      const { observed, problems } = await target.send(spec);
      expect(problems).toEqual([]);
      expect(observed.status).toBe(status);
      if (code !== undefined) expect(JSON.parse(observed.body).code).toBe(code);
      if (status !== 201) expect(target.leadCount()).toBe(before);
    });
  }
});
