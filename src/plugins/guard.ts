// The guard every protected route passes, in CONTRACT §4's order: token → client exists →
// enabled → IP on whitelist → database → rate limit. Written once; routes opt in with
// `{ protected: true }`.
import { Elysia } from "elysia";
import type { Client } from "../config/model.ts";
import type { Tenant } from "../db/tenants.ts";
import { ApiError, type ErrorCode } from "../errors.ts";
import { writeAuthRateLimitHeaders, writeClientRateLimitHeaders, type HeaderRecord } from "../limits/headers.ts";
import { settle, type Maybe } from "../maybe.ts";
import type { Runtime } from "../runtime.ts";
import { stateOf, type RequestState } from "./context.ts";

type Headers = HeaderRecord;

/**
 * Failed authentication drains the source IP's bucket. Throws the failure, or a 429 when the
 * bucket was already empty (a refusal takes nothing). A request with no known address is
 * throttled as one "unknown" peer. With Redis the bucket is asked there, so the throw may come
 * as a rejected promise.
 */
export function failAuthentication(runtime: Runtime, ip: string | null, headers: Headers, code: ErrorCode): Maybe<never> {
  return settle(runtime.authFailure(ip ?? "unknown"), (decision) => {
    writeAuthRateLimitHeaders(headers, decision);
    throw new ApiError(decision.allowed ? code : "RATE_LIMIT_EXCEEDED");
  });
}

/** When the IP has no failed attempts left, its unauthenticated requests get 429 outright. */
export function refuseThrottledAddress(runtime: Runtime, ip: string | null, headers: Headers): Maybe<void> {
  return settle(runtime.authStanding(ip ?? "unknown"), (standing) => {
    if (standing.allowed) return;
    writeAuthRateLimitHeaders(headers, standing);
    throw new ApiError("RATE_LIMIT_EXCEEDED");
  });
}

/** A refusal of a known client before its limit step: its window's figures, nothing counted. */
function refuseClient(runtime: Runtime, client: Client, headers: Headers, code: ErrorCode): Maybe<never> {
  return settle(runtime.clientWindow(client), (window) => {
    writeClientRateLimitHeaders(headers, window);
    throw new ApiError(code);
  });
}

function bearerToken(authorization: string | null): string | null {
  if (authorization === null || authorization.length < 8) return null;
  if (authorization.slice(0, 7).toLowerCase() !== "bearer ") return null;
  const token = authorization.slice(7).trim();
  return token === "" ? null : token;
}

// A type alias, not an interface: Elysia's resolve wants a Record-compatible object.
export type Authorized = {
  client: Client;
  tenant: Tenant;
};

/**
 * Runs the pipeline for one request; throws an ApiError at the first failed step (or, when a
 * limit had to be asked of Redis, returns a promise that settles the same way). The client is
 * recorded in the request state as soon as it is known, so logs and metrics name it on its
 * 403s and 429s too.
 */
export function authorize(runtime: Runtime, request: Request, state: RequestState, headers: Headers): Maybe<Authorized> {
  const { ip } = state;
  headers["cache-control"] = "no-store";
  const token = bearerToken(request.headers.get("authorization"));
  const claims = token === null ? null : runtime.tokens.verify(token);
  const client = claims === null ? undefined : runtime.config.clients.get(claims.sub);
  // A token issued under a key or secret the client no longer has is no token (CONTRACT §5).
  // An address with no attempts left gets its 429 from the same step: a refusal takes nothing.
  if (client === undefined || !runtime.tokens.isBoundTo(claims!, client)) return failAuthentication(runtime, ip, headers, "INVALID_TOKEN");
  state.clientId = client.id;
  if (!client.enabled) return refuseClient(runtime, client, headers, "API_DISABLED");
  if (ip === null || (client.ipWhitelist !== null && !client.ipWhitelist.matches(ip))) {
    return failAuthentication(runtime, ip, headers, "IP_BLOCKED");
  }
  const tenant = client.databasePath === null ? null : runtime.tenants.get(client.databasePath);
  if (tenant === null) return refuseClient(runtime, client, headers, "NO_DATABASE");
  return settle(runtime.admit(client, headers), () => ({ client, tenant }));
}

export function guard(runtime: Runtime) {
  return new Elysia({ name: "guard" }).macro({
    protected: {
      resolve({ request, set }) {
        return authorize(runtime, request, stateOf(request), set.headers as Headers);
      },
    },
  });
}
