// The time source every limiter reads, injected so tests can drive it by hand.

import type { Clock } from "../clock.ts";

export type { Clock };

// Monotonic rather than Date.now(): an NTP step backwards must not hand a client a fresh window.
export const systemClock: Clock = { now: () => performance.now() };
