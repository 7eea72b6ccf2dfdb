// A latency histogram with fixed buckets: observing is a short scan and one increment, no
// allocation; the cumulative counts Prometheus wants are computed only at scrape time.

/** Upper bounds in seconds. The API answers most requests well under a millisecond. */
export const LATENCY_BUCKETS_SECONDS: readonly number[] = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5,
];

export class Histogram {
  /** Per-bucket (not cumulative) counts; the last slot is the +Inf bucket. */
  private readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(readonly bounds: readonly number[] = LATENCY_BUCKETS_SECONDS) {
    this.counts = new Float64Array(bounds.length + 1);
  }

  observe(value: number): void {
    let i = 0;
    while (i < this.bounds.length && value > this.bounds[i]!) i++;
    this.counts[i]!++;
    this.sum += value;
    this.count++;
  }

  /** `[le, cumulative count]` per bucket, ending with `[Infinity, count]`. */
  cumulative(): [number, number][] {
    const out: [number, number][] = [];
    let running = 0;
    for (let i = 0; i <= this.bounds.length; i++) {
      running += this.counts[i]!;
      out.push([i < this.bounds.length ? this.bounds[i]! : Infinity, running]);
    }
    return out;
  }
}
