// The time source everything time-dependent reads (tokens, limiters, tenants, idempotency),
// injected so tests can drive it by hand.

export interface Clock {
  /** Milliseconds since the Unix epoch (a test clock may start anywhere). */
  now(): number;
}

/** Wall time: tokens carry absolute expiry times, so every part reads the same clock. */
export const wallClock: Clock = { now: () => Date.now() };
