// Metrics of the whole process, whatever serves in it: prom-client's default process and
// runtime metrics (memory, CPU, open file descriptors, event-loop lag, heap), garbage
// collections, and the storage metrics of src/metrics/storage.ts. They live in one registry
// per process, which every server's scrape merges with its own (src/metrics/registry.ts).
import { collectDefaultMetrics, Counter, Registry } from "prom-client";

export const processRegistry = new Registry();

let started = false;
/** Held here: a FinalizationRegistry nothing refers to is itself collected, and falls silent. */
let gcSentinels: FinalizationRegistry<null> | null = null;

/**
 * Starts the default metrics once per process (they keep an event-loop monitor running, so
 * only servers start them, not the one-shot commands).
 */
export function startProcessMetrics(): void {
  if (started) return;
  started = true;
  collectDefaultMetrics({ register: processRegistry });
  // Bun emits no `gc` performance entries, so prom-client's GC histogram would stay empty for
  // ever and tell an operator nothing; garbage collections are counted below instead.
  processRegistry.removeSingleMetric("nodejs_gc_duration_seconds");
  countGarbageCollections();
}

/**
 * Counts collections by planting an unreachable object and planting the next one when a
 * collection reclaims it. A lower bound: collections that happen before the finaliser has run
 * count once. Enough to see a process collecting far more often than it used to.
 */
function countGarbageCollections(): void {
  const collections = new Counter({
    name: "partner_api_gc_collections_total",
    help: "Garbage collections seen (a lower bound: collections closer together than a turn of the event loop count once).",
    registers: [processRegistry],
  });
  const sentinels = new FinalizationRegistry<null>(() => {
    collections.inc();
    plant();
  });
  const plant = () => sentinels.register({}, null);
  gcSentinels = sentinels;
  plant();
}
