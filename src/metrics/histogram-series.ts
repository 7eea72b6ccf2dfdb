// One label set of a prom-client histogram, observed without prom-client's per-call lookup.
//
// A prom-client child finds its entry by building a string from its label values on every
// observe and allocating on the way: on a cached list request that was about 8 % of the
// server's CPU (bun --cpu-prof under wrk). Here the entry is found once, when the series is
// made, and an observation is a short scan and three increments. prom-client still owns the
// entry and renders it. This relies on prom-client 15's entry shape ({ bucketValues keyed by
// upper bound, sum, count } in `hashMap`), which test/metrics/histogram-series.test.ts checks
// against prom-client's own observe, so an upgrade that changes it fails there, not in
// production. Never call reset() on a histogram observed this way: it would orphan the entries.
import type { Histogram } from "prom-client";

interface Entry {
  labels: Record<string, string>;
  bucketValues: Record<string, number>;
  sum: number;
  count: number;
}

export interface HistogramSeries {
  observe(value: number): void;
}

export function histogramSeries<T extends string>(histogram: Histogram<T>, labels: Record<T, string>): HistogramSeries {
  histogram.zero(labels);
  const entries = Object.values((histogram as unknown as { hashMap: Record<string, Entry> }).hashMap);
  const entry = entries.find((candidate) =>
    Object.entries(labels).every(([name, value]) => candidate.labels[name] === value),
  );
  if (entry === undefined) throw new Error(`prom-client kept no entry for ${JSON.stringify(labels)}`);
  const bounds = (histogram as unknown as { upperBounds: number[] }).upperBounds;
  // The keys prom-client gives its buckets (the bounds as strings), made once.
  const keys = bounds.map(String);
  return {
    observe(value) {
      let i = 0;
      while (i < bounds.length && value > bounds[i]!) i++;
      if (i < bounds.length) entry.bucketValues[keys[i]!]!++;
      entry.sum += value;
      entry.count++;
    },
  };
}
