// Average load: the traffic an agency's server sees on a normal busy day, held long enough to
// trust the percentiles. The baseline every other scenario is compared against.
import { envDuration, envNumber } from "./lib/config.js";
import { NORMAL_BUDGET, SUMMARY_TREND_STATS, thresholds } from "./lib/thresholds.js";
import { partnerIteration, prepareRun, thinkTime } from "./lib/traffic.js";

const VUS = envNumber("VUS", 20);
const RAMP_DURATION = envDuration("RAMP_DURATION", "2m");
const STEADY_DURATION = envDuration("STEADY_DURATION", "10m");

/** @type {import("k6/options").Options} */
export const options = {
  scenarios: {
    average_load: {
      executor: "ramping-vus",
      startVUs: 0,
      stages: [
        { duration: RAMP_DURATION, target: VUS }, // warm up caches and connections
        { duration: STEADY_DURATION, target: VUS },
        { duration: "1m", target: 0 },
      ],
      gracefulRampDown: "30s",
    },
  },
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
