// The one error handler: ApiErrors and framework failures become `{ error, code }` bodies with
// the contract's statuses; anything unexpected is logged and answered 500 with no internals.
import { Elysia } from "elysia";
import { ApiError, ERRORS, type ErrorCode, errorBody, type FieldProblem } from "../errors.ts";
import { pathOfUrl } from "../lib/request-url.ts";
import type { Logger } from "../logging.ts";
import { CLIENT_CLOSED_REQUEST, type RequestMetrics } from "../metrics/requests.ts";
import { ClientDisconnected } from "./body.ts";
import { stateOf } from "./context.ts";
import { JSON_CONTENT_TYPE } from "./respond.ts";

/** SQLite failures that mean "the disk cannot take writes now", not a bug: 503 with Retry-After. */
const UNAVAILABLE_SQLITE_CODES = new Set([
  "SQLITE_FULL",
  "SQLITE_READONLY",
  "SQLITE_READONLY_DBMOVED",
  "SQLITE_READONLY_DIRECTORY",
  "SQLITE_IOERR",
  "SQLITE_IOERR_WRITE",
  "SQLITE_IOERR_FSYNC",
  "SQLITE_IOERR_SHORT_READ",
  "SQLITE_BUSY",
  "SQLITE_CANTOPEN",
  "SQLITE_CORRUPT",
]);

export function isStorageUnavailable(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  return typeof code === "string" && (UNAVAILABLE_SQLITE_CODES.has(code) || code.startsWith("SQLITE_IOERR"));
}

export function errorResponse(
  code: ErrorCode,
  message: string = ERRORS[code].message,
  details?: FieldProblem[],
  headers?: Record<string, string>,
): Response {
  return new Response(JSON.stringify(errorBody(code, message, details)), {
    status: ERRORS[code].status,
    headers: headers ? { "content-type": JSON_CONTENT_TYPE, ...headers } : { "content-type": JSON_CONTENT_TYPE },
  });
}

/** Methods the app answers on a path, for 405 and its Allow header (none: a plain 404). */
export type AllowedMethods = (path: string, request: Request) => string[];

export function errorHandler(deps: { logger: Logger; allowedMethods: AllowedMethods }) {
  return new Elysia({ name: "errors" }).onError({ as: "global" }, ({ error, code, request }) => {
    const state = stateOf(request) as ReturnType<typeof stateOf> | undefined;
    let response: Response;
    if (error instanceof ApiError) {
      response = errorResponse(error.code, error.message, error.details, error.headers);
    } else if (code === "NOT_FOUND") {
      const allowed = deps.allowedMethods(pathOfUrl(request.url), request);
      response =
        allowed.length > 0
          ? errorResponse(
              "METHOD_NOT_ALLOWED",
              `Method ${request.method} not allowed; use ${allowed.join(", ")}`,
              undefined,
              {
                allow: allowed.join(", "),
              },
            )
          : errorResponse("NOT_FOUND", "No route matches this path");
    } else if (code === "PARSE") {
      response = errorResponse("VALIDATION_ERROR", "body: must be valid JSON", [
        { field: "body", message: "must be valid JSON" },
      ]);
    } else if (code === "VALIDATION") {
      // Routes validate their own input; this only guards against a schema slipping through.
      response = errorResponse("VALIDATION_ERROR", "request: invalid input", [
        { field: "request", message: "invalid input" },
      ]);
    } else if (error instanceof ClientDisconnected) {
      // Not logged as an error and not a 5xx: a caller hanging up must not trip the alerts.
      response = new Response(null, { status: CLIENT_CLOSED_REQUEST });
    } else if (isStorageUnavailable(error)) {
      deps.logger.error({ reqId: state?.requestId, err: (error as Error).message }, "storage unavailable");
      response = errorResponse("SERVICE_UNAVAILABLE", undefined, undefined, { "retry-after": "5" });
    } else {
      deps.logger.error({ reqId: state?.requestId, err: error }, "unexpected error");
      response = errorResponse("INTERNAL_ERROR");
    }
    if (state) {
      state.errorStatus = response.status;
      state.errorCode = error instanceof ApiError ? error.code : undefined;
    }
    return response;
  });
}

/**
 * Bun's own error handler, for a failure no hook caught (one inside the error handler itself):
 * the contract's 500 with a request id, logged and counted, never Bun's plain-text page.
 */
export function lastResort(deps: { logger: Logger; requests: RequestMetrics | null }): (error: unknown) => Response {
  return (error) => {
    const requestId = crypto.randomUUID();
    deps.logger.error({ reqId: requestId, err: error }, "unexpected error outside the request's hooks");
    deps.requests?.observe(null, "OTHER", 500, 0, undefined, undefined, false);
    return errorResponse("INTERNAL_ERROR", undefined, undefined, {
      "x-request-id": requestId,
      "x-content-type-options": "nosniff",
    });
  };
}
