// The guard every protected route passes, in the order of docs/reference/behaviour.md §4:
// token → client exists → enabled → IP on whitelist → database → rate limit. Written once;
// routes opt in with `{ protected: true }`, or `{ protected: "<scope>" }` when the route needs
// a scope (then the scope is checked after the whole guard). The portal feed
// (docs/reference/behaviour-extensions.md §17) also takes HTTP Basic auth with the API key and
// secret (`{ bearerOrBasic: true }`): the token endpoint's check of those, then the same limit
// step. A portal's lead posts (docs/operators/portal-leads.md) take only the Basic
// auth of the client's `inbound` config (`{ inbound: true }`): the same steps after it.
import { Elysia } from "elysia";
import type { Client } from "../config/model.ts";
import type { Tenant } from "../db/tenants.ts";
import { ApiError, ERRORS, type ErrorCode } from "../errors.ts";
import { type NowOrLater, settle } from "../lib/now-or-later.ts";
import { type HeaderRecord, writeAuthRateLimitHeaders, writeClientRateLimitHeaders } from "../limits/headers.ts";
import type { Runtime } from "../runtime.ts";
import { BASIC_CHALLENGE, basicCredentials, isBasicAuthorization } from "../security/basic-auth.ts";
import { checkCredentials } from "../security/credentials.ts";
import { inboundCredentialsMatch } from "../security/inbound-auth.ts";
import { requireScope, type Scope } from "../security/scopes.ts";
import { type RequestState, stateOf } from "./context.ts";

type Headers = HeaderRecord;

/** How a 401 tells the client which credentials the route takes (RFC 9110 §11.6.1), and in what words. */
export interface Challenge {
  /** The WWW-Authenticate value of the route's 401s. */
  header: string;
  message?: string;
}

/**
 * Failed authentication drains the source IP's bucket. Throws the failure, or a 429 when the
 * bucket was already empty (a refusal takes nothing). A request with no known address is
 * throttled as one "unknown" peer. With Redis the bucket is asked there, so the throw may come
 * as a rejected promise.
 */
export function failAuthentication(
  runtime: Runtime,
  ip: string | null,
  headers: Headers,
  code: ErrorCode,
  challenge?: Challenge,
): NowOrLater<never> {
  return settle(runtime.authFailure(ip ?? "unknown"), (decision) => {
    writeAuthRateLimitHeaders(headers, decision);
    if (!decision.allowed) throw new ApiError("RATE_LIMIT_EXCEEDED");
    if (challenge !== undefined && ERRORS[code].status === 401) {
      headers["www-authenticate"] = challenge.header;
      throw new ApiError(code, challenge.message);
    }
    throw new ApiError(code);
  });
}

/** When the IP has no failed attempts left, its unauthenticated requests get 429 outright. */
export function refuseThrottledAddress(runtime: Runtime, ip: string | null, headers: Headers): NowOrLater<void> {
  return settle(runtime.authStanding(ip ?? "unknown"), (standing) => {
    if (standing.allowed) return;
    writeAuthRateLimitHeaders(headers, standing);
    throw new ApiError("RATE_LIMIT_EXCEEDED");
  });
}

