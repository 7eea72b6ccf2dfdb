// Stress: well above the average load (3x by default) for a sustained period, to see how
// latency and errors degrade when many partners sync at once.
import { envNumber } from "./lib/config.js";
import { DEGRADED_BUDGET, SUMMARY_TREND_STATS, thresholds } from "./lib/thresholds.js";
import { partnerIteration, prepareRun, thinkTime } from "./lib/traffic.js";

const VUS = envNumber("VUS", 60);

/** @type {import("k6/options").Options} */
export const options = {
  scenarios: {
    stress: {
      executor: "ramping-vus",
      startVUs: 0,
      stages: [
        { duration: "2m", target: Math.ceil(VUS / 3) }, // the average load first, as a reference
        { duration: "3m", target: VUS },
        { duration: "10m", target: VUS },
        { duration: "3m", target: 0 }, // ramp down: does the server recover?
      ],
      gracefulRampDown: "30s",
    },
  },
  thresholds: thresholds({ budget: DEGRADED_BUDGET, maxFailedRate: 0.02, minChecksRate: 0.98 }),
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
