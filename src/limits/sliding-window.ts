// Per-key sliding window of 60 s (docs/reference/behaviour.md §6), kept as a ring of 60 per-second counters:
// constant memory per key whatever the limit, O(1) per call, no timers.

import type { Clock } from "./clock.ts";
import type { LimitDecision } from "./decision.ts";
import { RecencyMap, type Recent } from "./recency-map.ts";

const WINDOW_SECONDS = 60;
const MS = 1000;

export type WindowDecision = LimitDecision;

export interface SlidingWindowOptions {
  clock: Clock;
  /** Hard cap on tracked keys; past it the least recently used key is forgotten. */
  maxKeys?: number;
}

interface Window extends Recent<Window> {
  /** counts[s % 60] = requests counted during second s, for s in (head - 60, head]. */
  readonly counts: Uint32Array;
  total: number;
  /** The latest second the ring has been advanced to. */
  head: number;
  /** The oldest second with a non-zero counter; meaningful only while total > 0. */
  oldest: number;
}

const secondOf = (ms: number): number => Math.floor(ms / MS);

// Whole seconds from now until the counter of `second` leaves the window. Clamped because a
// clock that stepped back behind `head` would otherwise stretch it past a window.
const untilLeaves = (second: number, nowMs: number): number =>
  Math.min(WINDOW_SECONDS, Math.max(1, Math.ceil(((second + WINDOW_SECONDS) * MS - nowMs) / MS)));

// Drops the counters of seconds that slid out of the window. At most 60 steps, and only when
// the second has changed since the last call for this key.
function advance(w: Window, second: number): void {
  if (second <= w.head) return; // same second, or a clock that stepped back: keep counting into head
  if (second - w.head >= WINDOW_SECONDS) {
    w.counts.fill(0);
    w.total = 0;
  } else {
    for (let s = w.head + 1; s <= second; s++) {
      const i = s % WINDOW_SECONDS;
      w.total -= w.counts[i]!;
      w.counts[i] = 0;
    }
  }
  w.head = second;
  if (w.total > 0 && w.oldest <= second - WINDOW_SECONDS) {
    let s = second - WINDOW_SECONDS + 1;
    while (w.counts[s % WINDOW_SECONDS] === 0) s++;
    w.oldest = s;
  }
}

// A refusal: nothing left, and the wait until enough old counters leave for the count to drop
// below the limit (one counter normally; more after the limit was lowered at runtime).
function refusal(w: Window | undefined, limit: number, nowMs: number): WindowDecision {
  const total = w?.total ?? 0;
  let retryAfterSeconds = WINDOW_SECONDS; // a limit below 1 never frees: ask for the longest wait
  if (w !== undefined && limit >= 1) {
    let excess = total - limit + 1;
    let s = w.oldest;
    for (;;) {
      excess -= w.counts[s % WINDOW_SECONDS]!;
      if (excess <= 0) break;
      s++;
    }
    retryAfterSeconds = untilLeaves(s, nowMs);
  }
  // `remaining` grows exactly when a request would be allowed again, so reset matches retry.
  return { allowed: false, limit, remaining: 0, retryAfterSeconds, resetSeconds: retryAfterSeconds };
}

export class SlidingWindowLimiter {
  readonly #clock: Clock;
  readonly #windows: RecencyMap<Window>;

  constructor({ clock, maxKeys = 100_000 }: SlidingWindowOptions) {
    this.#clock = clock;
    // A window whose newest counter has left holds nothing: dropping it loses no information.
    this.#windows = new RecencyMap(maxKeys, (w, nowMs) => w.head <= secondOf(nowMs) - WINDOW_SECONDS);
  }

  /**
   * Counts one request for `key` when fewer than `limit` are in the window. The limit comes
   * with every call so a config reload applies at once. A refused request is not counted.
   */
  hit(key: string, limit: number): WindowDecision {
    const nowMs = this.#clock.now();
    const second = secondOf(nowMs);
    this.#windows.tick(second, nowMs);
    let w = this.#windows.get(key);
    if (w !== undefined) {
      advance(w, second);
      this.#windows.touch(w);
    }
    if ((w?.total ?? 0) >= limit) return refusal(w, limit, nowMs);
    if (w === undefined) {
      w = {
        key,
        newer: undefined,
        older: undefined,
        counts: new Uint32Array(WINDOW_SECONDS),
        total: 0,
        head: second,
        oldest: second,
      };
      this.#windows.add(w, nowMs);
    }
    w.counts[w.head % WINDOW_SECONDS]!++;
    if (w.total === 0) w.oldest = w.head;
    w.total++;
    return {
      allowed: true,
      limit,
      remaining: limit - w.total,
      retryAfterSeconds: 0,
      resetSeconds: untilLeaves(w.oldest, nowMs),
    };
  }

  /** The figures for `key` as they stand, without counting anything. */
  peek(key: string, limit: number): WindowDecision {
    const nowMs = this.#clock.now();
    const second = secondOf(nowMs);
    this.#windows.tick(second, nowMs);
    const w = this.#windows.get(key);
    if (w !== undefined) {
      advance(w, second);
      this.#windows.touch(w);
    }
    const total = w?.total ?? 0;
    if (total >= limit) return refusal(w, limit, nowMs);
    return {
      allowed: true,
      limit,
      remaining: limit - total,
      retryAfterSeconds: 0,
      resetSeconds: w !== undefined && total > 0 ? untilLeaves(w.oldest, nowMs) : 0,
    };
  }

  /** How many keys hold state now. */
  size(): number {
    return this.#windows.size;
  }
}
