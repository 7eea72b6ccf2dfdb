// Pass/fail criteria shared by the scenarios: error rate, checks, and p95/p99 per endpoint tag.

/** The endpoint tags set by api.js and auth.js: one latency budget each. */
export const ENDPOINTS = ["auth_token", "properties_list", "leads_list", "leads_create", "changes_list"];

/** @typedef {Record<string, [number, number]>} Budget endpoint → [p95 ms, p99 ms] */

/**
 * Thresholds for one scenario.
 * @param {{ budget: Budget, maxFailedRate: number, minChecksRate: number }} limits
 * @returns {Record<string, import("k6/options").Threshold[]>}
 */
export function thresholds({ budget, maxFailedRate, minChecksRate }) {
  /** @type {Record<string, import("k6/options").Threshold[]>} */
  const result = {
    http_req_failed: [`rate<${maxFailedRate}`],
    checks: [`rate>${minChecksRate}`],
  };
  for (const endpoint of ENDPOINTS) {
    const limits = budget[endpoint];
    if (limits === undefined) throw new Error(`no latency budget for endpoint ${endpoint}`);
    result[`http_req_duration{endpoint:${endpoint}}`] = [`p(95)<${limits[0]}`, `p(99)<${limits[1]}`];
  }
  return result;
}

/**
 * Budgets for a local sandbox (SQLite beside the server). Reads of a page of cards are the
 * cheapest; full records carry photos and groups; a lead creation waits for the disk (a 201
 * means the lead is durable, docs/reference/behaviour.md §9); the token endpoint hashes a secret.
 * @type {Budget}
 */
export const NORMAL_BUDGET = {
  auth_token: [300, 600],
  properties_list: [200, 500],
  leads_list: [200, 500],
  leads_create: [300, 800],
  changes_list: [150, 400],
};

/**
 * Under stress and spikes latency may degrade but must stay usable for a partner.
 * @type {Budget}
 */
export const DEGRADED_BUDGET = {
  auth_token: [1000, 2000],
  properties_list: [1000, 2000],
  leads_list: [1000, 2000],
  leads_create: [1500, 3000],
  changes_list: [800, 1500],
};

/** Trend stats shown in the end-of-test summary: k6's default omits p(99). */
export const SUMMARY_TREND_STATS = ["avg", "min", "med", "max", "p(90)", "p(95)", "p(99)"];
