// Breakpoint: raises the request rate steadily (open model: new iterations start on schedule
// whatever the latency) until the server breaks; the run aborts as soon as errors or tail
// latency cross the line, and the rate reached at that moment is the capacity.
// Never point it at a server others depend on.
import { envDuration, envNumber } from "./lib/config.js";
import { DEGRADED_BUDGET, SUMMARY_TREND_STATS, thresholds } from "./lib/thresholds.js";
import { partnerIteration, prepareRun } from "./lib/traffic.js";

const MAX_RATE = envNumber("MAX_RATE", 2000); // iterations (= requests) per second at the end
const RAMP_DURATION = envDuration("RAMP_DURATION", "30m");
const MAX_VUS = envNumber("MAX_VUS", 1000);
// The first seconds (cold caches, few samples) may not abort the run.
const ABORT_DELAY = envDuration("ABORT_DELAY", "30s");

/** @type {import("k6/options").Options} */
export const options = {
  scenarios: {
    breakpoint: {
      executor: "ramping-arrival-rate",
      startRate: 10,
      timeUnit: "1s",
      preAllocatedVUs: Math.min(50, MAX_VUS), // k6 refuses more pre-allocated VUs than maxVUs
      maxVUs: MAX_VUS,
      stages: [{ duration: RAMP_DURATION, target: MAX_RATE }],
    },
  },
  thresholds: {
    ...thresholds({ budget: DEGRADED_BUDGET, maxFailedRate: 0.05, minChecksRate: 0.95 }),
    // These two stop the run at the breaking point.
    http_req_failed: [{ threshold: "rate<0.05", abortOnFail: true, delayAbortEval: ABORT_DELAY }],
    http_req_duration: [{ threshold: "p(99)<2000", abortOnFail: true, delayAbortEval: ABORT_DELAY }],
  },
  summaryTrendStats: SUMMARY_TREND_STATS,
};

export function setup() {
  return prepareRun();
}

// No think time: the arrival rate, not the VUs, sets the pace.
/** @param {import("./lib/traffic.js").RunData} data */
export default function (data) {
  partnerIteration(data);
}
