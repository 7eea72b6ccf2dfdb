// Response headers and error responses of the document, from the error table: one response
// per HTTP status an operation can answer, listing its codes, each with an example body.
import { ERRORS, type ErrorCode } from "../errors.ts";
import { MAX_LIMIT } from "../query/params.ts";
import { toOpenApiSchema } from "./json-schema.ts";
import { codesByStatus, errorSchema } from "./schemas.ts";

type Json = Record<string, unknown>;

const ref = (name: string) => ({ $ref: `#/components/headers/${name}` });

export const HEADERS: Record<string, Json> = {
  XRequestId: {
    required: true,
    description: "Id of this request (a sane incoming `X-Request-Id` is echoed); quote it when asking for support",
    schema: { type: "string" },
    example: "0b6f1c2e-8d4a-4f3b-9e7c-5a1d2f3e4b6c",
  },
  XRateLimitLimit: {
    required: true,
    description: "Requests allowed per sliding minute (for the token endpoint: failed attempts allowed per IP)",
    schema: { type: "integer", minimum: 1 },
    example: 600,
  },
  XRateLimitRemaining: {
    required: true,
    description: "Requests left in the current window after this one (0 on a 429)",
    schema: { type: "integer", minimum: 0 },
    example: 599,
  },
  RateLimitPolicy: {
    required: true,
    description: "The quota policy (draft-ietf-httpapi-ratelimit-headers-11)",
    schema: { type: "string" },
    example: '"minute";q=600;w=60',
  },
  RateLimit: {
    required: true,
    description: "Remaining quota `r` (always equal to X-RateLimit-Remaining) and seconds `t` until it resets",
    schema: { type: "string" },
    example: '"minute";r=599;t=60',
  },
  RetryAfter: {
    required: true,
    description: "Whole seconds to wait before retrying",
    schema: { type: "integer", minimum: 1 },
    example: 12,
  },
  WWWAuthenticateBearer: {
    required: true,
    description:
      'The route takes a bearer token (RFC 6750 §3): `Bearer realm="partner-api"` when the request carried none (the ' +
      'message then says the token is missing), `Bearer realm="partner-api", error="invalid_token"` when the token is ' +
      "malformed, expired, or its client or credentials are gone: get a new one from `POST /v1/auth/token`",
    schema: { type: "string" },
    example: 'Bearer realm="partner-api", error="invalid_token"',
  },
  IdempotentReplayed: {
    description: "Present when this 201 is the stored answer to an earlier request with the same Idempotency-Key",
    schema: { type: "string", enum: ["true"] },
  },
};

/** Which headers a response carries. */
export type HeaderSet = "plain" | "rateLimited";

export function responseHeaders(set: HeaderSet, retryAfter = false): Json {
  const headers: Json = { "X-Request-Id": ref("XRequestId") };
  if (set === "rateLimited") {
    headers["X-RateLimit-Limit"] = ref("XRateLimitLimit");
    headers["X-RateLimit-Remaining"] = ref("XRateLimitRemaining");
    headers["RateLimit-Policy"] = ref("RateLimitPolicy");
    headers.RateLimit = ref("RateLimit");
  }
  if (retryAfter) headers["Retry-After"] = ref("RetryAfter");
  return headers;
}

const STATUS_MEANING: Record<number, string> = {
  400: "Invalid request",
  401: "Not authenticated",
  403: "Access refused",
  404: "Not found",
  413: "Body too large",
  415: "Wrong media type",
  422: "Not processed",
  429: "Rate limit exceeded",
  500: "Unexpected failure",
  503: "Storage unavailable, retry later",
};

/** Example messages where the table's default is less telling than a real one. */
export type ErrorMessages = Partial<Record<ErrorCode, string>>;

function example(code: ErrorCode, messages: ErrorMessages): Json {
  const error = messages[code] ?? ERRORS[code].message;
  if (code !== "VALIDATION_ERROR") return { error, code };
  // Problems are `; `-separated; an unknown parameter's own message holds one ("; did you mean …?").
  const details = error.split(/; (?=[^;:\s]+: )/).map((entry) => {
    const at = entry.indexOf(": ");
    return { field: entry.slice(0, at), message: entry.slice(at + 2) };
  });
  return { error, code, details };
}

/** The error responses of an operation, keyed by status. */
export function errorResponses(
  codes: readonly ErrorCode[],
  headers: HeaderSet,
  messages: ErrorMessages = {},
): Record<string, Json> {
  const responses: Record<string, Json> = {};
  for (const [status, group] of codesByStatus(codes)) {
    responses[String(status)] = {
      description: `${STATUS_MEANING[status] ?? "Error"}: ${group.join(", ")}`,
      // 429s and the 503 of a busy disk say when to come back.
      headers: responseHeaders(headers, status === 429 || status === 503),
      content: {
        "application/json": {
          schema: toOpenApiSchema(errorSchema(group)),
          examples: Object.fromEntries(group.map((code) => [code, { summary: code, value: example(code, messages) }])),
        },
      },
    };
  }
  return responses;
}

/**
 * The example messages of a list's 400s; `invalid` is a field of the other entity, `misspelt`
 * a parameter the list does not take, with the suggestion the server gives for it.
 */
export const listMessages = (invalid: string, misspelt: string): ErrorMessages => ({
  VALIDATION_ERROR: `limit: must be an integer between 1 and ${MAX_LIMIT}; ${misspelt}`,
  INVALID_FIELDS: `Invalid fields: ${invalid}`,
});

/** The example messages of a single record's 400s and 404. */
export const recordMessages = (entity: string, invalid: string): ErrorMessages => ({
  VALIDATION_ERROR: "fields: is required",
  INVALID_FIELDS: `Invalid fields: ${invalid}`,
  NOT_FOUND: `No ${entity} with this id`,
});
