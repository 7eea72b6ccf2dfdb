// When a failed delivery is tried again (docs/reference/behaviour-extensions.md §13): after about 5 s, 30 s, 2 min, 10 min,
// 30 min, 1 h, 3 h, 6 h, 12 h and 24 h, each ±20 %, then it is failed for good.

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** Wait after the n-th failed attempt (index n - 1). */
export const RETRY_DELAYS_MS: readonly number[] = [
  5 * SECOND,
  30 * SECOND,
  2 * MINUTE,
  10 * MINUTE,
  30 * MINUTE,
  1 * HOUR,
  3 * HOUR,
  6 * HOUR,
  12 * HOUR,
  24 * HOUR,
];
/** The first attempt and one per retry. */
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;
export const JITTER = 0.2;

/** A source of uniform numbers in [0, 1): Math.random in production, seeded in tests. */
export type Random = () => number;

/**
 * When to try again after `attempts` attempts have failed, or null when none is left.
 * Jitter spreads the retries of many deliveries that failed together (a receiver's outage).
 */
export function nextAttemptAt(now: number, attempts: number, random: Random): number | null {
  if (attempts < 1 || attempts >= MAX_ATTEMPTS) return null;
  const base = RETRY_DELAYS_MS[attempts - 1]!;
  return now + Math.round(base * (1 - JITTER + 2 * JITTER * random()));
}
