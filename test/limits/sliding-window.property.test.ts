// The ring of per-second counters against an exact sliding log: "exact to within one second".

import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { SlidingWindowLimiter } from "../../src/limits/sliding-window.ts";

const WINDOW_MS = 60_000;

// Gaps mixing bursts, steady traffic and jumps of about a window, so that requests often land
// within a second of a window edge, where the two models are allowed to differ.
const gapMs = fc.oneof(
  fc.integer({ min: 0, max: 50 }),
  fc.integer({ min: 0, max: 3_000 }),
  fc.integer({ min: 59_000, max: 61_000 }),
  fc.integer({ min: 20_000, max: 70_000 }),
);
const request = fc.record({ gap: gapMs, limit: fc.integer({ min: 1, max: 6 }) });
const runs = fc.record({
  start: fc.integer({ min: 0, max: 5_000 }),
  requests: fc.array(request, { minLength: 1, maxLength: 120, size: "max" }),
});

// The reference is applied to the limiter's own history (the requests it let through), so each
// decision is compared from the same state. Run side by side with separate histories, one edge
// disagreement shifts which requests each model counted, and later decisions can differ far
// from any edge; that says nothing about this decision being right.
describe("per-second counters against an exact sliding log", () => {
  test("decisions differ only when a counted request is within a second of leaving", () => {
    fc.assert(
      fc.property(runs, ({ start, requests }) => {
        const clock = { ms: start, now: () => clock.ms };
        const limiter = new SlidingWindowLimiter({ clock });
        const counted: number[] = [];
        for (const { gap, limit } of requests) {
          clock.ms += gap;
          const t = clock.ms;
          const inWindow = counted.filter((r) => r > t - WINDOW_MS); // the exact log: (t - 60 s, t]
          const exactAllows = inWindow.length < limit;
          const d = limiter.hit("k", limit);

          // Refusing is never stricter than the log: the ring's window lies inside the log's.
          if (!d.allowed) expect(exactAllows).toBe(false);
          // Letting one through that the log refuses needs a counted request aged (59 s, 60 s).
          if (d.allowed && !exactAllows) {
            expect(inWindow.some((r) => t - r > WINDOW_MS - 1000 && t - r < WINDOW_MS)).toBe(true);
          }

          if (d.allowed) {
            counted.push(t);
            // So no 59 s span ever holds more than the limit.
            expect(counted.filter((r) => r > t - (WINDOW_MS - 1000)).length).toBeLessThanOrEqual(limit);
            expect(d.retryAfterSeconds).toBe(0);
          } else {
            // The log's wait: until its (count - limit + 1)th oldest request leaves. The ring frees
            // that request's whole second at once, up to one second sooner, never later.
            const pivot = inWindow[inWindow.length - limit]!;
            const exactWait = Math.ceil((pivot + WINDOW_MS - t) / 1000);
            expect(d.retryAfterSeconds).toBeGreaterThanOrEqual(Math.max(1, exactWait - 1));
            expect(d.retryAfterSeconds).toBeLessThanOrEqual(exactWait);
            expect(d.remaining).toBe(0);
          }

          // Figures are those of the ring: counts by whole second, current second included.
          const second = Math.floor(t / 1000);
          const ring = counted.filter((r) => Math.floor(r / 1000) > second - 60);
          if (d.allowed) {
            expect(d.remaining).toBe(limit - ring.length);
            const oldest = Math.floor(ring[0]! / 1000);
            expect(d.resetSeconds).toBe(Math.ceil(((oldest + 60) * 1000 - t) / 1000));
          }
          expect(d.resetSeconds).toBeGreaterThanOrEqual(d.allowed ? 1 : d.retryAfterSeconds);
          expect(d.resetSeconds).toBeLessThanOrEqual(60);
        }
      }),
      { numRuns: 400 },
    );
  });
});
