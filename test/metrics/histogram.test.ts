import { describe, expect, test } from "bun:test";
import { Histogram, LATENCY_BUCKETS_SECONDS } from "../../src/metrics/histogram.ts";

describe("fixed-bucket histogram", () => {
  test("a value equal to a bound falls in that bucket (le is inclusive)", () => {
    const h = new Histogram([0.1, 1]);
    h.observe(0.1);
    expect(h.cumulative()).toEqual([[0.1, 1], [1, 1], [Infinity, 1]]);
  });

  test("buckets are cumulative, end at +Inf with the count, and the sum adds every value", () => {
    const h = new Histogram([0.1, 1]);
    for (const v of [0.05, 0.5, 0.7, 3]) h.observe(v);
    expect(h.cumulative()).toEqual([[0.1, 1], [1, 3], [Infinity, 4]]);
    expect(h.count).toBe(4);
    expect(h.sum).toBeCloseTo(4.25);
  });

  test("latency buckets are increasing and start below a millisecond", () => {
    expect(LATENCY_BUCKETS_SECONDS[0]).toBeLessThan(0.001);
    for (let i = 1; i < LATENCY_BUCKETS_SECONDS.length; i++) {
      expect(LATENCY_BUCKETS_SECONDS[i]!).toBeGreaterThan(LATENCY_BUCKETS_SECONDS[i - 1]!);
    }
  });
});
