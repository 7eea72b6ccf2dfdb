// Micro-benchmark of the limiters' hot path: `bun bench/limiter.ts` prints the median cost
// per call in nanoseconds over several rounds, on the real clock.

import { systemClock } from "../src/limits/clock.ts";
import type { LimitDecision } from "../src/limits/decision.ts";
import { rateLimitHeaderWriter } from "../src/limits/headers.ts";
import { SlidingWindowLimiter } from "../src/limits/sliding-window.ts";
import { TokenBucketLimiter } from "../src/limits/token-bucket.ts";

const ROUNDS = 9;
const CALLS = 1_000_000;
const UNLIMITED = Number.MAX_SAFE_INTEGER; // keeps every call on the counting path
const keys = Array.from({ length: 10_000 }, (_, i) => `client-${i}`);
const KEY_MASK = 8191; // rotating over 8,192 of them: a mask, so the loop adds no division
let sink = 0; // consumed at the end so no call can be optimised away

// Each scenario runs its own loop, so every call site in it stays monomorphic: one shared loop
// calling closures would time the JIT's polymorphic dispatch instead of the limiter.
function measure(name: string, run: (calls: number) => number): void {
  sink += run(CALLS); // warm-up, so the JIT has settled before timing
  const perCall: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const start = Bun.nanoseconds();
    sink += run(CALLS);
    perCall.push((Bun.nanoseconds() - start) / CALLS);
  }
  perCall.sort((a, b) => a - b);
  const median = perCall[ROUNDS >> 1]!.toFixed(1).padStart(7);
  const spread = `${perCall[0]!.toFixed(1)}–${perCall[ROUNDS - 1]!.toFixed(1)}`;
  console.log(`${name.padEnd(40)} ${median} ns/call   (rounds ${spread})`);
}

measure("clock.now() alone (baseline)", (calls) => {
  let s = 0;
  for (let i = 0; i < calls; i++) s += systemClock.now();
  return s;
});

const window = new SlidingWindowLimiter({ clock: systemClock });
measure("window.hit, one hot key", (calls) => {
  let s = 0;
  for (let i = 0; i < calls; i++) s += window.hit("hot", UNLIMITED).remaining;
  return s;
});
measure("window.hit, one hot key, refused", (calls) => {
  let s = 0;
  for (let i = 0; i < calls; i++) s += window.hit("hot-refused", 1).retryAfterSeconds;
  return s;
});
measure("window.hit, 8,192 rotating keys", (calls) => {
  let s = 0;
  for (let i = 0; i < calls; i++) s += window.hit(keys[i & KEY_MASK]!, UNLIMITED).remaining;
  return s;
});
measure("window.peek, one hot key", (calls) => {
  let s = 0;
  for (let i = 0; i < calls; i++) s += window.peek("hot", UNLIMITED).remaining;
  return s;
});

// Large enough never to run dry nor to refill to the brim (a full bucket is dropped as idle).
const bucket = new TokenBucketLimiter({ capacity: 1_000_000_000, refillPerSecond: 1, clock: systemClock });
measure("bucket.take, one hot key", (calls) => {
  let s = 0;
  for (let i = 0; i < calls; i++) s += bucket.take("hot").remaining;
  return s;
});
measure("bucket.take, 8,192 rotating keys", (calls) => {
  let s = 0;
  for (let i = 0; i < calls; i++) s += bucket.take(keys[i & KEY_MASK]!).remaining;
  return s;
});

const write = rateLimitHeaderWriter("minute", 60);
const decision: LimitDecision = { allowed: true, limit: 120, remaining: 87, retryAfterSeconds: 0, resetSeconds: 42 };
measure("headers into a fresh record", (calls) => {
  let s = 0;
  for (let i = 0; i < calls; i++) {
    decision.remaining = i & 127; // varies, as it does between requests, so nothing folds away
    const headers: Record<string, string> = {};
    write(headers, decision);
    s += headers.ratelimit!.length;
  }
  return s;
});
measure("window.hit + headers, one hot key", (calls) => {
  let s = 0;
  for (let i = 0; i < calls; i++) {
    const headers: Record<string, string> = {};
    write(headers, window.hit("hot", UNLIMITED));
    s += headers.ratelimit!.length;
  }
  return s;
});

console.log(`(sink ${sink > 0 ? "ok" : "empty"}; ${CALLS.toLocaleString("en")} calls a round, median of ${ROUNDS})`);
