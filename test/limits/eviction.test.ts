// Bounded limiter memory (docs/reference/behaviour.md §6): idle keys are dropped, and a hard cap holds.

import { describe, expect, test } from "bun:test";
import { SlidingWindowLimiter } from "../../src/limits/sliding-window.ts";
import { TokenBucketLimiter } from "../../src/limits/token-bucket.ts";

const fakeClock = () => {
  const clock = { ms: 0, now: () => clock.ms };
  return clock;
};

describe("sliding window memory stays flat", () => {
  test("100,000 distinct keys at 100 a second keep about a minute's worth", () => {
    const clock = fakeClock();
    const limiter = new SlidingWindowLimiter({ clock });
    let largest = 0;
    for (let i = 0; i < 100_000; i++) {
      clock.ms = i * 10;
      limiter.hit(`key-${i}`, 60);
      largest = Math.max(largest, limiter.size());
    }
    // 60 s of keys at 100 a second, plus the second under way and the one sweeping out.
    expect(largest).toBeLessThanOrEqual(6_200);
  });

  test("the maxKeys cap holds under a flood of new keys within one second", () => {
    const clock = fakeClock();
    const limiter = new SlidingWindowLimiter({ clock, maxKeys: 1_000 });
    for (let i = 0; i < 100_000; i++) {
      limiter.hit(`key-${i}`, 60);
      if (limiter.size() > 1_000) throw new Error(`size ${limiter.size()} over the cap`);
    }
    expect(limiter.size()).toBe(1_000);
  });

  test("the cap forgets the least recently used key first", () => {
    const clock = fakeClock();
    const limiter = new SlidingWindowLimiter({ clock, maxKeys: 3 });
    limiter.hit("a", 1);
    clock.ms = 1000;
    limiter.hit("b", 1);
    clock.ms = 2000;
    limiter.hit("a", 5); // a used again: b is now the oldest
    limiter.hit("c", 1);
    limiter.hit("d", 1); // over the cap: b goes
    expect(limiter.peek("a", 5).remaining).toBe(3);
    expect(limiter.peek("b", 1).remaining).toBe(1);
  });

  test("a key in use survives a flood of new keys under the cap", () => {
    const clock = fakeClock();
    const limiter = new SlidingWindowLimiter({ clock, maxKeys: 100 });
    limiter.hit("hot", 1_000);
    for (let round = 0; round < 50; round++) {
      for (let i = 0; i < 99; i++) limiter.hit(`flood-${round}-${i}`, 1);
      limiter.hit("hot", 1_000);
    }
    expect(limiter.peek("hot", 1_000).remaining).toBe(1_000 - 51);
  });

  test("turnover of a large population costs O(1) a call", () => {
    // Guards against ordering keys by Map insertion order: JavaScriptCore's Map iterators walk
    // every deleted slot, which made this very loop take tens of µs a call (over 10 s here).
    const clock = fakeClock();
    const limiter = new SlidingWindowLimiter({ clock });
    const started = performance.now();
    for (let i = 0; i < 200_000; i++) {
      if (i % 1_000 === 0) clock.ms += 1_000; // each key comes back 100 s later, long gone idle
      limiter.hit(`key-${i % 100_000}`, 60);
    }
    expect(limiter.size()).toBeLessThanOrEqual(61_000);
    expect(performance.now() - started).toBeLessThan(3_000);
  });

  test("a quiet limiter still sheds its idle keys", () => {
    const clock = fakeClock();
    const limiter = new SlidingWindowLimiter({ clock });
    for (let i = 0; i < 500; i++) limiter.hit(`key-${i}`, 60);
    for (let s = 60; s < 120; s++) {
      clock.ms = s * 1000;
      limiter.hit("only-one-left", 60);
    }
    expect(limiter.size()).toBe(1);
  });

  test("a key that goes idle starts afresh", () => {
    const clock = fakeClock();
    const limiter = new SlidingWindowLimiter({ clock });
    limiter.hit("a", 1);
    clock.ms = 60_000;
    for (let i = 0; i < 10; i++) limiter.hit(`other-${i}`, 1);
    expect(limiter.size()).toBe(10); // a was swept, having nothing left in its window
    expect(limiter.hit("a", 1)).toMatchObject({ allowed: true, remaining: 0 });
  });
});

describe("token bucket memory stays flat", () => {
  test("100,000 distinct sources at 100 a second keep only unrefilled buckets", () => {
    const clock = fakeClock();
    const buckets = new TokenBucketLimiter({ capacity: 20, refillPerMinute: 20, clock });
    let largest = 0;
    for (let i = 0; i < 100_000; i++) {
      clock.ms = i * 10;
      buckets.take(`ip-${i}`);
      largest = Math.max(largest, buckets.size());
    }
    // A bucket one token short is full again after 3 s: about 300 keys, and a second of slack.
    expect(largest).toBeLessThanOrEqual(450);
  });

  test("the maxKeys cap holds", () => {
    const clock = fakeClock();
    const buckets = new TokenBucketLimiter({ capacity: 20, refillPerMinute: 20, clock, maxKeys: 500 });
    for (let i = 0; i < 100_000; i++) buckets.take(`ip-${i}`);
    expect(buckets.size()).toBe(500);
  });
});
