// The per-client sliding window of docs/reference/behaviour.md §6, driven by a hand-moved clock.

import { describe, expect, test } from "bun:test";
import { SlidingWindowLimiter } from "../../src/limits/sliding-window.ts";

function setup(startMs = 0) {
  const clock = { ms: startMs, now: () => clock.ms };
  const at = (seconds: number) => {
    clock.ms = Math.round(seconds * 1000);
  };
  return { clock, at, limiter: new SlidingWindowLimiter({ clock }) };
}

describe("exactly N requests in any 60 s window", () => {
  test("the first N are allowed with remaining counting down to 0, the N+1th is refused", () => {
    const { at, limiter } = setup();
    for (let i = 0; i < 5; i++) {
      at(i);
      const d = limiter.hit("c", 5);
      expect(d.allowed).toBe(true);
      expect(d.remaining).toBe(4 - i);
      expect(d.retryAfterSeconds).toBe(0);
    }
    at(10);
    expect(limiter.hit("c", 5)).toEqual({
      allowed: false,
      limit: 5,
      remaining: 0,
      retryAfterSeconds: 50, // the request of second 0 leaves at 60 s
      resetSeconds: 50,
    });
  });

  test("worked example: N at 0.5 s, refused at 59.4 s with Retry-After 1, allowed at 60.5 s", () => {
    const { at, limiter } = setup();
    at(0.5);
    for (let i = 0; i < 3; i++) expect(limiter.hit("c", 3).allowed).toBe(true);
    at(59.4);
    const refused = limiter.hit("c", 3);
    expect(refused.allowed).toBe(false);
    expect(refused.retryAfterSeconds).toBe(1);
    expect(refused.remaining).toBe(0);
    at(60.5);
    const allowed = limiter.hit("c", 3);
    expect(allowed.allowed).toBe(true);
    expect(allowed.remaining).toBe(2);
  });

  test("waiting exactly Retry-After seconds is enough, one second less is not", () => {
    const { at, limiter } = setup();
    at(12.3);
    limiter.hit("c", 1);
    at(40.7);
    const { retryAfterSeconds } = limiter.hit("c", 1);
    expect(retryAfterSeconds).toBe(32); // second 12 leaves at 72 s: 31.3 s, rounded up
    at(40.7 + retryAfterSeconds - 1);
    expect(limiter.hit("c", 1).allowed).toBe(false);
    at(40.7 + retryAfterSeconds);
    expect(limiter.hit("c", 1).allowed).toBe(true);
  });
});

describe("slots free as the window slides", () => {
  test("each request frees its slot 60 s after its second", () => {
    const { at, limiter } = setup();
    for (const s of [0, 10, 20]) {
      at(s);
      limiter.hit("c", 3);
    }
    at(30);
    expect(limiter.hit("c", 3).retryAfterSeconds).toBe(30);
    at(60);
    expect(limiter.hit("c", 3)).toMatchObject({ allowed: true, remaining: 0 });
    at(60.5);
    expect(limiter.hit("c", 3)).toMatchObject({ allowed: false, retryAfterSeconds: 10 });
    at(70);
    expect(limiter.hit("c", 3).allowed).toBe(true);
  });

  test("after a full idle minute the whole quota is back", () => {
    const { at, limiter } = setup();
    for (let i = 0; i < 4; i++) limiter.hit("c", 4);
    at(3600);
    expect(limiter.hit("c", 4).remaining).toBe(3);
  });
});

describe("clients are independent", () => {
  test("one client at its limit does not touch another", () => {
    const { limiter } = setup();
    limiter.hit("a", 1);
    expect(limiter.hit("a", 1).allowed).toBe(false);
    expect(limiter.hit("b", 1)).toMatchObject({ allowed: true, remaining: 0 });
    expect(limiter.size()).toBe(2);
  });
});

describe("a refused request is not counted", () => {
  test("hammering while refused does not push the recovery back", () => {
    const { at, limiter } = setup();
    limiter.hit("c", 2);
    limiter.hit("c", 2);
    for (let s = 1; s < 60; s++) {
      at(s);
      expect(limiter.hit("c", 2).allowed).toBe(false);
    }
    at(60);
    expect(limiter.hit("c", 2)).toMatchObject({ allowed: true, remaining: 1 });
    expect(limiter.hit("c", 2)).toMatchObject({ allowed: true, remaining: 0 });
  });
});

