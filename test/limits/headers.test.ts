// The rate-limit headers of docs/reference/behaviour.md §6, exact strings.

import { describe, expect, test } from "bun:test";
import {
  rateLimitHeaderWriter,
  writeAuthRateLimitHeaders,
  writeClientRateLimitHeaders,
} from "../../src/limits/headers.ts";
import { SlidingWindowLimiter } from "../../src/limits/sliding-window.ts";
import { TokenBucketLimiter } from "../../src/limits/token-bucket.ts";

describe("allowed request", () => {
  test("X-RateLimit-*, RateLimit-Policy and RateLimit, and no Retry-After", () => {
    const headers: Record<string, string> = {};
    writeClientRateLimitHeaders(headers, {
      allowed: true,
      limit: 120,
      remaining: 119,
      retryAfterSeconds: 0,
      resetSeconds: 60,
    });
    expect(headers).toEqual({
      "x-ratelimit-limit": "120",
      "x-ratelimit-remaining": "119",
      "ratelimit-policy": '"minute";q=120;w=60',
      ratelimit: '"minute";r=119;t=60',
    });
  });
});

describe("refused request", () => {
  test("remaining 0 and Retry-After in whole seconds", () => {
    const headers: Record<string, string> = {};
    writeClientRateLimitHeaders(headers, {
      allowed: false,
      limit: 60,
      remaining: 0,
      retryAfterSeconds: 17,
      resetSeconds: 17,
    });
    expect(headers).toEqual({
      "x-ratelimit-limit": "60",
      "x-ratelimit-remaining": "0",
      "ratelimit-policy": '"minute";q=60;w=60',
      ratelimit: '"minute";r=0;t=17',
      "retry-after": "17",
    });
  });
});

describe("the failed-authentication bucket", () => {
  test("uses its own policy name", () => {
    const headers: Record<string, string> = {};
    writeAuthRateLimitHeaders(headers, {
      allowed: false,
      limit: 20,
      remaining: 0,
      retryAfterSeconds: 3,
      resetSeconds: 3,
    });
    expect(headers["ratelimit-policy"]).toBe('"auth";q=20;w=60');
    expect(headers.ratelimit).toBe('"auth";r=0;t=3');
    expect(headers["retry-after"]).toBe("3");
  });
});

describe("consistency with the limiters", () => {
  test("r always equals X-RateLimit-Remaining, and the old trio never appears", () => {
    const clock = { ms: 0, now: () => clock.ms };
    const window = new SlidingWindowLimiter({ clock });
    const bucket = new TokenBucketLimiter({ capacity: 3, refillPerMinute: 3, clock });
    for (let i = 0; i < 6; i++) {
      clock.ms += 7_000;
      for (const [write, decision] of [
        [writeClientRateLimitHeaders, window.hit("c", 4)],
        [writeAuthRateLimitHeaders, bucket.take("ip")],
      ] as const) {
        const headers: Record<string, string> = {};
        write(headers, decision);
        expect(headers.ratelimit).toEndWith(`;r=${headers["x-ratelimit-remaining"]};t=${decision.resetSeconds}`);
        expect("retry-after" in headers).toBe(!decision.allowed);
        expect(Object.keys(headers)).not.toContainAnyValues([
          "ratelimit-limit",
          "ratelimit-remaining",
          "ratelimit-reset",
        ]);
      }
    }
  });

  test("writes into Elysia-style records and yields valid Fetch headers", () => {
    const set: Record<string, string | number> = { "x-request-id": "abc" };
    writeClientRateLimitHeaders(set, {
      allowed: false,
      limit: 5,
      remaining: 0,
      retryAfterSeconds: 60,
      resetSeconds: 60,
    });
    const response = new Response(null, { headers: set as Record<string, string> });
    expect(response.headers.get("RateLimit-Policy")).toBe('"minute";q=5;w=60');
    expect(response.headers.get("Retry-After")).toBe("60");
    expect(response.headers.get("X-Request-Id")).toBe("abc");
  });
});

describe("policy definition", () => {
  test("a custom policy names its window", () => {
    const headers: Record<string, string> = {};
    rateLimitHeaderWriter("burst", 1)(headers, {
      allowed: true,
      limit: 10,
      remaining: 9,
      retryAfterSeconds: 0,
      resetSeconds: 1,
    });
    expect(headers["ratelimit-policy"]).toBe('"burst";q=10;w=1');
  });

  test("refuses a name that would break the structured field", () => {
    expect(() => rateLimitHeaderWriter('min"ute', 60)).toThrow(RangeError);
    expect(() => rateLimitHeaderWriter("", 60)).toThrow(RangeError);
    expect(() => rateLimitHeaderWriter("minute", 0)).toThrow(RangeError);
  });
});
