// Request context: request id, client IP (taken before anything awaits), timing, and the
// one log line per request.
import { Elysia } from "elysia";
import { accessLogger, type Logger } from "../logging.ts";
import type { RequestMetrics } from "../metrics/requests.ts";
import type { Runtime } from "../runtime.ts";
import { canonicalAddress } from "../security/ip.ts";

export interface RequestState {
  requestId: string;
  /** The client's address per docs/reference/behaviour.md §7, or null when the peer is unknown. */
  ip: string | null;
  /** Whether the TCP peer is one of the config's trusted proxies, whose X-Forwarded-* headers are believed. */
  viaTrustedProxy: boolean;
  startedAt: number;
  /** When it arrived, on the runtime's clock (ms since the epoch). */
  arrivedAt: number;
  clientId?: string;
  /**
   * The client whose key (or credentials) a request refused at the door claimed, when that
   * client exists: its figures count the refusal (docs/operators/console.md#what-the-agency-sees).
   */
  claimedClientId?: string;
  /** Body bytes of a portal feed sent, for the figures. */
  feedBytes?: number;
  /** Status and code of an error response, recorded by the error handler. */
  errorStatus?: number;
  errorCode?: string;
  /**
   * Why a portal's lead post was refused when its answer cannot say (the one 401): for the
   * operator's log, never for the caller.
   */
  refusedFor?: "address";
  /**
   * A body streamed after the handler returned (the portal feed): settles, once its last byte
   * is sent, with the status to record (499 when the client hung up). The access line and the
   * metrics wait for it, so they say how the body ended and how long it took.
   */
  streamed?: Promise<number>;
}

/** Where the TCP peer address comes from: the Bun server, or a test's stand-in. */
export type PeerAddress = (
  request: Request,
  server: { requestIP(r: Request): { address: string } | null } | null,
) => string | null;

export const serverPeerAddress: PeerAddress = (request, server) => server?.requestIP(request)?.address ?? null;

const SANE_REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** Per-request state, keyed by the request itself. */
const states = new WeakMap<Request, RequestState>();

/** Requests being answered now (a streamed body no longer counts once its headers are out). */
const inFlight = new Set<RequestState>();
/** Past this age a request no longer counts as in flight (one whose end was somehow never seen). */
const IN_FLIGHT_AT_MOST_MS = 10_000;

/**
 * A request whose answer is itself background work (a portal feed, from its first pass over
 * the listings to its last byte): it takes turns with the others and must not wait for itself.
 */
export function answerInBackground(state: RequestState): void {
  inFlight.delete(state);
}

/**
 * Whether some request is being answered. Background work on the event loop (a portal feed's
 * slices) gives way while one is: a request's turns then follow each other without waiting.
 */
export function answeringRequests(): boolean {
  if (inFlight.size === 0) return false;
  const now = performance.now();
  for (const state of inFlight) {
    if (now - state.startedAt <= IN_FLIGHT_AT_MOST_MS) return true;
    inFlight.delete(state);
  }
  return false;
}

/**
 * The state of a request. Hooks and handlers reach it through `request` rather than by passing
 * Elysia's whole context around: Elysia reads which context keys a function destructures to
 * decide what to parse, and a function handed the whole context makes every route parse its
 * cookies and query string for nothing.
 */
export function stateOf(request: Request): RequestState {
  return states.get(request)!;
}

/**
 * The address to attribute the request to: the peer, or, when the peer is a trusted proxy,
 * the right-most X-Forwarded-For entry that is not itself a trusted proxy.
 */
/** Canonical forms of recently seen peers: parsing an address is a measurable share of a request. */
const canonicalPeers = new Map<string, string | null>();

function canonicalPeer(peer: string): string | null {
  let canonical = canonicalPeers.get(peer);
  if (canonical === undefined) {
    if (canonicalPeers.size >= 10_000) canonicalPeers.clear();
    canonical = canonicalAddress(peer);
    canonicalPeers.set(peer, canonical);
  }
  return canonical;
}

