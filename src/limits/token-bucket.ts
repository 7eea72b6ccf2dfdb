// Per-key token bucket with lazy refill computed from the clock, no timers: throttles failed
// authentication per source IP and caps a client's burst per second (docs/reference/behaviour.md §6).

import type { Clock } from "./clock.ts";
import type { LimitDecision } from "./decision.ts";
import { RecencyMap, type Recent } from "./recency-map.ts";

export type BucketDecision = LimitDecision;

/** Exactly one refill rate. Per minute exists so 20/min is exact rather than 0.333… per second. */
type Refill =
  | { refillPerSecond: number; refillPerMinute?: undefined }
  | { refillPerMinute: number; refillPerSecond?: undefined };

export type TokenBucketOptions = Refill & {
  /** Tokens a full bucket holds; also the `limit` reported. */
  capacity: number;
  clock: Clock;
  /** Hard cap on tracked keys; past it the least recently used key is forgotten (refilled). */
  maxKeys?: number;
};

/**
 * A bucket's arithmetic in integer units, so refill is exact with a whole-millisecond clock: a
 * token is `perToken` units (the refill period in ms) and `perMs` units (tokens per period)
 * arrive each ms; a full bucket holds `full` units. Shared with the Redis copy of the bucket
 * (src/redis/), which keeps the same units and answers with the same decisions.
 */
export interface BucketShape {
  capacity: number;
  perToken: number;
  perMs: number;
  full: number;
}

export function bucketShape(options: Refill & { capacity: number }): BucketShape {
  const { capacity } = options;
  const [tokens, periodMs] =
    options.refillPerMinute !== undefined ? [options.refillPerMinute, 60_000] : [options.refillPerSecond, 1000];
  if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError("capacity must be a positive integer");
  if (!(tokens > 0) || !Number.isFinite(tokens)) throw new RangeError("refill rate must be a positive number");
  return { capacity, perToken: periodMs, perMs: tokens, full: capacity * periodMs };
}

/** The figures a bucket holding `level` units answers with. */
export function bucketDecision(shape: BucketShape, allowed: boolean, level: number): BucketDecision {
  const remaining = Math.floor(level / shape.perToken);
  // Until the next whole token lands; when refused that is exactly the wait before a retry.
  const resetSeconds =
    level >= shape.full ? 0 : Math.ceil(((remaining + 1) * shape.perToken - level) / shape.perMs / 1000);
  return {
    allowed,
    limit: shape.capacity,
    remaining: allowed ? remaining : 0,
    retryAfterSeconds: allowed ? 0 : resetSeconds,
    resetSeconds,
  };
}

interface Bucket extends Recent<Bucket> {
  /** Tokens held, in units of 1/period-ms of a token (see the constructor). */
  level: number;
  /** Clock time `level` was last brought up to date. */
  at: number;
}

export class TokenBucketLimiter {
  readonly #clock: Clock;
  readonly shape: BucketShape;
  readonly #buckets: RecencyMap<Bucket>;

  constructor(options: TokenBucketOptions) {
    const { clock, maxKeys = 100_000 } = options;
    this.#clock = clock;
    this.shape = bucketShape(options);
    // A bucket that has refilled to the brim is what an unknown key gets anyway.
    this.#buckets = new RecencyMap(maxKeys, (b, nowMs) => this.#levelAt(b, nowMs) >= this.shape.full);
  }

  /** Whether `key` has no whole token now (its next `take` would be refused). */
  isEmpty(key: string): boolean {
    const b = this.#buckets.get(key);
    if (b === undefined) return false;
    this.#refill(b, this.#clock.now());
    return b.level < this.shape.perToken;
  }

  /** Takes one token when there is a whole one; a refusal takes nothing. */
  take(key: string): BucketDecision {
    const nowMs = this.#clock.now();
    let b = this.#use(key, nowMs);
    if ((b?.level ?? this.shape.full) < this.shape.perToken) return bucketDecision(this.shape, false, b?.level ?? 0);
    if (b === undefined) {
      b = { key, newer: undefined, older: undefined, level: this.shape.full, at: nowMs };
      this.#buckets.add(b, nowMs);
    }
    b.level -= this.shape.perToken;
    return bucketDecision(this.shape, true, b.level);
  }

  /** The figures for `key` as they stand, without taking anything. */
  peek(key: string): BucketDecision {
    const level = this.#use(key, this.#clock.now())?.level ?? this.shape.full;
    return bucketDecision(this.shape, level >= this.shape.perToken, level);
  }

  /** How many keys hold state now. */
  size(): number {
    return this.#buckets.size;
  }

  #use(key: string, nowMs: number): Bucket | undefined {
    this.#buckets.tick(Math.floor(nowMs / 1000), nowMs);
    const b = this.#buckets.get(key);
    if (b !== undefined) {
      this.#refill(b, nowMs);
      this.#buckets.touch(b);
    }
    return b;
  }

  #levelAt(b: Bucket, nowMs: number): number {
    return nowMs > b.at ? Math.min(this.shape.full, b.level + (nowMs - b.at) * this.shape.perMs) : b.level;
  }

  #refill(b: Bucket, nowMs: number): void {
    b.level = this.#levelAt(b, nowMs);
    if (nowMs > b.at) b.at = nowMs;
  }
}
