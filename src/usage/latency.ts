// Latency counted in buckets (docs/operators/console.md#what-the-agency-sees): each bucket's upper
// bound is 10 % above the one before, from 0.05 ms, so the counts of every process add up and a
// day's p50 and p95 are read from the sums, at most 10 % above the true value.

const FIRST_MS = 0.05;
const RATIO = 1.1;
const LOG_RATIO = Math.log(RATIO);

/** The bucket of a latency: the least b with ms ≤ 0.05 × 1.1^b. */
export function latencyBucket(ms: number): number {
  if (!(ms > FIRST_MS)) return 0;
  return Math.min(400, Math.ceil(Math.log(ms / FIRST_MS) / LOG_RATIO - 1e-9));
}

/** A bucket's upper bound in ms. */
export function bucketUpperMs(bucket: number): number {
  return FIRST_MS * RATIO ** bucket;
}

/** The q-quantile (0 < q ≤ 1) of counts per bucket, as its bucket's upper bound; null when empty. */
export function quantileMs(counts: ReadonlyMap<number, number>, q: number): number | null {
  let total = 0;
  for (const n of counts.values()) total += n;
  if (total === 0) return null;
  const rank = Math.max(1, Math.ceil(q * total));
  let seen = 0;
  for (const bucket of [...counts.keys()].sort((a, b) => a - b)) {
    seen += counts.get(bucket)!;
    if (seen >= rank) return Math.round(bucketUpperMs(bucket) * 100) / 100;
  }
  return null;
}
