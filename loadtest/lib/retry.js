// Honours 429 RATE_LIMIT_EXCEEDED the way SPEC asks partners to: wait Retry-After seconds, retry.
import { sleep } from "k6";
import { Counter } from "k6/metrics";

// Bounded so a misconfigured limit shows up as failed checks instead of a run that only sleeps.
const MAX_RETRIES = 3;
// The server answers 1..60 (docs/reference/behaviour.md §6); anything else is clamped into that range.
const MAX_WAIT_SECONDS = 60;

/** Every 429 seen, tagged by endpoint: the first thing to read when http_req_failed is high. */
export const rateLimited = new Counter("rate_limited_responses");

/** @param {import("k6/http").Response} res @returns {number} seconds to wait */
export function retryAfterSeconds(res) {
  const seconds = Number.parseInt(res.headers["Retry-After"] ?? "", 10);
  if (!Number.isFinite(seconds) || seconds < 1) return 1;
  return Math.min(seconds, MAX_WAIT_SECONDS);
}

/**
 * Sends a request, and again after Retry-After while the answer is 429 (at most MAX_RETRIES times).
 * Each 429 still counts in http_req_failed: a load run that hits the limit is measuring the
 * limiter, not the API, and the summary should say so.
 * @template {import("k6/http").Response} R
 * @param {() => R} send
 * @param {string} endpoint tag value, for the rate_limited_responses counter
 * @returns {R}
 */
export function withRateLimitRetry(send, endpoint) {
  let res = send();
  for (let attempt = 0; res.status === 429 && attempt < MAX_RETRIES; attempt++) {
    rateLimited.add(1, { endpoint });
    sleep(retryAfterSeconds(res));
    res = send();
  }
  if (res.status === 429) rateLimited.add(1, { endpoint });
  return res;
}
