// The closed set of error codes, their HTTP statuses and default messages, and the typed
// error services throw. One table: nothing else decides what status a code gets.

export const ERRORS = {
  VALIDATION_ERROR: { status: 400, message: "Validation failed" },
  INVALID_FIELDS: { status: 400, message: "Invalid fields" },
  INVALID_ENTITY: { status: 400, message: "Invalid entity" },
  INVALID_FIELD: { status: 400, message: "Invalid field" },
  MISSING_BODY: { status: 400, message: "Request body is required" },
  INVALID_TOKEN: { status: 401, message: "Invalid or expired token" },
  MISSING_CREDENTIALS: { status: 401, message: "X-API-Key and X-API-Secret headers are required" },
  INVALID_API_KEY: { status: 401, message: "Invalid API key" },
  INVALID_API_SECRET: { status: 401, message: "Invalid API secret" },
  API_DISABLED: { status: 403, message: "API access disabled for this client" },
  IP_BLOCKED: { status: 403, message: "IP not allowed" },
  NO_DATABASE: { status: 403, message: "Client database not configured" },
  INSUFFICIENT_SCOPE: { status: 403, message: "Missing scope" },
  NOT_FOUND: { status: 404, message: "Not found" },
  METHOD_NOT_ALLOWED: { status: 405, message: "Method not allowed" },
  PAYLOAD_TOO_LARGE: { status: 413, message: "Request body exceeds 65536 bytes" },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: "Content-Type must be application/json" },
  IDEMPOTENCY_KEY_REUSED: {
    status: 422,
    message: "Idempotency-Key was already used with a different request body",
  },
  // The admin API (docs/operators/console.md): never answered on the partners' routes.
  INVALID_CREDENTIALS: { status: 401, message: "Invalid e-mail, password or code" },
  ADMIN_AUTH_REQUIRED: { status: 401, message: "Sign in to the console, or send an admin API token" },
  INVALID_SETUP_LINK: { status: 401, message: "This set-up link is unknown, expired or already used" },
  INVALID_CSRF_TOKEN: { status: 403, message: "Missing or stale X-CSRF-Token: sign in again" },
  INSUFFICIENT_ROLE: { status: 403, message: "Your role does not allow this" },
  HTTPS_REQUIRED: { status: 403, message: "The console needs HTTPS, except on this machine's loopback address" },
  READ_ONLY: { status: 409, message: "This partner is in the config file: change it there" },
  ALREADY_EXISTS: { status: 409, message: "Already exists" },
  STATE_CONFLICT: { status: 409, message: "Not in a state that allows this" },
  QUERY_TOO_BROAD: { status: 422, message: "Narrow the search: add a city, a price band or fewer words" },
  RATE_LIMIT_EXCEEDED: { status: 429, message: "Rate limit exceeded" },
  INTERNAL_ERROR: { status: 500, message: "Internal server error" },
  SERVICE_UNAVAILABLE: { status: 503, message: "Service temporarily unavailable, retry later" },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ERRORS;

/** One failed input: `field: message` in the error text, `{ field, message }` in details. */
export interface FieldProblem {
  field: string;
  message: string;
}

/** An expected failure: a code from the table, an optional message and validation details. */
export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message?: string,
    readonly details?: FieldProblem[],
    readonly headers?: Record<string, string>,
  ) {
    super(message ?? ERRORS[code].message);
    this.status = ERRORS[code].status;
  }

  static validation(problems: FieldProblem[]): ApiError {
    return new ApiError("VALIDATION_ERROR", problems.map((p) => `${p.field}: ${p.message}`).join("; "), problems);
  }
}

export function errorBody(code: ErrorCode, message: string, details?: FieldProblem[]) {
  return details ? { error: message, code, details } : { error: message, code };
}
