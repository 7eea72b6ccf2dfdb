// The invariants every response must keep, whatever was asked (docs/reference/behaviour.md §4, §10): no 5xx, errors
// in the `{ error, code }` shape with the status of their code, security headers, no internals.
// Returns violations rather than asserting, so the binary fuzz script can use it outside bun:test.
import { ERRORS, type ErrorCode } from "../../src/errors.ts";

export interface Observed {
  method: string;
  status: number;
  headers: Headers;
  body: string;
}

/**
 * Text that means internals escaped: stack frames, source paths, SQLite codes and messages,
 * JavaScript error class names, framework names. A pattern that also matches the request is
 * skipped, because error messages may quote the caller's own input back.
 */
const LEAKS: [string, RegExp][] = [
  ["stack frame", /\n\s+at |\bat (?:async )?\S+ \(/],
  ["source location", /\.(?:ts|js|mjs):\d+/],
  ["file path", /\/(?:work|tmp|home|root|src|node_modules|proc)\//],
  ["SQLite internals", /SQLITE_[A-Z]|no such (?:table|column)|syntax error near|constraint failed|database is locked/i],
  ["JS error class", /\b(?:TypeError|RangeError|ReferenceError|SyntaxError|URIError|EvalError)\b/],
  ["framework", /\b(?:Elysia|elysia|TypeBox|sinclair)\b/],
  ["undefined value", /\bundefined\b|\bNaN\b|\[object Object\]/],
];

const ERROR_KEYS = new Set(["error", "code", "details"]);

/** Statuses this API may answer; anything else (a 5xx above all) is a violation. */
const KNOWN_STATUSES = new Set([200, 201, 400, 401, 403, 404, 405, 413, 415, 422, 429]);

export interface CheckOptions {
  /** Everything the caller sent (URL, decoded too, headers, body): quoted input is not a leak. */
  echo: string;
  /** 503 SERVICE_UNAVAILABLE is allowed (fault runs only). */
  allow503?: boolean;
  /** The request reached a protected route's guard: it must carry Cache-Control: no-store. */
  protectedRoute?: boolean;
}

export function violations(observed: Observed, options: CheckOptions): string[] {
  const found: string[] = [];
  const { status, headers, body, method } = observed;
  const allowed = KNOWN_STATUSES.has(status) || (options.allow503 === true && status === 503);
  if (!allowed) found.push(`status ${status} is not one this API answers`);
  if (headers.get("x-content-type-options") !== "nosniff") found.push("no X-Content-Type-Options: nosniff");
  if (!headers.get("x-request-id")) found.push("no X-Request-Id");
  if (headers.has("x-powered-by")) found.push(`banner X-Powered-By: ${headers.get("x-powered-by")}`);
  const server = headers.get("server");
  if (server !== null && /bun|elysia|uws|node/i.test(server)) found.push(`banner Server: ${server}`);
  if (options.protectedRoute && headers.get("cache-control") !== "no-store") {
    found.push(`protected route answered Cache-Control: ${headers.get("cache-control")}`);
  }
  for (const [what, pattern] of LEAKS) {
    if (pattern.test(body) && !pattern.test(options.echo)) found.push(`${what} in body: ${excerpt(body, pattern)}`);
  }
  if (status >= 400 && method.toUpperCase() !== "HEAD") found.push(...errorBodyViolations(status, headers, body));
  if (status === 405 && !headers.get("allow")) found.push("405 without Allow");
  if ((status === 429 || status === 503) && !/^[1-9]\d*$/.test(headers.get("retry-after") ?? "")) {
    found.push(`${status} without a whole-second Retry-After`);
  }
  return found;
}

function excerpt(body: string, pattern: RegExp): string {
  const at = body.search(pattern);
  return JSON.stringify(body.slice(Math.max(0, at - 40), at + 80));
}

/** The token endpoint's OAuth 2.0 grant answers RFC 6749 §5.2's shape, with the contract's code beside it. */
const OAUTH_ERRORS = new Set([
  "invalid_request",
  "invalid_client",
  "unsupported_grant_type",
  "unauthorized_client",
  "temporarily_unavailable",
  "server_error",
]);
const OAUTH_KEYS = new Set(["error", "error_description", "code"]);

/**
 * An error answer must be `{ error, code[, details] }` JSON whose code has exactly this status
 * (or, from the client-credentials grant, `{ error: <RFC 6749 name>, error_description, code }`).
 */
export function errorBodyViolations(status: number, headers: Headers, body: string): string[] {
  const found: string[] = [];
  if (!headers.get("content-type")?.startsWith("application/json")) {
    found.push(`error content-type ${headers.get("content-type")}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return [...found, `error body is not JSON: ${JSON.stringify(body.slice(0, 120))}`];
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
    return [...found, "error body is not an object"];
  const record = parsed as Record<string, unknown>;
  const oauth = "error_description" in record;
  for (const key of Object.keys(record))
    if (!(oauth ? OAUTH_KEYS : ERROR_KEYS).has(key)) found.push(`unexpected key "${key}" in error body`);
  if (oauth && !OAUTH_ERRORS.has(record.error as string))
    found.push(`error ${JSON.stringify(record.error)} is no RFC 6749 error`);
  if (oauth && (typeof record.error_description !== "string" || record.error_description === ""))
    found.push("error_description is not a non-empty string");
  if (typeof record.error !== "string" || record.error === "") found.push("error message is not a non-empty string");
  const code = record.code;
  if (typeof code !== "string" || !(code in ERRORS)) return [...found, `unknown error code ${JSON.stringify(code)}`];
  const expected = ERRORS[code as ErrorCode].status;
  if (expected !== status) found.push(`code ${code} is ${expected} in the table but came with ${status}`);
  if (record.details !== undefined) {
    if (code !== "VALIDATION_ERROR") found.push(`details on ${code}`);
    const ok =
      Array.isArray(record.details) &&
      record.details.length > 0 &&
      record.details.every(
        (d) => typeof d === "object" && d !== null && typeof d.field === "string" && typeof d.message === "string",
      );
    if (!ok) found.push("details is not a non-empty array of { field, message }");
  }
  return found;
}

/** The echo allowance of a request: its URL raw and decoded, header values and body text. */
export function echoOf(url: string, headers: [string, string][], bodyText: string): string {
  let decoded = url;
  try {
    decoded = decodeURIComponent(url.replace(/\+/g, " "));
  } catch {
    // Malformed escapes: decode piecewise so each valid one still counts.
    decoded = url.replace(/(?:%[0-9a-f]{2})+/gi, (run) => {
      try {
        return decodeURIComponent(run);
      } catch {
        return run;
      }
    });
  }
  const query = [...new URLSearchParams(url.split("?")[1] ?? "")].flat();
  return [url, decoded, ...query, ...headers.flat(), bodyText].join("\n");
}