/** A refusal of a known client before its limit step: its window's figures, nothing counted. */
function refuseClient(runtime: Runtime, client: Client, headers: Headers, code: ErrorCode): NowOrLater<never> {
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

/** RFC 6750 §3's challenge: no error code when the request carried no token, `invalid_token` for a bad one. */
const BEARER_CHALLENGE = 'Bearer realm="partner-api"';
const INVALID_TOKEN_CHALLENGE = `${BEARER_CHALLENGE}, error="invalid_token"`;

/**
 * The 401 of a bearer route: WWW-Authenticate says it takes a bearer token (RFC 6750 §3), and
 * the message tells a missing token from a bad one; the code stays INVALID_TOKEN for both
 * (docs/reference/behaviour.md §4). On a route that also takes Basic auth (the portal feed) the
 * Basic challenge comes first: a portal's fetcher then knows what to send.
 */
function bearerChallenge(tokenSent: boolean, basic: boolean): Challenge {
  const bearer = tokenSent ? INVALID_TOKEN_CHALLENGE : BEARER_CHALLENGE;
  if (basic) {
    return {
      header: `${BASIC_CHALLENGE}, ${bearer}`,
      message: tokenSent
        ? undefined
        : "Missing credentials: send Authorization: Bearer <token>, or HTTP Basic auth with your API key and secret",
    };
  }
  return {
    header: bearer,
    message: tokenSent
      ? undefined
      : "Missing bearer token: send Authorization: Bearer <token from POST /v1/auth/token>",
  };
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
export function authorize(
  runtime: Runtime,
  request: Request,
  state: RequestState,
  headers: Headers,
  options: { basic?: boolean } = {},
): NowOrLater<Authorized> {
  const { ip } = state;
  headers["cache-control"] = "no-store";
  const authorization = request.headers.get("authorization");
  if (options.basic === true && isBasicAuthorization(authorization))
    return authorizeBasic(runtime, authorization, state, headers);
  const token = bearerToken(authorization);
  const challenge = bearerChallenge(token !== null, options.basic === true);
  // A token seen for the first time is verified asynchronously (security/tokens.ts); a known one
  // at once. A promise that settles to a promise settles to its value: the cast says so.
  return settle(token === null ? null : runtime.tokens.verify(token), (claims) => {
    const client = claims === null ? undefined : runtime.config.clients.get(claims.sub);
    // A token issued under a key or secret the client no longer has is no token (docs/reference/behaviour.md §5).
    // An address with no attempts left gets its 429 from the same step: a refusal takes nothing.
    if (client === undefined || !runtime.tokens.isBoundTo(claims!, client)) {
      if (client !== undefined) state.claimedClientId = client.id;
      return failAuthentication(runtime, ip, headers, "INVALID_TOKEN", challenge);
    }
    state.clientId = client.id;
    if (!client.enabled) return refuseClient(runtime, client, headers, "API_DISABLED");
    if (ip === null || (client.ipWhitelist !== null && !client.ipWhitelist.matches(ip))) {
      return failAuthentication(runtime, ip, headers, "IP_BLOCKED");
    }
    const tenant = client.databasePath === null ? null : runtime.tenants.get(client.databasePath);
    if (tenant === null) return refuseClient(runtime, client, headers, "NO_DATABASE");
    return settle(runtime.admit(client, headers), () => ({ client, tenant }));
  }) as NowOrLater<Authorized>;
}

/**
 * Basic auth: the token endpoint's checks of the key and secret (an address with no failed
 * attempts left is refused before any, as there), then the limit step of every route. A
 * refusal of a client whose secret was right (disabled, no database) is not a failed
 * authentication: it carries the client's window, as on the bearer path.
 */
function authorizeBasic(
  runtime: Runtime,
  authorization: string,
  state: RequestState,
  headers: Headers,
): NowOrLater<Authorized> {
  const { ip } = state;
  // A promise that settles to a promise settles to its value: the cast only says so to the compiler.
  return settle(refuseThrottledAddress(runtime, ip, headers), () => {
    const credentials = basicCredentials(authorization);
    if (credentials === "malformed") {
      return failAuthentication(runtime, ip, headers, "MISSING_CREDENTIALS", {
        header: BASIC_CHALLENGE,
        message: "Authorization: Basic must carry the base64 of <API key>:<API secret> in UTF-8",
      });
    }
    const checked = checkCredentials(
      runtime.config,
      credentials.apiKey,
      credentials.apiSecret,
      ip,
      (path) => runtime.tenants.get(path),
      runtime.clock.now(),
    );
    if (!checked.ok) {
      if (checked.claimed !== null) state.claimedClientId = checked.claimed.id;
      if (checked.client === null)
        return failAuthentication(runtime, ip, headers, checked.code, { header: BASIC_CHALLENGE });
      state.clientId = checked.client.id;
      return refuseClient(runtime, checked.client, headers, checked.code);
    }
    const { client, database: tenant } = checked;
    state.clientId = client.id;
    return settle(runtime.admit(client, headers), () => ({ client, tenant }));
  }) as NowOrLater<Authorized>;
}

/** The one 401 of POST /v1/inbound/{clientId}, whatever was wrong: nothing tells which ids exist. */
export const INBOUND_CHALLENGE: Challenge = {
  header: BASIC_CHALLENGE,
  message: "Send HTTP Basic auth with the user and password registered for this URL in the portal",
};

/**
 * A portal's lead post: its Basic auth against the `inbound` config of the client the path
 * names. An unknown id, a client without `inbound`, wrong or missing credentials, and an address
 * off the client's list all answer the same 401 and drain the address's failed-auth bucket: a
 * 403 IP_BLOCKED after a right password would confirm a stolen one from anywhere, and one before
 * it would tell which ids exist. Then the rest of the guard: disabled, database, rate limit.
 */
function authorizeInbound(
  runtime: Runtime,
  request: Request,
  clientId: string,
  state: RequestState,
  headers: Headers,
): NowOrLater<Authorized> {
  const { ip } = state;
  headers["cache-control"] = "no-store";
  return settle(refuseThrottledAddress(runtime, ip, headers), () => {
    const client = runtime.config.clients.get(clientId);
    const inbound = client?.inbound ?? null;
    if (
      !inboundCredentialsMatch(inbound, request.headers.get("authorization"), runtime.clock.now()) ||
      client === undefined
    ) {
      if (inbound !== null && client !== undefined) state.claimedClientId = client.id;
      return failAuthentication(runtime, ip, headers, "INVALID_API_SECRET", INBOUND_CHALLENGE);
    }
    if (ip === null || (client.ipWhitelist !== null && !client.ipWhitelist.matches(ip))) {
      state.claimedClientId = client.id;
      state.refusedFor = "address";
      return failAuthentication(runtime, ip, headers, "INVALID_API_SECRET", INBOUND_CHALLENGE);
    }
    state.clientId = client.id;
    if (!client.enabled) return refuseClient(runtime, client, headers, "API_DISABLED");
    const tenant = client.databasePath === null ? null : runtime.tenants.get(client.databasePath);
    if (tenant === null) return refuseClient(runtime, client, headers, "NO_DATABASE");
    return settle(runtime.admit(client, headers), () => {
      requireScope(client, "leads:create");
      return { client, tenant };
    });
  }) as NowOrLater<Authorized>;
}

/** What a route asks of the guard: `true` for any client that passes it, or the scope it needs. */
export type Need = true | Scope;

function withScope(need: Need, authorized: NowOrLater<Authorized>): NowOrLater<Authorized> {
  if (need === true) return authorized;
  return settle(authorized, (found) => {
    requireScope(found.client, need);
    return found;
  });
}

const UUID = /^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$/;

/**
 * Record ids are UUIDs, stored in lower case; UUIDs are case-insensitive on input (RFC 9562 §4),
 * so an `:id` in any case names the same record, and the answer shows the stored form. Done
 * here, on the way every route with an id passes, so no route can forget it.
 */
function canonicalId(params: Record<string, string | undefined> | undefined): void {
  // A route without path parameters has none at all.
  const id = params?.id;
  if (typeof id === "string" && UUID.test(id)) params!.id = id.toLowerCase();
}

export function guard(runtime: Runtime) {
  return new Elysia({ name: "guard" }).macro({
    protected: (need: Need) => ({
      resolve({ request, set, params }) {
        canonicalId(params as Record<string, string | undefined> | undefined);
        return withScope(need, authorize(runtime, request, stateOf(request), set.headers as Headers));
      },
    }),
    /** A protected route that also takes HTTP Basic auth (user = API key, password = API secret). */
    bearerOrBasic: (need: Need) => ({
      resolve({ request, set, params }) {
        canonicalId(params as Record<string, string | undefined> | undefined);
        return withScope(need, authorize(runtime, request, stateOf(request), set.headers as Headers, { basic: true }));
      },
    }),
    /** A portal's lead post: the Basic auth of the `inbound` config of the client `:clientId` names. */
    inbound: (_on: true) => ({
      resolve({ request, set, params }) {
        const clientId = (params as Record<string, string | undefined>).clientId ?? "";
        return authorizeInbound(runtime, request, clientId, stateOf(request), set.headers as Headers);
      },
    }),
  });
}
