// When seed records are created: a jittered grid over the two years before asOf, so insertion order is time order.
import type { Prng } from "./prng.ts";

/** The span the seed's records are created over, ending at asOf. */
export interface Timeline {
  startMs: number;
  endMs: number;
}

/**
 * Record `index` of `count` is created inside its own slice of the timeline, after record
 * `index - 1`: rows are inserted in time order, and the time indexes grow at one end.
 */
export function gridCreatedMs(rng: Prng, index: number, count: number, timeline: Timeline): number {
  return timeline.startMs + Math.floor(((index + rng.float()) / count) * (timeline.endMs - timeline.startMs));
}
