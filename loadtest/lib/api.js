// One helper per partner call: sends it tagged by endpoint (for per-endpoint thresholds),
// retries 429s, and checks status and body shape. Each returns the parsed body (null if not JSON).

import { check } from "k6";
import http from "k6/http";
import { hasOnlyFields, hasOnlyStatus, isChangePage, isCreatedLead, jsonBody } from "./checks.js";
import { config } from "./config.js";
import { withRateLimitRetry } from "./retry.js";

/**
 * A query string from the defined values. k6 has no URLSearchParams, hence by hand.
 * @param {Record<string, string | number | undefined>} values
 */
function query(values) {
  const parts = [];
  for (const [key, value] of Object.entries(values)) {
    if (value !== undefined) parts.push(`${encodeURIComponent(key)}=${encodeURIComponent(String(value))}`);
  }
  return parts.length === 0 ? "" : `?${parts.join("&")}`;
}

/**
 * Request params: the bearer token, and tags. `name` groups every URL of a route under one
 * value, so paging and filters do not explode k6's metric series; `variant` tells the cheap
 * reads from the expensive ones when drilling into one endpoint.
 * @param {string} token @param {string} endpoint @param {string} name @param {string} variant
 * @param {Record<string, string>} [headers]
 * @returns {import("k6/http").Params}
 */
function params(token, endpoint, name, variant, headers) {
  return {
    headers: { Authorization: `Bearer ${token}`, ...headers },
    tags: { endpoint, name, variant },
  };
}

/**
 * @typedef {{ fields: string[], page?: number, limit?: number, status?: string,
 *   updatedAfter?: string, variant: string }} ListQuery
 */

/**
 * GET /v1/properties?fields=...
 * @param {string} token @param {ListQuery} q
 */
export function listProperties(token, q) {
  return listPage(token, "properties", "properties_list", q);
}

/**
 * GET /v1/leads?fields=...&status=...
 * @param {string} token @param {ListQuery} q
 */
export function listLeads(token, q) {
  return listPage(token, "leads", "leads_list", q);
}

/**
 * @param {string} token @param {string} resource @param {string} endpoint @param {ListQuery} q
 * @returns {any}
 */
function listPage(token, resource, endpoint, q) {
  const url =
    `${config.baseUrl}/v1/${resource}` +
    query({
      fields: q.fields.join(","),
      page: q.page,
      limit: q.limit,
      status: q.status,
      updatedAfter: q.updatedAfter,
    });
  const res = withRateLimitRetry(
    () => http.get(url, params(token, endpoint, `GET /v1/${resource}`, q.variant)),
    endpoint,
  );
  const body = jsonBody(res);
  /** @type {import("k6").Checkers<import("k6/http").Response>} */
  const checks = {
    [`${endpoint}: status 200`]: (r) => r.status === 200,
    [`${endpoint}: page of the requested fields`]: () => hasOnlyFields(body, q.fields),
  };
  if (q.status !== undefined && q.fields.includes("status")) {
    checks[`${endpoint}: status filter honoured`] = () => hasOnlyStatus(body, /** @type {string} */ (q.status));
  }
  check(res, checks, { endpoint });
  return body;
}

/**
 * @typedef {{ name: string, email: string, phone: string, message: string,
 *   source?: string, propertyCode?: string }} NewLead
 */

/**
 * POST /v1/leads. An Idempotency-Key is sent as a careful partner would (docs/reference/behaviour.md §9), so a
 * retried 429 can never create the lead twice.
 * @param {string} token @param {NewLead} lead @param {string} idempotencyKey
 * @returns {any}
 */
export function createLead(token, lead, idempotencyKey) {
  const res = withRateLimitRetry(
    () =>
      http.post(
        `${config.baseUrl}/v1/leads`,
        JSON.stringify(lead),
        params(token, "leads_create", "POST /v1/leads", lead.propertyCode ? "linked" : "unlinked", {
          "Content-Type": "application/json",
          "Idempotency-Key": idempotencyKey,
        }),
      ),
    "leads_create",
  );
  const body = jsonBody(res);
  check(
    res,
    {
      "leads_create: status 201": (r) => r.status === 201,
      "leads_create: created lead with id": () => isCreatedLead(body),
    },
    { endpoint: "leads_create" },
  );
  return body;
}

/**
 * GET /v1/changes?entity=...&after=...&limit=...
 * @param {string} token @param {{ entity: string, after: number, limit?: number }} q
 * @returns {any}
 */
export function listChanges(token, q) {
  const url = `${config.baseUrl}/v1/changes` + query({ entity: q.entity, after: q.after, limit: q.limit });
  const res = withRateLimitRetry(
    () => http.get(url, params(token, "changes_list", "GET /v1/changes", q.entity)),
    "changes_list",
  );
  const body = jsonBody(res);
  check(
    res,
    {
      "changes_list: status 200": (r) => r.status === 200,
      "changes_list: change page with cursor": () => isChangePage(body),
    },
    { endpoint: "changes_list" },
  );
  return body;
}
