// Medians with their spread: every figure the bench reports is a median over rounds, printed
// with the min–max so a reader sees at once how much the rounds disagreed.

export interface Spread {
  median: number;
  min: number;
  max: number;
}

export function spread(values: readonly number[]): Spread {
  if (values.length === 0) return { median: Number.NaN, min: Number.NaN, max: Number.NaN };
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return { median, min: sorted[0]!, max: sorted[sorted.length - 1]! };
}

/** a / b, or NaN when either side is missing, so a ratio never pretends to exist. */
export function ratio(a: number | undefined, b: number | undefined): number {
  if (a === undefined || b === undefined || !Number.isFinite(a) || !Number.isFinite(b) || b === 0) return Number.NaN;
  return a / b;
}

/** The lower median: an actual value (a window of a paced scenario), never an average of two. */
export function lowerMedian(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? Number.NaN : sorted[Math.floor((sorted.length - 1) / 2)]!;
}

/** A latency distribution measured as one part of a longer one (a window): its requests and quantile points. */
export interface DistributionPart {
  requests: number;
  /** Equally spaced in rank: point i is the value i/length of the requests stayed under (the last, the largest). */
  quantiles: readonly number[];
}

/**
 * The p-th percentile (0–100) of the parts taken together, as if measured as one distribution:
 * each point stands for an equal share of its part's requests, and the points of all parts are
 * ranked together. For a single part it is that part's own percentile at its points' spacing.
 * NaN when a part has no points.
 */
export function pooledPercentile(parts: readonly DistributionPart[], p: number): number {
  if (parts.length === 0 || parts.some((part) => part.quantiles.length === 0)) return Number.NaN;
  const points = parts.flatMap((part) =>
    part.quantiles.map((value) => ({ value, weight: part.requests / part.quantiles.length })),
  );
  points.sort((a, b) => a.value - b.value);
  const target = (points.reduce((sum, point) => sum + point.weight, 0) * p) / 100;
  let ranked = 0;
  for (const point of points) {
    ranked += point.weight;
    // A relative tolerance: the weights' sum can fall a rounding short of the exact target.
    if (ranked >= target * (1 - 1e-12)) return point.value;
  }
  return points.at(-1)!.value;
}
