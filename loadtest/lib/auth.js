// Bearer tokens: one obtained in setup(), then each VU keeps its own and renews it before expiry,
// as a real partner integration must (SPEC: no renewal endpoint, ask again before the hour ends).

import { check, fail } from "k6";
import http from "k6/http";
import { config } from "./config.js";
import { withRateLimitRetry } from "./retry.js";

// Renew with a minute to spare, so a token never expires between the check and the request.
const RENEW_MARGIN_MS = 60 * 1000;

/** @typedef {{ token: string, expiresAt: number }} Session */

/**
 * POST /v1/auth/token with the client credentials.
 * Fails the iteration (or, in setup, the whole run) when no token comes back: every later
 * request would be a 401 and measure nothing.
 * @returns {Session}
 */
export function obtainToken() {
  const res = withRateLimitRetry(
    () =>
      http.post(`${config.baseUrl}/v1/auth/token`, null, {
        headers: { "X-API-Key": config.apiKey, "X-API-Secret": config.apiSecret },
        tags: { endpoint: "auth_token", name: "POST /v1/auth/token" },
      }),
    "auth_token",
  );
  const body = parseToken(res);
  const ok = check(res, {
    "auth_token: status 200": (r) => r.status === 200,
    "auth_token: Bearer token with expiresIn": () => body !== null,
  });
  if (!ok || body === null)
    fail(`could not obtain a token from ${config.baseUrl}: HTTP ${res.status} ${res.error || res.body}`);
  return { token: body.token, expiresAt: Date.now() + body.expiresIn * 1000 };
}

/** @param {import("k6/http").Response} res @returns {{ token: string, expiresIn: number } | null} */
function parseToken(res) {
  try {
    const json = /** @type {any} */ (res.json());
    const data = json && json.data;
    if (data && typeof data.token === "string" && Number.isInteger(data.expiresIn) && data.tokenType === "Bearer") {
      return { token: data.token, expiresIn: data.expiresIn };
    }
  } catch (_) {
    // Not JSON: reported by the check below.
  }
  return null;
}

// Module state is per VU in k6: each VU holds and renews its own token.
/** @type {Session | null} */
let session = null;

/**
 * The token this VU should send now: the one from setup() at first, a fresh one when less
 * than RENEW_MARGIN_MS is left (long soak runs outlive the one-hour token).
 * @param {Session} fromSetup
 * @returns {string}
 */
export function currentToken(fromSetup) {
  if (session === null) session = fromSetup;
  if (session.expiresAt - Date.now() < RENEW_MARGIN_MS) session = obtainToken();
  return session.token;
}
