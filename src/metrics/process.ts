// Metrics of the whole process, whatever serves in it: prom-client's default process and
// runtime metrics (memory, CPU, open file descriptors, event-loop lag, heap), garbage
// collections, and the storage metrics of src/metrics/storage.ts. They live in one registry
// per process, which every server's scrape merges with its own (src/metrics/registry.ts).
import { Counter, collectDefaultMetrics, Registry } from "prom-client";

export const processRegistry = new Registry();

/**
 * Default metrics Bun cannot feed, left out rather than shown empty or at zero for ever: Bun
 * emits no `gc` performance entries (collections are counted below instead), reports no
 * libuv handles, requests or async resources, and has no V8 heap spaces (the heap's size is
 * in nodejs_heap_size_*_bytes).
 */
const UNFED_ON_BUN = [
  "nodejs_gc_duration_seconds",
  "nodejs_active_handles",
  "nodejs_active_handles_total",
  "nodejs_active_requests",
  "nodejs_active_requests_total",
  "nodejs_active_resources",
  "nodejs_active_resources_total",
  "nodejs_heap_space_size_total_bytes",
  "nodejs_heap_space_size_used_bytes",
  "nodejs_heap_space_size_available_bytes",
];

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
  for (const name of UNFED_ON_BUN) processRegistry.removeSingleMetric(name);
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
