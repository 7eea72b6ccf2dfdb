// The limits kept in Redis answer exactly as the in-memory limiters do (docs/reference/behaviour.md §6, §15): the
// same decisions and figures for any sequence of requests and clock steps, whichever of two
// processes (two connections here) asks, against a real redis-server.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { RedisClient } from "bun";
import fc from "fast-check";
import { SlidingWindowLimiter } from "../../src/limits/sliding-window.ts";
import { TokenBucketLimiter } from "../../src/limits/token-bucket.ts";
import { silentLogger } from "../../src/logging.ts";
import { RedisConnection } from "../../src/redis/connection.ts";
import { SharedLimits } from "../../src/redis/limits.ts";
import { FakeClock } from "../helpers/app.ts";
import { REDIS_SERVER, startRedis, type TestRedis } from "../helpers/redis.ts";

let redis: TestRedis;
let admin: RedisClient;
const processes: SharedLimits[] = [];
const AUTH = { capacity: 20, refillPerMinute: 20 } as const;

beforeAll(async () => {
  if (REDIS_SERVER === null) return;
  redis = await startRedis();
  admin = new RedisClient(redis.url);
  for (let i = 0; i < 2; i++) {
    const connection = new RedisConnection({ url: redis.url, logger: silentLogger(), timeoutMs: 2_000 });
    processes.push(
      new SharedLimits(connection, "test:", new TokenBucketLimiter({ ...AUTH, clock: new FakeClock() }).shape),
    );
  }
});
afterAll(async () => {
  for (const p of processes) p.redis.close();
  admin?.close();
  await redis?.close();
});
beforeEach(async () => {
  if (REDIS_SERVER !== null) await admin.send("FLUSHALL", []);
});

/** One step of a run: a request from one of the two processes, or time passing. */
type Step = { kind: "hit" | "peek"; process: number } | { kind: "wait"; ms: number };

const steps = fc.array(
  fc.oneof(
    { weight: 6, arbitrary: fc.record({ kind: fc.constant("hit" as const), process: fc.integer({ min: 0, max: 1 }) }) },
    {
      weight: 1,
      arbitrary: fc.record({ kind: fc.constant("peek" as const), process: fc.integer({ min: 0, max: 1 }) }),
    },
    {
      weight: 3,
      arbitrary: fc.record({
        kind: fc.constant("wait" as const),
        // Within a second, across the window's edge, and whole seconds (counters landing exactly on it).
        ms: fc.oneof(
          fc.integer({ min: 0, max: 1500 }),
          fc.integer({ min: 55_000, max: 65_000 }),
          fc.integer({ min: 0, max: 61 }).map((s) => s * 1000),
        ),
      }),
    },
  ),
  { minLength: 1, maxLength: 60 },
);

describe.skipIf(REDIS_SERVER === null)("the shared limits equal the in-memory ones", () => {
  test("sliding window: hits and peeks from two processes over random clock steps", async () => {
    await fc.assert(
      fc.asyncProperty(steps, fc.integer({ min: 1, max: 8 }), async (run, limit) => {
        await admin.send("FLUSHALL", []);
        const clock = new FakeClock();
        const exact = new SlidingWindowLimiter({ clock });
        for (const step of run) {
          if (step.kind === "wait") {
            clock.advance(step.ms);
            continue;
          }
          const shared = processes[step.process]!;
          const got =
            step.kind === "hit"
              ? (await shared.admit("c", limit, null, clock.now())).window
              : await shared.windowPeek("c", limit, clock.now());
          expect(got).toEqual(step.kind === "hit" ? exact.hit("c", limit) : exact.peek("c", limit));
        }
      }),
      { numRuns: 200 },
    );
  });

  test("burst cap then window, in one round trip, as the guard's last step does it", async () => {
    await fc.assert(
      fc.asyncProperty(
        steps,
        fc.integer({ min: 2, max: 8 }),
        fc.integer({ min: 1, max: 3 }),
        async (run, limit, perSecond) => {
          await admin.send("FLUSHALL", []);
          const clock = new FakeClock();
          const window = new SlidingWindowLimiter({ clock });
          const burst = new TokenBucketLimiter({ capacity: perSecond, refillPerSecond: perSecond, clock });
          for (const step of run) {
            if (step.kind === "wait") {
              clock.advance(step.ms);
              continue;
            }
            const got = await processes[step.process]!.admit("c", limit, burst.shape, clock.now());
            const burstDecision = burst.take("c");
            const expected = {
              burst: burstDecision,
              window: burstDecision.allowed ? window.hit("c", limit) : window.peek("c", limit),
            };
            expect(got).toEqual(expected);
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  test("admissions asked in the same turn go in one script run, and equal the in-memory ones taken in order", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            process: fc.integer({ min: 0, max: 1 }),
            requests: fc.array(fc.record({ client: fc.constantFrom("a", "b"), burst: fc.boolean() }), {
              minLength: 1,
              maxLength: 12,
            }),
          }),
          { minLength: 1, maxLength: 8 },
        ),
        fc.integer({ min: 1, max: 10 }),
        async (turns, limit) => {
          await admin.send("FLUSHALL", []);
          const clock = new FakeClock();
          const windows = new SlidingWindowLimiter({ clock });
          const bursts = new Map(
            ["a", "b"].map((c) => [c, new TokenBucketLimiter({ capacity: 3, refillPerSecond: 3, clock })]),
          );
          for (const { process, requests } of turns) {
            // Asked together, without waiting for one another: one batch, one script run.
            const got = await Promise.all(
              requests.map(({ client, burst }) =>
                processes[process]!.admit(client, limit, burst ? bursts.get(client)!.shape : null, clock.now()),
              ),
            );
            const expected = requests.map(({ client, burst }) => {
              const b = burst ? bursts.get(client)!.take(client) : null;
              return {
                burst: b,
                window: b === null || b.allowed ? windows.hit(client, limit) : windows.peek(client, limit),
              };
            });
            expect(got).toEqual(expected);
            clock.advance(400);
          }
        },
      ),
      { numRuns: 100 },
    );
  });

  test("failed-authentication bucket: takes and peeks from two processes over random clock steps", async () => {
    await fc.assert(
      fc.asyncProperty(steps, async (run) => {
        await admin.send("FLUSHALL", []);
        const clock = new FakeClock();
        const exact = new TokenBucketLimiter({ ...AUTH, clock });
        for (const step of run) {
          if (step.kind === "wait") {
            clock.advance(Math.floor(step.ms / 20));
            continue;
          }
          const shared = processes[step.process]!;
          const got =
            step.kind === "hit"
              ? await shared.authTake("203.0.113.9", clock.now())
              : await shared.authPeek("203.0.113.9", clock.now());
          expect(got).toEqual(step.kind === "hit" ? exact.take("203.0.113.9") : exact.peek("203.0.113.9"));
        }
      }),
      { numRuns: 200 },
    );
  });

  test("keys are apart per client, per address and per prefix", async () => {
    const clock = new FakeClock();
    const [a] = processes;
    expect((await a!.admit("one", 1, null, clock.now())).window.allowed).toBe(true);
    expect((await a!.admit("one", 1, null, clock.now())).window.allowed).toBe(false);
    expect((await a!.admit("two", 1, null, clock.now())).window.allowed).toBe(true);
    const other = new SharedLimits(a!.redis, "other-deployment:", new TokenBucketLimiter({ ...AUTH, clock }).shape);
    expect((await other.admit("one", 1, null, clock.now())).window.allowed).toBe(true);
  });
});
