// What a route declares of itself for the OpenAPI document, and the shared pieces those
// declarations are made of. A module declares each route's operation beside its routes
// (src/modules/<feature>/openapi.ts), passes it on the route as `detail`, and
// src/openapi.ts assembles the document by walking the app's routes (with src/docs/openapi.ts).
import type { TSchema } from "@sinclair/typebox";
import type { ErrorCode } from "../errors.ts";
import type { Scope } from "../security/scopes.ts";
import type { SandboxExamples } from "./examples.ts";
import { toOpenApiSchema } from "./json-schema.ts";
import type { Parameter } from "./parameters.ts";
import { type ErrorMessages, errorResponses, type HeaderSet, responseHeaders } from "./responses.ts";

type Json = Record<string, unknown>;

/** Which security requirement an operation carries (openapi.ts turns it into the document's). */
export type Access = "public" | "credentials" | "bearer" | "bearerOrBasic" | "inbound" | "metrics";

/** One OpenAPI operation, without its method and path: those are the route's. */
export interface Operation {
  operationId: string;
  summary: string;
  description: string;
  access: Access;
  parameters: Parameter[];
  requestBody?: Json;
  responses: Record<string, Json>;
  /** The OpenAPI path template, when one route is documented as several paths (the values route). */
  path?: string;
}

/** What the operations are built from: the examples captured from the sandbox, and the release. */
export interface DocContext {
  examples: SandboxExamples;
  version: string;
}

export type Method = "get" | "head" | "post" | "patch" | "delete";

/**
 * A route's documentation, passed on the route as its `detail`: its method and path (the route
 * is registered at `path`), its tag, and its operations, built when the document is.
 */
export interface RouteDoc<P extends string = string> {
  method: Method;
  path: P;
  tags: [string];
  operations: (context: DocContext) => Operation[];
  /** Events the API posts to receivers that this route subscribes: the document's top-level `webhooks`. */
  webhooks?: (context: DocContext) => Record<string, Json>;
}

export function route<const P extends string>(
  method: Method,
  path: P,
  tag: string,
  build: (context: DocContext) => Operation | Operation[],
): RouteDoc<P> {
  return {
    method,
    path,
    tags: [tag],
    operations: (context) => {
      const built = build(context);
      return Array.isArray(built) ? built : [built];
    },
  };
}

export function isRouteDoc(detail: unknown): detail is RouteDoc {
  return (
    typeof detail === "object" &&
    detail !== null &&
    typeof (detail as RouteDoc).operations === "function" &&
    typeof (detail as RouteDoc).path === "string"
  );
}

/** Failures of the guard every protected route passes (docs/reference/behaviour.md §4), plus the unexpected. */
const GUARD_ERRORS: ErrorCode[] = [
  "INVALID_TOKEN",
  "API_DISABLED",
  "IP_BLOCKED",
  "NO_DATABASE",
  "RATE_LIMIT_EXCEEDED",
  "INTERNAL_ERROR",
];

export function json(schema: TSchema, example: unknown, description: string, headers: HeaderSet): Json {
  return {
    description,
    headers: responseHeaders(headers),
    content: { "application/json": { schema: toOpenApiSchema(schema), example } },
  };
}

export function text(mediaType: string, description: string, example?: string): Json {
  return {
    description,
    headers: responseHeaders("plain"),
    content: { [mediaType]: { schema: { type: "string" }, ...(example === undefined ? {} : { example }) } },
  };
}

/**
 * A protected operation: bearer token, rate-limit headers on every response, guard errors, and
 * the 403 of a client without the scope the operation needs (docs/partners/scopes.md).
 */
export function protectedResponses(
  success: Record<string, Json>,
  errors: ErrorCode[],
  messages: ErrorMessages = {},
  scope?: Scope,
): Record<string, Json> {
  const scoped: ErrorCode[] = scope === undefined ? [] : ["INSUFFICIENT_SCOPE"];
  const scopeMessage = scope === undefined ? {} : { INSUFFICIENT_SCOPE: `Missing scope: ${scope}` };
  const responses = errorResponses([...errors, ...scoped, ...GUARD_ERRORS], "rateLimited", {
    ...scopeMessage,
    ...messages,
  });
  // Every 401 of a bearer route carries the Bearer challenge (RFC 6750 §3).
  const unauthorized = responses["401"] as Json;
  responses["401"] = {
    ...unauthorized,
    headers: {
      ...(unauthorized.headers as Json),
      "WWW-Authenticate": { $ref: "#/components/headers/WWWAuthenticateBearer" },
    },
  };
  return { ...success, ...responses };
}
