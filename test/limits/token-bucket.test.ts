// The token bucket of docs/reference/behaviour.md §6: failed-authentication throttling per IP and the burst cap.

import { describe, expect, test } from "bun:test";
import { TokenBucketLimiter } from "../../src/limits/token-bucket.ts";

function setup(rate: { refillPerMinute: number } | { refillPerSecond: number }, capacity: number) {
  const clock = { ms: 1_000_000, now: () => clock.ms };
  const advance = (seconds: number) => {
    clock.ms += Math.round(seconds * 1000);
  };
  return { advance, bucket: new TokenBucketLimiter({ capacity, clock, ...rate }) };
}

describe("failed-authentication bucket: 20, refilled 20 a minute", () => {
  test("20 takes pass, the 21st is refused with Retry-After until one token", () => {
    const { bucket } = setup({ refillPerMinute: 20 }, 20);
    for (let i = 0; i < 20; i++) {
      expect(bucket.isEmpty("ip")).toBe(false);
      expect(bucket.take("ip")).toMatchObject({ allowed: true, limit: 20, remaining: 19 - i, retryAfterSeconds: 0 });
    }
    expect(bucket.isEmpty("ip")).toBe(true);
    expect(bucket.take("ip")).toEqual({
      allowed: false,
      limit: 20,
      remaining: 0,
      retryAfterSeconds: 3, // one token every 3 s
      resetSeconds: 3,
    });
  });

  test("refills over time, one token every 3 s", () => {
    const { advance, bucket } = setup({ refillPerMinute: 20 }, 20);
    for (let i = 0; i < 20; i++) bucket.take("ip");
    advance(2.999);
    expect(bucket.isEmpty("ip")).toBe(true);
    advance(0.001);
    expect(bucket.isEmpty("ip")).toBe(false);
    expect(bucket.take("ip")).toMatchObject({ allowed: true, remaining: 0 });
    advance(1.5);
    expect(bucket.take("ip")).toMatchObject({ allowed: false, retryAfterSeconds: 2 });
    advance(30);
    expect(bucket.peek("ip")).toMatchObject({ allowed: true, remaining: 10 });
  });

  test("never holds more than its capacity", () => {
    const { advance, bucket } = setup({ refillPerMinute: 20 }, 20);
    bucket.take("ip");
    advance(3600);
    expect(bucket.peek("ip")).toEqual({
      allowed: true,
      limit: 20,
      remaining: 20,
      retryAfterSeconds: 0,
      resetSeconds: 0,
    });
    for (let i = 0; i < 20; i++) expect(bucket.take("ip").allowed).toBe(true);
    expect(bucket.take("ip").allowed).toBe(false);
  });

  test("a refusal takes nothing, so hammering does not push recovery back", () => {
    const { advance, bucket } = setup({ refillPerMinute: 20 }, 20);
    for (let i = 0; i < 20; i++) bucket.take("ip");
    for (let i = 0; i < 100; i++) bucket.take("ip");
    advance(3);
    expect(bucket.take("ip").allowed).toBe(true);
  });

  test("an unknown source is not empty and costs no memory to ask about", () => {
    const { bucket } = setup({ refillPerMinute: 20 }, 20);
    expect(bucket.isEmpty("never-failed")).toBe(false);
    expect(bucket.peek("never-failed")).toMatchObject({ allowed: true, remaining: 20, resetSeconds: 0 });
    expect(bucket.size()).toBe(0);
  });

  test("sources are independent", () => {
    const { bucket } = setup({ refillPerMinute: 20 }, 20);
    for (let i = 0; i < 20; i++) bucket.take("a");
    expect(bucket.isEmpty("a")).toBe(true);
    expect(bucket.isEmpty("b")).toBe(false);
  });

  test("reset is the whole seconds until the next token lands", () => {
    const { advance, bucket } = setup({ refillPerMinute: 20 }, 20);
    expect(bucket.take("ip")).toMatchObject({ remaining: 19, resetSeconds: 3 });
    advance(1);
    expect(bucket.peek("ip")).toMatchObject({ remaining: 19, resetSeconds: 2 });
    advance(2);
    expect(bucket.peek("ip")).toMatchObject({ remaining: 20, resetSeconds: 0 });
  });
});

describe("burst cap: capacity = burst, refilled burst per second", () => {
  test("a burst of 5 passes, the 6th waits one second, tokens return every 200 ms", () => {
    const { advance, bucket } = setup({ refillPerSecond: 5 }, 5);
    for (let i = 0; i < 5; i++) expect(bucket.take("client").allowed).toBe(true);
    expect(bucket.take("client")).toMatchObject({ allowed: false, retryAfterSeconds: 1, remaining: 0 });
    advance(0.2);
    expect(bucket.take("client")).toMatchObject({ allowed: true, remaining: 0 });
    advance(10);
    expect(bucket.peek("client").remaining).toBe(5);
  });
});

describe("configuration", () => {
  test("rejects a capacity or a rate that cannot work", () => {
    const clock = { now: () => 0 };
    expect(() => new TokenBucketLimiter({ capacity: 0, refillPerSecond: 1, clock })).toThrow(RangeError);
    expect(() => new TokenBucketLimiter({ capacity: 2.5, refillPerSecond: 1, clock })).toThrow(RangeError);
    expect(() => new TokenBucketLimiter({ capacity: 5, refillPerSecond: 0, clock })).toThrow(RangeError);
    expect(() => new TokenBucketLimiter({ capacity: 5, refillPerMinute: Number.NaN, clock })).toThrow(RangeError);
  });
});
