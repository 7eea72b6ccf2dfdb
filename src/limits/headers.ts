// Writes the rate-limit response headers of docs/reference/behaviour.md §6 (X-RateLimit-* and the IETF fields of
// draft-ietf-httpapi-ratelimit-headers-11) from a limiter's decision.

import type { LimitDecision } from "./decision.ts";

/** Anything keyed by header name: Elysia's `set.headers`, or a plain record. */
export type HeaderRecord = Record<string, string | number>;

export type RateLimitHeaderWriter = (headers: HeaderRecord, decision: LimitDecision) => void;

// Limits are few (one per client configuration); the cap only guards against a runaway caller.
const MAX_CACHED_LIMITS = 256;

// A policy name goes out as a Structured Field string: printable ASCII, no quote or backslash.
const SF_STRING_SAFE = /^[\x20\x21\x23-\x5b\x5d-\x7e]+$/;

/**
 * A writer for one quota policy, e.g. `rateLimitHeaderWriter("minute", 60)`. It runs on every
 * request, so it writes into the caller's record instead of building one, and keeps the
 * constant strings per limit. Names are lower-case, as Fetch `Headers` would make them.
 * `Retry-After` is written only on a refusal; the old RateLimit-Limit/-Remaining/-Reset trio
 * of earlier drafts never is.
 */
export function rateLimitHeaderWriter(policyName: string, windowSeconds: number): RateLimitHeaderWriter {
  if (!SF_STRING_SAFE.test(policyName))
    throw new RangeError(`policy name not a structured-field string: ${policyName}`);
  if (!Number.isInteger(windowSeconds) || windowSeconds < 1)
    throw new RangeError("windowSeconds must be a positive integer");
  const quoted = `"${policyName}"`;
  const byLimit = new Map<number, { limit: string; policy: string }>();

  return (headers, d) => {
    let fixed = byLimit.get(d.limit);
    if (fixed === undefined) {
      if (byLimit.size >= MAX_CACHED_LIMITS) byLimit.clear();
      fixed = { limit: String(d.limit), policy: `${quoted};q=${d.limit};w=${windowSeconds}` };
      byLimit.set(d.limit, fixed);
    }
    const remaining = String(d.remaining);
    headers["x-ratelimit-limit"] = fixed.limit;
    headers["x-ratelimit-remaining"] = remaining;
    headers["ratelimit-policy"] = fixed.policy;
    // `r` is the very string of X-RateLimit-Remaining, so the two can never disagree.
    headers.ratelimit = `${quoted};r=${remaining};t=${d.resetSeconds}`;
    if (!d.allowed) headers["retry-after"] = String(d.retryAfterSeconds);
  };
}

/** The per-client sliding window of 60 s. */
export const writeClientRateLimitHeaders = rateLimitHeaderWriter("minute", 60);

/** The per-IP failed-authentication bucket (20, refilled 20 a minute). */
export const writeAuthRateLimitHeaders = rateLimitHeaderWriter("auth", 60);
