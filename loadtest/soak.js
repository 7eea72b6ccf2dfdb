// Soak: the average load for hours (4 h by default, SOAK_DURATION to change). Finds what short
// runs cannot: memory growth, database files and WAL growing, latency drifting, and token
// renewal (tokens live one hour, so every VU renews several times).
import { envDuration, envNumber } from "./lib/config.js";
import { NORMAL_BUDGET, SUMMARY_TREND_STATS, thresholds } from "./lib/thresholds.js";
import { partnerIteration, prepareRun, thinkTime } from "./lib/traffic.js";

const VUS = envNumber("VUS", 20);
const SOAK_DURATION = envDuration("SOAK_DURATION", "4h");

/** @type {import("k6/options").Options} */
export const options = {
  scenarios: {
    soak: {
      executor: "ramping-vus",
      startVUs: 0,
      stages: [
        { duration: "5m", target: VUS },
        { duration: SOAK_DURATION, target: VUS },
        { duration: "5m", target: 0 },
      ],
      gracefulRampDown: "30s",
    },
  },
  // The same budget as average load: any drift over the hours fails the run.
  thresholds: thresholds({ budget: NORMAL_BUDGET, maxFailedRate: 0.01, minChecksRate: 0.99 }),
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