/** Whether `peer` is a trusted proxy of the config in force. */
export function isTrustedProxy(peer: string | null, runtime: Runtime): boolean {
  const proxies = runtime.config.trustedProxies;
  if (peer === null || proxies.isEmpty) return false;
  const address = canonicalPeer(peer);
  return address !== null && proxies.matches(address);
}

export function clientAddress(peer: string | null, forwardedFor: string | null, runtime: Runtime): string | null {
  const address = peer === null ? null : canonicalPeer(peer);
  if (address === null) return null;
  const proxies = runtime.config.trustedProxies;
  if (forwardedFor === null || proxies.isEmpty || !proxies.matches(address)) return address;
  const hops = forwardedFor.split(",");
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = canonicalAddress(hops[i]!);
    if (hop === null) return address; // a garbled chain: trust only what we saw ourselves
    if (!proxies.matches(hop)) return hop;
  }
  return address;
}

export function requestContext(deps: {
  runtime: Runtime;
  logger: Logger;
  peerAddress: PeerAddress;
  /** Null: request metrics off. */
  requests: RequestMetrics | null;
}) {
  const logAccess = accessLogger(deps.logger);
  /** The access line and the request metrics of a finished request. */
  const record = (
    state: RequestState,
    method: string,
    template: string | null,
    status: number,
    replayed: boolean,
  ): void => {
    const elapsed = performance.now() - state.startedAt;
    logAccess({
      reqId: state.requestId,
      clientId: state.clientId,
      method,
      route: template,
      status,
      ms: Math.round(elapsed * 100) / 100,
    });
    deps.requests?.observe(template, method, status, elapsed, state.clientId, state.errorCode, replayed);
    const usage = deps.runtime.usage;
    if (usage?.recordsRequests)
      usage.observe({
        at: state.arrivedAt,
        clientId: state.clientId ?? state.claimedClientId ?? null,
        method,
        route: template,
        status,
        // A path no route matches is answered before any hook could name its code.
        code: state.errorCode ?? (template === null && status === 404 ? "NOT_FOUND" : null),
        ms: elapsed,
        ip: state.ip,
        requestId: state.requestId,
        replayed,
        feedBytes: state.feedBytes,
      });
  };
  return new Elysia({ name: "request-context" })
    .onRequest(({ request, set, server }) => {
      // requestIP must be read before the first await: Bun can lose it afterwards.
      const peer = deps.peerAddress(request, server as Parameters<PeerAddress>[1]);
      const incoming = request.headers.get("x-request-id");
      const requestId = incoming !== null && SANE_REQUEST_ID.test(incoming) ? incoming : crypto.randomUUID();
      const state: RequestState = {
        requestId,
        // X-Forwarded-For is read only when some proxy is trusted to set it.
        ip: clientAddress(
          peer,
          deps.runtime.config.trustedProxies.isEmpty ? null : request.headers.get("x-forwarded-for"),
          deps.runtime,
        ),
        viaTrustedProxy: isTrustedProxy(peer, deps.runtime),
        startedAt: performance.now(),
        arrivedAt: deps.runtime.clock.now(),
      };
      states.set(request, state);
      inFlight.add(state);
      set.headers["x-request-id"] = requestId;
      set.headers["x-content-type-options"] = "nosniff";
    })
    .onAfterResponse({ as: "global" }, ({ request, set, route, responseValue }) => {
      const state = states.get(request);
      if (!state) return;
      inFlight.delete(state);
      const status =
        state.errorStatus ?? (responseValue instanceof Response ? responseValue.status : Number(set.status) || 200);
      const template = (route as string | undefined) ?? null;
      const replayed = status === 201 && set.headers["idempotent-replayed"] !== undefined;
      if (state.errorStatus === undefined && state.streamed !== undefined) {
        void state.streamed.then((ended) => record(state, request.method, template, ended, false));
      } else {
        record(state, request.method, template, status, replayed);
      }
    });
}
