// The bench's pooling of latency windows (feed-run: the p99 of a whole run from its windows).
import { describe, expect, test } from "bun:test";
import { pooledPercentile } from "../../bench/lib/stats.ts";

/** `points` equally spaced quantile points of `samples`, as paced.lua prints them. */
function part(samples: number[], points = samples.length) {
  const sorted = [...samples].sort((a, b) => a - b);
  const quantiles = Array.from(
    { length: points },
    (_, i) => sorted[Math.ceil(((i + 1) * sorted.length) / points) - 1]!,
  );
  return { requests: samples.length, quantiles };
}

const range = (from: number, to: number, step = 1) =>
  Array.from({ length: Math.floor((to - from) / step) + 1 }, (_, i) => from + i * step);

describe("pooledPercentile", () => {
  test("one part gives that part's own percentile", () => {
    const samples = range(1, 1000);
    expect(pooledPercentile([part(samples)], 99)).toBe(990);
    expect(pooledPercentile([part(samples)], 50)).toBe(500);
    expect(pooledPercentile([part(samples)], 100)).toBe(1000);
  });

  test("two interleaved parts pool to the percentile of all their requests", () => {
    const evens = range(2, 2000, 2);
    const odds = range(1, 1999, 2);
    expect(pooledPercentile([part(evens), part(odds)], 99)).toBe(1980);
    expect(pooledPercentile([part(evens), part(odds)], 50)).toBe(1000);
  });

  test("a part with more requests weighs more, at the resolution of its points", () => {
    // 1,000 requests at 1..1000, 3,000 at 1001..4000 given by 1,000 points: the p99 of all 4,000 is 3960.
    const p99 = pooledPercentile([part(range(1, 1000)), part(range(1001, 4000), 1000)], 99);
    expect(p99).toBeGreaterThanOrEqual(3960);
    expect(p99).toBeLessThanOrEqual(3963);
    // Equal weights would have put the p99 at 1000 + 3 × 980 = 3940.
  });

  test("a slow window shows in the pooled tail as much as its share of the requests", () => {
    // Nine quiet windows at 1 ms, one at 10 ms: 10 % of the requests are slow, so p99 is slow and p50 is not.
    const quiet = Array.from({ length: 9 }, () => part(Array(100).fill(1)));
    const slow = part(Array(100).fill(10));
    expect(pooledPercentile([...quiet, slow], 99)).toBe(10);
    expect(pooledPercentile([...quiet, slow], 50)).toBe(1);
  });

  test("no points, no percentile", () => {
    expect(pooledPercentile([], 99)).toBeNaN();
    expect(pooledPercentile([part(range(1, 10)), { requests: 10, quantiles: [] }], 99)).toBeNaN();
  });
});
