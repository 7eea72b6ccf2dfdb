// The time source every limiter reads, injected so tests can drive it by hand.

export interface Clock {
  /** Milliseconds; only differences matter, so any fixed origin will do. */
  now(): number;
}

// Monotonic rather than Date.now(): an NTP step backwards must not hand a client a fresh window.
export const systemClock: Clock = { now: () => performance.now() };
