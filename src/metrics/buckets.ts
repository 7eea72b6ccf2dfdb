// Histogram bounds shared by the latency metrics.

/** Upper bounds in seconds. The API answers most requests well under a millisecond. */
export const LATENCY_BUCKETS_SECONDS: number[] = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5,
];
