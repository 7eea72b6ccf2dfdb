// Fuzz: any request at all (method, path, query, headers, token, body) through app.handle. No
// 5xx, every error in the contract's shape with its code's status, security headers on every
// answer, no internals in any body; and the app still serves afterwards.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fc from "fast-check";
import { requestArb } from "./arbitraries.ts";
import { createFuzzTarget, type FuzzTarget } from "./harness.ts";
import { FUZZ_TIMEOUT_MS, fuzzParameters, replays } from "./regressions.ts";

let target: FuzzTarget;
beforeAll(async () => {
  target = await createFuzzTarget();
});
afterAll(() => target.close());

const property = () =>
  fc.asyncProperty(requestArb, async (spec) => {
    const { problems } = await target.send(spec);
    if (problems.length > 0) throw new Error(problems.join("\n"));
  });

describe("fuzz: any request keeps the contract", () => {
  test(
    "no 5xx, contract-shaped errors, nosniff and request id, nothing leaked",
    async () => {
      await fc.assert(property(), fuzzParameters(700, 7_000));
    },
    FUZZ_TIMEOUT_MS,
  );

  test(
    "stored regression seeds",
    async () => {
      for (const parameters of replays("requests")) await fc.assert(property(), parameters);
    },
    FUZZ_TIMEOUT_MS,
  );

  test("afterwards the app is healthy and serves a real request", async () => {
    expect((await target.t.request("/health")).status).toBe(200);
    expect((await target.t.get("/v1/properties?fields=id&limit=1", target.tokens.portal)).status).toBe(200);
  });
});
