// What the fuzzers found, kept: seeds replayed by their suite on every run, and the shrunk
// requests as literals (test/fuzz/regressions.test.ts sends each and checks the contract).
// Also the run parameters shared by the suites: FUZZ_SEED pins a run, FUZZ_RUNS scales it.
import type { Parameters } from "fast-check";
import type { RequestSpec } from "./spec.ts";

export type Suite = "requests" | "queries" | "leads" | "idempotency";

/**
 * fast-check seeds (and counterexample paths) that once failed, per suite. Add a line when a
 * run fails: fast-check prints `{ seed, path }` in its report.
 */
export const REGRESSION_SEEDS: { suite: Suite; seed: number; path?: string; found: string }[] = [
  { suite: "leads", seed: -1686267018, found: 'trafficOrigin "\\ud800" answered 201 but stored as U+FFFD' },
];

export interface RegressionCase {
  found: string;
  spec: RequestSpec;
  /** The status the contract gives this request. */
  status: number;
  code?: string;
}

const lead = { name: "Fuzz", email: "fuzz@example.com", phone: "1", message: "m" };
const json = [["content-type", "application/json"]] as [string, string][];

export const REGRESSION_CASES: RegressionCase[] = [
  {
    found: "single-record route with an id that is not valid percent-encoding answered 500 (Elysia passes null)",
    spec: {
      method: "GET",
      path: "/v1/properties/%zz?fields=id",
      headers: [],
      auth: { kind: "valid" },
      body: { kind: "none" },
    },
    status: 404,
    code: "NOT_FOUND",
  },
  {
    found: "the same on leads, with a truncated UTF-8 escape",
    spec: {
      method: "GET",
      path: "/v1/leads/%E0%A4%A?fields=id",
      headers: [],
      auth: { kind: "valid" },
      body: { kind: "none" },
    },
    status: 404,
    code: "NOT_FOUND",
  },
  {
    found: "a lone surrogate in a lead field was answered 201 but stored as U+FFFD: the 201 lied",
    spec: {
      method: "POST",
      path: "/v1/leads",
      headers: json,
      auth: { kind: "valid" },
      body: { kind: "text", text: JSON.stringify({ ...lead, name: "\ud800x" }) },
    },
    status: 400,
    code: "VALIDATION_ERROR",
  },
  {
    found: "an unpaired low surrogate in an optional field",
    spec: {
      method: "POST",
      path: "/v1/leads",
      headers: json,
      auth: { kind: "valid" },
      body: { kind: "text", text: `{"name":"a","email":"a@b.co","phone":"1","message":"m","trafficOrigin":"\\udc00"}` },
    },
    status: 400,
    code: "VALIDATION_ERROR",
  },
];

/** Per-test timeout of a fuzz test: generous in the test command, scaled with FUZZ_RUNS. */
export const FUZZ_TIMEOUT_MS = 30_000 * Math.max(1, Number(process.env.FUZZ_RUNS ?? "1") || 1);

/** Runs per suite in the test command; FUZZ_RUNS multiplies them for a longer local session. */
export function fuzzParameters(runs: number, budgetMs: number): Parameters<unknown> {
  const scale = Number(process.env.FUZZ_RUNS ?? "1");
  const seed = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
  return {
    numRuns: Math.max(1, Math.round(runs * (Number.isFinite(scale) && scale > 0 ? scale : 1))),
    ...(seed === undefined ? {} : { seed }),
    // The test command stays bounded however slow the machine: stop early, count as a pass.
    ...(process.env.FUZZ_RUNS === undefined
      ? { interruptAfterTimeLimit: budgetMs, markInterruptAsFailure: false }
      : {}),
  };
}

/** The stored seeds of one suite, as fast-check replay parameters. */
export function replays(suite: Suite): Parameters<unknown>[] {
  return REGRESSION_SEEDS.filter((r) => r.suite === suite).map((r) => ({
    seed: r.seed,
    ...(r.path === undefined ? {} : { path: r.path }),
    numRuns: r.path === undefined ? 50 : 1,
  }));
}
