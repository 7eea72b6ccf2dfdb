// Smoke: one VU calls every endpoint a few times. Run it first, and after every deploy: if this
// fails, the larger scenarios would only measure errors.
import { sleep } from "k6";
import { NORMAL_BUDGET, SUMMARY_TREND_STATS, thresholds } from "./lib/thresholds.js";
import { everyCallOnce, prepareRun } from "./lib/traffic.js";

/** @type {import("k6/options").Options} */
export const options = {
  scenarios: {
    smoke: { executor: "shared-iterations", vus: 1, iterations: 5, maxDuration: "2m" },
  },
  // Nothing may fail: this is a correctness gate, not a load.
  thresholds: thresholds({ budget: NORMAL_BUDGET, maxFailedRate: 0.001, minChecksRate: 0.999 }),
  summaryTrendStats: SUMMARY_TREND_STATS,
};

export function setup() {
  return prepareRun();
}

/** @param {import("./lib/traffic.js").RunData} data */
export default function (data) {
  everyCallOnce(data);
  sleep(1);
}