describe("the limit comes with each call", () => {
  test("a lowered limit applies at once and waits for enough slots to free", () => {
    const { at, limiter } = setup();
    for (let s = 0; s < 6; s++) {
      at(s);
      limiter.hit("c", 10);
    }
    at(10);
    // 6 counted, limit now 3: requests of seconds 0..3 must leave before one fits.
    expect(limiter.hit("c", 3)).toEqual({
      allowed: false,
      limit: 3,
      remaining: 0,
      retryAfterSeconds: 53,
      resetSeconds: 53,
    });
    expect(limiter.peek("c", 3)).toMatchObject({ allowed: false, remaining: 0, retryAfterSeconds: 53 });
    at(63);
    expect(limiter.hit("c", 3)).toMatchObject({ allowed: true, remaining: 0 });
  });

  test("a raised limit applies at once", () => {
    const { limiter } = setup();
    limiter.hit("c", 1);
    expect(limiter.hit("c", 1).allowed).toBe(false);
    expect(limiter.hit("c", 5)).toMatchObject({ allowed: true, limit: 5, remaining: 3 });
  });

  test("a limit of 0 refuses everything with the longest wait and keeps no state", () => {
    const { limiter } = setup();
    expect(limiter.hit("c", 0)).toEqual({
      allowed: false,
      limit: 0,
      remaining: 0,
      retryAfterSeconds: 60,
      resetSeconds: 60,
    });
    expect(limiter.size()).toBe(0);
  });
});

describe("remaining and reset figures", () => {
  test("reset is the whole seconds until the oldest counted request leaves", () => {
    const { at, limiter } = setup();
    at(0.25);
    expect(limiter.hit("c", 10)).toMatchObject({ remaining: 9, resetSeconds: 60 });
    at(30);
    expect(limiter.hit("c", 10)).toMatchObject({ remaining: 8, resetSeconds: 30 });
    at(59.9);
    expect(limiter.hit("c", 10)).toMatchObject({ remaining: 7, resetSeconds: 1 });
    at(60);
    // The 0.25 s request left; the oldest is now the one of second 30.
    expect(limiter.hit("c", 10)).toMatchObject({ remaining: 7, resetSeconds: 30 });
  });

  test("peek reports without counting", () => {
    const { at, limiter } = setup();
    expect(limiter.peek("c", 5)).toEqual({
      allowed: true,
      limit: 5,
      remaining: 5,
      retryAfterSeconds: 0,
      resetSeconds: 0,
    });
    expect(limiter.size()).toBe(0);
    limiter.hit("c", 5);
    at(20);
    expect(limiter.peek("c", 5)).toMatchObject({ allowed: true, remaining: 4, resetSeconds: 40 });
    expect(limiter.peek("c", 5)).toMatchObject({ remaining: 4 });
    expect(limiter.hit("c", 5).remaining).toBe(3);
  });

  test("peek at the limit says when a request would fit", () => {
    const { at, limiter } = setup();
    limiter.hit("c", 1);
    at(45.5);
    expect(limiter.peek("c", 1)).toEqual({
      allowed: false,
      limit: 1,
      remaining: 0,
      retryAfterSeconds: 15,
      resetSeconds: 15,
    });
  });

  test("a large limit keeps per-second counters, not timestamps", () => {
    const { at, limiter } = setup();
    for (let i = 0; i < 200_000; i++) {
      at(i / 10_000); // 20 s of 10,000 requests a second
      limiter.hit("big", 1_000_000);
    }
    expect(limiter.peek("big", 1_000_000).remaining).toBe(800_000);
  });
});

describe("a clock that steps back", () => {
  test("keeps counting into the newest second and never reports more than a window", () => {
    const { at, limiter } = setup();
    at(100);
    limiter.hit("c", 2);
    at(90);
    expect(limiter.hit("c", 2)).toMatchObject({ allowed: true, remaining: 0 });
    const refused = limiter.hit("c", 2);
    expect(refused.allowed).toBe(false);
    expect(refused.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(refused.retryAfterSeconds).toBeLessThanOrEqual(60);
    at(160);
    expect(limiter.hit("c", 2).allowed).toBe(true);
  });
});
