// Spike: a sudden burst (a portal re-syncing everything, a campaign going live) on top of a
// small baseline, then a recovery period that shows whether the server comes back by itself.
import { envNumber } from "./lib/config.js";
import { DEGRADED_BUDGET, SUMMARY_TREND_STATS, thresholds } from "./lib/thresholds.js";
import { partnerIteration, prepareRun, thinkTime } from "./lib/traffic.js";

const BASELINE_VUS = envNumber("BASELINE_VUS", 5);
const SPIKE_VUS = envNumber("SPIKE_VUS", 200);

/** @type {import("k6/options").Options} */
export const options = {
  scenarios: {
    spike: {
      executor: "ramping-vus",
      startVUs: 0,
      stages: [
        { duration: "30s", target: BASELINE_VUS },
        { duration: "1m", target: BASELINE_VUS },
        { duration: "10s", target: SPIKE_VUS }, // the spike: no warm-up
        { duration: "1m", target: SPIKE_VUS },
        { duration: "10s", target: BASELINE_VUS },
        { duration: "2m", target: BASELINE_VUS }, // recovery, compared with the first minute
        { duration: "10s", target: 0 },
      ],
      gracefulRampDown: "30s",
    },
  },
  thresholds: thresholds({ budget: DEGRADED_BUDGET, maxFailedRate: 0.05, minChecksRate: 0.95 }),
  summaryTrendStats: SUMMARY_TREND_STATS,
};

export function setup() {
  return prepareRun();
}

/** @param {import("./lib/traffic.js").RunData} data */
export default function (data) {
  partnerIteration(data);
  thinkTime();
}
