// POST /v1/auth/token: API key and secret in, a one-hour bearer token out. Two ways in: the
// X-API-Key/X-API-Secret headers (answered `{ data: { token, expiresIn, tokenType } }`), and
// OAuth 2.0 client credentials (RFC 6749 §4.4, answered in the RFC's own shape). Both run the
// same check of the key and secret and drain the same per-IP bucket when it fails.
import { Elysia } from "elysia";
import { ApiError, type ErrorCode } from "../../errors.ts";
import { settle } from "../../lib/now-or-later.ts";
import { type HeaderRecord, writeAuthRateLimitHeaders } from "../../limits/headers.ts";
import { MAX_BODY_BYTES, readLimited } from "../../plugins/body.ts";
import { type RequestState, stateOf } from "../../plugins/context.ts";
import { failAuthentication, refuseThrottledAddress } from "../../plugins/guard.ts";
import { sendJson } from "../../plugins/respond.ts";
import type { Runtime } from "../../runtime.ts";
import { BASIC_CHALLENGE } from "../../security/basic-auth.ts";
import {
  isOAuthTokenRequest,
  type OAuthFailure,
  oauthFailureBody,
  oauthFailureOf,
  oauthFailureStatus,
  readClientCredentialsGrant,
} from "./client-credentials.ts";
import { AUTH_ROUTES } from "./openapi.ts";
import { issueToken, type TokenResult } from "./service.ts";

type Set = { headers: Record<string, unknown>; status?: unknown };

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** The header exchange of the specification, unchanged. */
function headerExchange(runtime: Runtime, request: Request, state: RequestState, set: Set) {
  const headers = set.headers as HeaderRecord;
  const ip = state.ip ?? "unknown";
  return settle(refuseThrottledAddress(runtime, state.ip, headers), () => {
    const result = issueToken(runtime, request.headers.get("x-api-key"), request.headers.get("x-api-secret"), state.ip);
    if (!result.ok) {
      state.claimedClientId = result.claimedClientId;
      return failAuthentication(runtime, state.ip, headers, result.code);
    }
    state.clientId = result.clientId;
    return settle(runtime.authStanding(ip), (standing) => {
      writeAuthRateLimitHeaders(headers, standing);
      return sendJson(
        set,
        `{"data":{"token":${JSON.stringify(result.token)},"expiresIn":${result.expiresIn},"tokenType":"Bearer"}}`,
      );
    });
  });
}

/** The client-credentials grant: every failure, thrown or found, answered as RFC 6749 §5.2 says. */
async function clientCredentials(runtime: Runtime, request: Request, state: RequestState, set: Set): Promise<string> {
  const headers = set.headers as HeaderRecord;
  headers.pragma = "no-cache";
  const refuse = async (failure: OAuthFailure) => {
    state.errorStatus = oauthFailureStatus(failure);
    state.errorCode = failure.code;
    if (failure.error === "invalid_client") headers["www-authenticate"] = BASIC_CHALLENGE;
    // Every answer reports the address's failed-attempt allowance, as the document says: a malformed
    // grant, a body too large or not the form take nothing from it, but say where it stands.
    if (headers.ratelimit === undefined)
      writeAuthRateLimitHeaders(headers, await runtime.authStanding(state.ip ?? "unknown"));
    return sendJson(set, oauthFailureBody(failure), state.errorStatus);
  };
  try {
    await refuseThrottledAddress(runtime, state.ip, headers);
    let body: string;
    try {
      body = utf8.decode(await readLimited(request, MAX_BODY_BYTES));
    } catch (error) {
      if (error instanceof ApiError) throw error;
      if (error instanceof TypeError)
        return refuse({ error: "invalid_request", description: "The form must be UTF-8", code: "VALIDATION_ERROR" });
      throw error;
    }
    const grant = readClientCredentialsGrant(request.headers, body);
    if (!grant.ok) {
      // A request without usable client authentication is a failed authentication, as in the header exchange.
      if (grant.failure.error === "invalid_client") await drainBucket(runtime, state.ip, headers, grant.failure.code);
      return refuse(grant.failure);
    }
    let result: TokenResult = { ok: false, code: "MISSING_CREDENTIALS" };
    for (const candidate of grant.candidates) {
      result = issueToken(runtime, candidate.apiKey, candidate.apiSecret, state.ip);
      if (result.ok || (result.code !== "INVALID_API_KEY" && result.code !== "INVALID_API_SECRET")) break;
    }
    if (!result.ok) {
      state.claimedClientId = result.claimedClientId;
      await failAuthentication(runtime, state.ip, headers, result.code);
    }
    const issued = result as Extract<TokenResult, { ok: true }>;
    state.clientId = issued.clientId;
    writeAuthRateLimitHeaders(headers, await runtime.authStanding(state.ip ?? "unknown"));
    return sendJson(
      set,
      `{"access_token":${JSON.stringify(issued.token)},"token_type":"Bearer","expires_in":${issued.expiresIn}}`,
    );
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    if (error.headers) Object.assign(headers, error.headers);
    return refuse(oauthFailureOf(error.code, error.message));
  }
}

/** A failed authentication counted in the IP's bucket; only a 429 (the bucket already empty) is thrown on. */
async function drainBucket(runtime: Runtime, ip: string | null, headers: HeaderRecord, code: ErrorCode): Promise<void> {
  try {
    await failAuthentication(runtime, ip, headers, code);
  } catch (error) {
    if (!(error instanceof ApiError) || error.code !== code) throw error;
  }
}

export function authModule(runtime: Runtime) {
  return new Elysia({ name: "auth" }).post(
    AUTH_ROUTES.token.path,
    ({ request, set }) => {
      const state = stateOf(request);
      (set.headers as HeaderRecord)["cache-control"] = "no-store";
      if (isOAuthTokenRequest(request.headers)) return clientCredentials(runtime, request, state, set);
      return headerExchange(runtime, request, state, set);
    },
    { parse: "none", detail: AUTH_ROUTES.token },
  );
}
