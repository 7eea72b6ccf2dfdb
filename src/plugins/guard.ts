// The guard every protected route passes, in CONTRACT §4's order: token → client exists →
// enabled → IP on whitelist → database → rate limit. Written once; routes opt in with
// `{ protected: true }`.
import { Elysia } from "elysia";
import type { Client } from "../config/model.ts";
import type { Tenant } from "../db/tenants.ts";
import { ApiError, type ErrorCode } from "../errors.ts";
import { writeAuthRateLimitHeaders, writeClientRateLimitHeaders, type HeaderRecord } from "../limits/headers.ts";
import type { Runtime } from "../runtime.ts";
import { stateOf, type RequestState } from "./context.ts";

type Headers = HeaderRecord;

/**
 * Failed authentication drains the source IP's bucket. Throws the failure, or a 429 when the
 * bucket was already empty. A request with no known address is throttled as one "unknown" peer.
 */
export function failAuthentication(runtime: Runtime, ip: string | null, headers: Headers, code: ErrorCode): never {
  const decision = runtime.authFailures.take(ip ?? "unknown");
  writeAuthRateLimitHeaders(headers, decision);
  if (!decision.allowed) throw new ApiError("RATE_LIMIT_EXCEEDED");
  throw new ApiError(code);
}

/** When the IP has no failed attempts left, its unauthenticated requests get 429 outright. */
export function refuseThrottledAddress(runtime: Runtime, ip: string | null, headers: Headers): void {
  const key = ip ?? "unknown";
  if (!runtime.authFailures.isEmpty(key)) return;
  writeAuthRateLimitHeaders(headers, { ...runtime.authFailures.peek(key), allowed: false });
  throw new ApiError("RATE_LIMIT_EXCEEDED");
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
 * Runs the pipeline for one request; throws an ApiError at the first failed step. The client
 * is recorded in the request state as soon as it is known, so logs and metrics name it on
 * its 403s and 429s too.
 */
export function authorize(runtime: Runtime, request: Request, state: RequestState, headers: Headers): Authorized {
  const { ip } = state;
  headers["cache-control"] = "no-store";
  const token = bearerToken(request.headers.get("authorization"));
  const claims = token === null ? null : runtime.tokens.verify(token);
  const client = claims === null ? undefined : runtime.config.clients.get(claims.sub);
  // A token issued under a key or secret the client no longer has is no token (CONTRACT §5).
  if (client === undefined || !runtime.tokens.isBoundTo(claims!, client)) {
    refuseThrottledAddress(runtime, ip, headers);
    failAuthentication(runtime, ip, headers, "INVALID_TOKEN");
  }
  state.clientId = client.id;
  if (!client.enabled) {
    writeClientRateLimitHeaders(headers, runtime.windows.peek(client.id, client.rateLimitPerMinute));
    throw new ApiError("API_DISABLED");
  }
  if (ip === null || (client.ipWhitelist !== null && !client.ipWhitelist.matches(ip))) {
    refuseThrottledAddress(runtime, ip, headers);
    failAuthentication(runtime, ip, headers, "IP_BLOCKED");
  }
  const tenant = client.databasePath === null ? null : runtime.tenants.get(client.databasePath);
  if (tenant === null) {
    writeClientRateLimitHeaders(headers, runtime.windows.peek(client.id, client.rateLimitPerMinute));
    throw new ApiError("NO_DATABASE");
  }
  runtime.admit(client, headers);
  return { client, tenant };
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
