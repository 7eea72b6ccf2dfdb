// The reader threads (src/reads/pool.ts) with real threads running test work: answers and
// errors come back as thrown, and a read past its deadline is answered 422 QUERY_TOO_BROAD on
// time, whether its work stops itself or its thread must be replaced.
import { afterEach, describe, expect, test } from "bun:test";
import { wallClock } from "../../src/clock.ts";
import type { Tenant } from "../../src/db/tenants.ts";
import { ApiError } from "../../src/errors.ts";
import { ReaderPool } from "../../src/reads/pool.ts";

const CODE = new URL("./fixtures/test-thread.ts", import.meta.url).href;
/** The pool reads these of a tenant for each job; the test work reads no database. */
const TENANT = { path: "/nowhere", id: 1, generation: () => 1, outsideGeneration: () => 1 } as unknown as Tenant;

const pools: ReaderPool[] = [];
afterEach(() => {
  for (const pool of pools.splice(0)) pool.close();
});

/**
 * A pool of `threads` whose reads get `deadlineMs` once its threads have loaded (under 5 s: on a
 * busy machine a thread's first load alone can take longer than the deadlines tested).
 */
async function pool(threads: number, deadlineMs: number): Promise<ReaderPool> {
  let deadline = 5_000;
  const made = new ReaderPool({ threads, deadlineMs: () => deadline, clock: wallClock, workerCode: CODE });
  pools.push(made);
  made.warm();
  await Promise.all(Array.from({ length: threads }, (_, i) => made.run(`warm-${i}`, TENANT, job("echo=warm"))));
  deadline = deadlineMs;
  return made;
}

const job = (rawQuery: string) => ({
  kind: "facets" as const,
  rawQuery,
  reader: { view: "partner" as const, leads: { kind: "none" as const } },
});

async function outcome(promise: Promise<string>): Promise<{ ms: number; body?: string; error?: unknown }> {
  const started = performance.now();
  try {
    const body = await promise;
    return { ms: performance.now() - started, body };
  } catch (error) {
    return { ms: performance.now() - started, error };
  }
}

describe("a job's answer, as the service gave it", () => {
  test("a body, an ApiError with its details and headers, and anything else as an Error", async () => {
    const p = await pool(2, 5_000);
    expect(await p.run("a", TENANT, job("echo=hi"))).toBe('{"echo":"hi"}');
    const refused = (await outcome(p.run("a", TENANT, job("refuse")))).error as ApiError;
    expect(refused).toBeInstanceOf(ApiError);
    expect([refused.code, refused.status, refused.message]).toEqual(["SERVICE_UNAVAILABLE", 503, "busy"]);
    expect(refused.details).toEqual([{ field: "x", message: "y" }]);
    expect(refused.headers).toEqual({ "retry-after": "1" });
    const crashed = (await outcome(p.run("a", TENANT, job("crash")))).error;
    expect(crashed).not.toBeInstanceOf(ApiError);
    expect((crashed as Error).message).toBe("crash: crash");
    // The thread that threw still serves.
    expect(await p.run("b", TENANT, job("echo=again"))).toBe('{"echo":"again"}');
  });
});

describe("the deadline", () => {
  test("work that checks its deadline stops itself there: 422 QUERY_TOO_BROAD on time", async () => {
    const p = await pool(1, 300);
    const cut = await outcome(p.run("a", TENANT, job("polite=5000")));
    expect((cut.error as ApiError).code).toBe("QUERY_TOO_BROAD");
    // Well before the 5 s of work: the machine may be busy, the bound only has to tell them apart.
    expect(cut.ms).toBeGreaterThanOrEqual(290);
    expect(cut.ms).toBeLessThan(2_500);
    expect(await p.run("a", TENANT, job("echo=next"))).toBe('{"echo":"next"}');
  });

  test("work that never checks is answered 422 at the deadline all the same, and its thread replaced", async () => {
    const p = await pool(1, 300);
    const cut = await outcome(p.run("a", TENANT, job("spin=3000")));
    expect((cut.error as ApiError).code).toBe("QUERY_TOO_BROAD");
    expect(cut.ms).toBeLessThan(2_500); // not the 3 s of work
    // Another client's read runs on the new thread at once, while the old one still spins.
    const other = await outcome(p.run("b", TENANT, job("echo=b")));
    expect(other.body).toBe('{"echo":"b"}');
    expect(other.ms).toBeLessThan(2_500);
  });

  test("a read given its own, longer deadline runs past the pool's", async () => {
    const p = await pool(1, 300);
    const long = await outcome(p.run("admin:owner", TENANT, job("spin=800"), 10_000));
    expect(long.error).toBeUndefined();
    expect(long.ms).toBeGreaterThanOrEqual(790);
    // The pool's own deadline still cuts the others.
    const cut = await outcome(p.run("a", TENANT, job("spin=800")));
    expect((cut.error as ApiError).code).toBe("QUERY_TOO_BROAD");
  });

  test("a read that waits its turn past the deadline is refused without running", async () => {
    const p = await pool(2, 400);
    const held = [outcome(p.run("a", TENANT, job("spin=2000"))), outcome(p.run("a", TENANT, job("spin=2000")))];
    const third = await outcome(p.run("a", TENANT, job("echo=never")));
    expect((third.error as ApiError).code).toBe("QUERY_TOO_BROAD");
    expect(third.ms).toBeLessThan(1_800); // not after the 2 s of the two ahead of it
    for (const h of held) expect(((await h).error as ApiError).code).toBe("QUERY_TOO_BROAD");
  });
});

describe("a server's start is not a search too broad", () => {
  test("reads sent before any thread is ready wait for the first one, their deadline not yet started", async () => {
    const made = new ReaderPool({
      threads: 2,
      deadlineMs: () => 200,
      clock: wallClock,
      workerCode: new URL("./fixtures/slow-start-thread.ts", import.meta.url).href,
    });
    pools.push(made);
    made.warm();
    const early = await Promise.all(
      ["a", "b", "c"].map((client) => outcome(made.run(client, TENANT, job("echo=early")))),
    );
    // Each waited for the 600 ms start, three times its deadline, and got its answer.
    for (const { ms, body, error } of early)
      expect({ body, error, waited: ms >= 500 }).toEqual({ body: '{"echo":"early"}', error: undefined, waited: true });
    expect(await made.run("a", TENANT, job("echo=later"))).toBe('{"echo":"later"}');
  });
});
