// What an operator needs to see of the storage: how group commit batches writes (writes per
// commit, how long a batch gathered, how long its transaction and the WAL's sync took) and how often the
// page cache answers. Recorded by src/db/group-commit.ts and src/query/page-cache.ts,
// on the process registry: the storage serves the whole process. The file and WAL sizes are
// read at scrape time instead (partner_api_database_size_bytes, src/metrics/registry.ts).
import { Counter, Histogram } from "prom-client";
import { LATENCY_BUCKETS_SECONDS } from "./buckets.ts";
import { processRegistry } from "./process.ts";

const registers = [processRegistry];

const batchSize = new Histogram({
  name: "partner_api_group_commit_batch_size",
  help: "Writes committed together in one transaction, so under one fsync.",
  buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1000],
  registers,
});

const waitSeconds = new Histogram({
  name: "partner_api_group_commit_wait_seconds",
  help: "How long a batch's first write waited before the transaction began: for others to join it, and for another process's write lock (an import).",
  buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 1, 5],
  registers,
});

const commitSeconds = new Histogram({
  name: "partner_api_group_commit_duration_seconds",
  help: "From BEGIN until one batch was settled: its writes, and for a batch with durable writes the WAL's sync after COMMIT (on another thread).",
  buckets: LATENCY_BUCKETS_SECONDS,
  registers,
});

/** One committed batch: `writes` in it, milliseconds it gathered, milliseconds its commit took. */
export function recordGroupCommit(writes: number, waitMs: number, commitMs: number): void {
  batchSize.observe(writes);
  waitSeconds.observe(waitMs / 1000);
  commitSeconds.observe(commitMs / 1000);
}

// A lookup is part of every cached list request, the hottest path there is: it adds to a
// plain number, and the counter reads the numbers when scraped.
const lookups = { hit: 0, miss: 0 };

new Counter({
  name: "partner_api_page_cache_lookups_total",
  help: "Lookups of finished list and change-feed pages: hit (served from memory) or miss (computed from the database).",
  labelNames: ["result"],
  registers,
  collect() {
    this.reset();
    this.inc({ result: "hit" }, lookups.hit);
    this.inc({ result: "miss" }, lookups.miss);
  },
});

export function recordPageCacheLookup(hit: boolean): void {
  if (hit) lookups.hit++;
  else lookups.miss++;
}
