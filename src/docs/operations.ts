// Every route the server answers, as OpenAPI operations: parameters, request body, and one
// response per status, errors included. The test suite checks this table against app.routes.
import type { TSchema } from "@sinclair/typebox";
import { CATALOGS } from "../catalog/index.ts";
import type { ErrorCode } from "../errors.ts";
import { metricsExample } from "../metrics/example.ts";
import { FIELDS_BODY } from "../modules/catalog/service.ts";
import { LeadInputSchema, LeadPatchSchema } from "../modules/leads/model.ts";
import { MAX_LIMIT } from "../modules/listing/params.ts";
import type { Scope } from "../security/scopes.ts";
import {
  EXAMPLE_QUERIES,
  exampleProperty,
  LEAD_PATCH_EXAMPLE,
  leadRequestExample,
  type SandboxExamples,
} from "./examples.ts";
import { toOpenApiSchema } from "./json-schema.ts";
import { TOKEN_REQUEST_BODY, tokenResponses } from "./oauth.ts";
import {
  changesParameters,
  facetsParameter,
  fieldsParameter,
  filterParameters,
  idempotencyKeyParameter,
  idParameter,
  listParameters,
  type Parameter,
  searchParameters,
} from "./parameters.ts";
import { type ErrorMessages, errorResponses, type HeaderSet, responseHeaders } from "./responses.ts";
import {
  ChangesSchema,
  CreatedLeadSchema,
  dataOf,
  FacetsSchema,
  FieldsSchema,
  HealthSchema,
  LeadRecordSchema,
  LeadSchema,
  OpenApiDocumentSchema,
  PropertyRecordSchema,
  pageOf,
} from "./schemas.ts";

type Json = Record<string, unknown>;

export type Access = "public" | "credentials" | "bearer" | "bearerOrBasic" | "inbound" | "metrics";

export interface Operation {
  method: "get" | "head" | "post" | "patch" | "delete";
  /** OpenAPI path template (`{id}`, not `:id`). */
  path: string;
  operationId: string;
  tag: string;
  summary: string;
  description: string;
  access: Access;
  parameters: Parameter[];
  requestBody?: Json;
  responses: Record<string, Json>;
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

function text(mediaType: string, description: string, example?: string): Json {
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
  return {
    ...success,
    ...errorResponses([...errors, ...scoped, ...GUARD_ERRORS], "rateLimited", { ...scopeMessage, ...messages }),
  };
}

export function operations(examples: SandboxExamples, version: string): Operation[] {
  const property = exampleProperty(examples);
  const propertySample = examples.propertyPage.data.find((p) => p.id === property.id)!;
  const leadSample = examples.leadPage.data[0]!;
  const listMessages = (invalid: string): ErrorMessages => ({
    VALIDATION_ERROR: `limit: must be an integer between 1 and ${MAX_LIMIT}`,
    INVALID_FIELDS: `Invalid fields: ${invalid}`,
  });
  const recordMessages = (entity: string, invalid: string): ErrorMessages => ({
    VALIDATION_ERROR: "fields: is required",
    INVALID_FIELDS: `Invalid fields: ${invalid}`,
    NOT_FOUND: `No ${entity} with this id`,
  });

  return [
    {
      method: "get",
      path: "/health",
      operationId: "getHealth",
      tag: "Health",
      summary: "Health check",
      description: "Whether the API is up and every configured database can be read. No authentication, no rate limit.",
      access: "public",
      parameters: [],
      responses: {
        "200": json(
          HealthSchema,
          { status: "ok", version, environment: "sandbox", uptimeSeconds: 86400 },
          "The API is online",
          "plain",
        ),
        "503": json(
          HealthSchema,
          { status: "degraded", version, environment: "production", uptimeSeconds: 86400 },
          "A configured database cannot be read",
          "plain",
        ),
        ...errorResponses(["INTERNAL_ERROR"], "plain"),
      },
    },
    {
      method: "post",
      path: "/v1/auth/token",
      operationId: "createToken",
      tag: "Authentication",
      summary: "Obtain a bearer token",
      description:
        "Exchanges your API key and secret for a JWT valid for 3600 seconds, in either of two ways. **OAuth 2.0 client " +
        "credentials** (RFC 6749 §4.4): a form with `grant_type=client_credentials`, the key and secret as HTTP Basic or as " +
        "`client_id` / `client_secret` in the form; the answer is `{ access_token, token_type, expires_in }` and failures " +
        "`{ error, error_description, code }`. **Headers**: `X-API-Key` and `X-API-Secret` and no body; the answer is " +
        "`{ data: { token, expiresIn, tokenType } }` and failures `{ error, code }`. There is no renewal: ask for a new token " +
        "before this one expires. Failed attempts drain a per-IP allowance of 20 (refilled at 20 a minute); the rate-limit " +
        "headers report it. Checks run in this order: credentials present, key known, address on the client's whitelist " +
        "(`IP_BLOCKED` whatever the secret), secret, client enabled, database. A token stops working at once when the agency " +
        "gives the client a new key or secret.",
      access: "credentials",
      parameters: [],
      requestBody: TOKEN_REQUEST_BODY,
      responses: tokenResponses(examples),
    },
    {
      method: "get",
      path: "/v1/fields",
      operationId: "listFields",
      tag: "Catalogue",
      summary: "List the selectable fields of properties and leads",
      description:
        "The names accepted by the `fields` parameter, with descriptions; grouped fields list their sub-fields.",
      access: "bearer",
      parameters: [],
      responses: protectedResponses(
        { "200": json(FieldsSchema, JSON.parse(FIELDS_BODY), "The field catalogue", "rateLimited") },
        [],
      ),
    },
    {
      method: "get",
      path: "/v1/properties",
      operationId: "listProperties",
      tag: "Properties",
      summary: "List published properties",
      description:
        "A page of published properties with only the fields you ask for. Use `updatedAfter` for incremental sync, " +
        "or the change feed (`GET /v1/changes`) to also learn of properties taken down. The search filters (places, price, " +
        "rooms, area, amenities, flags, words, a box or a radius on the map) combine with every other filter and apply " +
        "before paging and to `total`; they see only what you are shown of an address.",
      access: "bearer",
      parameters: listParameters(CATALOGS.properties, EXAMPLE_QUERIES.propertyPage, propertySample),
      responses: protectedResponses(
        { "200": json(pageOf(PropertyRecordSchema), examples.propertyPage, "A page of properties", "rateLimited") },
        ["VALIDATION_ERROR", "INVALID_FIELDS", "SERVICE_UNAVAILABLE"],
        listMessages("bedrooms"),
        "properties:read",
      ),
    },
    {
      method: "get",
      path: "/v1/facets/properties",
      operationId: "countPropertyFacets",
      tag: "Properties",
      summary: "Count published properties by facet under the list's filters",
      description:
        "What a search page shows beside its list: the number of published properties matching every filter given " +
        "(the filters of `GET /v1/properties`) and, for each facet asked for, how many of them take each value, most " +
        "frequent first. Places and amenities count once whatever their accents and case.",
      access: "bearer",
      parameters: [facetsParameter(), ...filterParameters(CATALOGS.properties, propertySample), ...searchParameters()],
      responses: protectedResponses(
        { "200": json(FacetsSchema, examples.facets, "The total and the counts", "rateLimited") },
        ["VALIDATION_ERROR", "SERVICE_UNAVAILABLE"],
        { VALIDATION_ERROR: "facets: is required; minPrice: must be a number ≥ 0" },
        "properties:read",
      ),
    },
    {
      method: "get",
      path: "/v1/properties/{id}",
      operationId: "getProperty",
      tag: "Properties",
      summary: "Get one published property",
      description:
        "One published property of yours; an unknown id, an unpublished property or another agency's is a 404.",
      access: "bearer",
      parameters: [
        idParameter("property", property.id),
        fieldsParameter(CATALOGS.properties, EXAMPLE_QUERIES.property.slice("fields=".length)),
      ],
      responses: protectedResponses(
        { "200": json(dataOf(PropertyRecordSchema), examples.property, "The property", "rateLimited") },
        ["VALIDATION_ERROR", "INVALID_FIELDS", "NOT_FOUND", "SERVICE_UNAVAILABLE"],
        recordMessages("property", "bedrooms"),
        "properties:read",
      ),
    },
    {
      method: "get",
      path: "/v1/leads",
      operationId: "listLeads",
      tag: "Leads",
      summary: "List leads",
      description:
        "A page of the leads you may read, with only the fields you ask for: with scope `leads:read:own` (the default) " +
        "the leads you created, with `leads:read` every lead of the agency. `total` counts only those.",
      access: "bearer",
      parameters: listParameters(CATALOGS.leads, EXAMPLE_QUERIES.leadPage, leadSample),
      responses: protectedResponses(
        { "200": json(pageOf(LeadRecordSchema), examples.leadPage, "A page of leads", "rateLimited") },
        ["VALIDATION_ERROR", "INVALID_FIELDS", "SERVICE_UNAVAILABLE"],
        listMessages("trafficOrigin"),
        "leads:read:own",
      ),
    },
    {
      method: "get",
      path: "/v1/leads/{id}",
      operationId: "getLead",
      tag: "Leads",
      summary: "Get one lead",
      description:
        "One lead you may read; an unknown id, another partner's lead (without `leads:read`) or another agency's is a 404.",
      access: "bearer",
      parameters: [
        idParameter("lead", leadSample.id as string),
        fieldsParameter(CATALOGS.leads, EXAMPLE_QUERIES.lead.slice("fields=".length)),
      ],
      responses: protectedResponses(
        { "200": json(dataOf(LeadRecordSchema), examples.lead, "The lead", "rateLimited") },
        ["VALIDATION_ERROR", "INVALID_FIELDS", "NOT_FOUND", "SERVICE_UNAVAILABLE"],
        recordMessages("lead", "trafficOrigin"),
        "leads:read:own",
      ),
    },
    {
      method: "patch",
      path: "/v1/leads/{id}",
      operationId: "updateLead",
      tag: "Leads",
      summary: "Move a lead along the funnel",
      description:
        "For the agency's CRM (scope `leads:update`), on a lead it may read: sets `status` (any to any, a lost lead " +
        "can be reopened) and/or `priority`, and answers the lead with every field. A real change moves `updatedAt`, " +
        "enters the change feed and sends `lead.updated` to every subscription whose client may read the lead, the " +
        "partner that sent it included. The same values again answer 200 and write nothing.",
      access: "bearer",
      parameters: [idParameter("lead", leadSample.id as string)],
      requestBody: {
        required: true,
        description: "The new status, priority, or both",
        content: {
          "application/json": {
            schema: toOpenApiSchema(LeadPatchSchema),
            examples: {
              visit: { summary: "A visit was scheduled, and the lead is now a priority", value: LEAD_PATCH_EXAMPLE },
              status: { summary: "The status alone", value: { status: "IN_SERVICE" } },
            },
          },
        },
      },
      responses: protectedResponses(
        { "200": json(dataOf(LeadSchema), examples.updatedLead, "The lead, with every field", "rateLimited") },
        [
          "VALIDATION_ERROR",
          "MISSING_BODY",
          "PAYLOAD_TOO_LARGE",
          "UNSUPPORTED_MEDIA_TYPE",
          "NOT_FOUND",
          "SERVICE_UNAVAILABLE",
        ],
        { VALIDATION_ERROR: "name: cannot be changed", NOT_FOUND: "No lead with this id" },
        "leads:update",
      ),
    },
    {
      method: "post",
      path: "/v1/leads",
      operationId: "createLead",
      tag: "Leads",
      summary: "Create a lead",
      description:
        "Creates a lead with status NEW_LEAD and priority MEDIUM. A `propertyCode` of one of your published " +
        "properties links it (`propertyId` set, `interestedPropertyTitle` defaulting to the property's title). " +
        "Strings are trimmed; unknown and read-only keys are ignored. A 201 means the lead is on disk.",
      access: "bearer",
      parameters: [idempotencyKeyParameter],
      requestBody: {
        required: true,
        description: "The contact and, optionally, the property they asked about",
        content: {
          "application/json": {
            schema: toOpenApiSchema(LeadInputSchema),
            examples: {
              linked: { summary: "A contact about a listed property", value: leadRequestExample(property.code) },
              minimal: {
                summary: "Only the required fields",
                value: {
                  name: "João Santos",
                  email: "joao.santos@example.com",
                  phone: "+55 21 99876-5432",
                  message: "Procuro um apartamento de 2 quartos.",
                },
              },
            },
          },
        },
      },
      responses: protectedResponses(
        {
          "201": {
            ...json(
              dataOf(CreatedLeadSchema),
              examples.createdLead,
              "The created lead (or, with a reused Idempotency-Key, the first answer again)",
              "rateLimited",
            ),
            headers: {
              ...responseHeaders("rateLimited"),
              "Idempotent-Replayed": { $ref: "#/components/headers/IdempotentReplayed" },
            },
          },
        },
        [
          "VALIDATION_ERROR",
          "MISSING_BODY",
          "PAYLOAD_TOO_LARGE",
          "UNSUPPORTED_MEDIA_TYPE",
          "IDEMPOTENCY_KEY_REUSED",
          "SERVICE_UNAVAILABLE",
        ],
        { VALIDATION_ERROR: "email: must be a valid e-mail address; phone: is required" },
        "leads:create",
      ),
    },
    {
      method: "get",
      path: "/v1/changes",
      operationId: "listChanges",
      tag: "Sync",
      summary: "Read the change feed",
      description:
        "What changed since a sequence number, oldest first. Store `meta.nextAfter` and pass it as `after` next " +
        "time: you miss nothing, and learn of every property unpublished or deleted (`change: remove`). Property " +
        "entries need scope `properties:read`; lead entries carry only the leads you may read (`leads:read:own`: " +
        "yours; `leads:read`: all), and `head` is the last of those.",
      access: "bearer",
      parameters: changesParameters(EXAMPLE_QUERIES.changes),
      responses: protectedResponses(
        { "200": json(ChangesSchema, examples.changes, "A page of changes", "rateLimited") },
        ["VALIDATION_ERROR", "SERVICE_UNAVAILABLE"],
        { VALIDATION_ERROR: "entity: must be one of: properties, leads" },
        "leads:read:own",
      ),
    },
    {
      method: "get",
      path: "/openapi.json",
      operationId: "getOpenApiDocument",
      tag: "Operations",
      summary: "This OpenAPI document",
      description: "The OpenAPI 3.1 description of every route, generated from the schemas that validate requests.",
      access: "public",
      parameters: [],
      responses: {
        "200": json(
          OpenApiDocumentSchema,
          { openapi: "3.1.0", info: { title: "Partner API", version }, paths: { "/health": {} } },
          "The document (abridged here)",
          "plain",
        ),
        ...errorResponses(["INTERNAL_ERROR"], "plain"),
      },
    },
    {
      method: "get",
      path: "/docs",
      operationId: "getReferencePage",
      tag: "Operations",
      summary: "Interactive API reference",
      description: "This reference as a web page; its scripts are served by the API itself, so it works offline.",
      access: "public",
      parameters: [],
      responses: { "200": text("text/html", "The reference page"), ...errorResponses(["INTERNAL_ERROR"], "plain") },
    },
    {
      method: "get",
      path: "/docs/scalar.js",
      operationId: "getReferenceScript",
      tag: "Operations",
      summary: "Script of the reference page",
      description: "The Scalar API Reference bundle the page runs, embedded in the server binary.",
      access: "public",
      parameters: [],
      responses: {
        "200": text("text/javascript", "The script (gzipped when the client accepts it)"),
        "304": {
          description: "Not modified: the `If-None-Match` request header holds the current ETag",
          headers: responseHeaders("plain"),
        },
        ...errorResponses(["INTERNAL_ERROR"], "plain"),
      },
    },
    {
      method: "get",
      path: "/metrics",
      operationId: "getMetrics",
      tag: "Operations",
      summary: "Prometheus metrics",
      description:
        "Operator metrics in Prometheus text format: requests by route and status, latency by route, 429s by " +
        "client, authentication failures by code, leads created, database and WAL sizes, group commits and the page " +
        "cache, and the process (memory, CPU, open files, event-loop lag, garbage collections). Open in the sandbox; in " +
        "production it exists only when the config sets `metrics.token`, and needs `Authorization: Bearer <that token>` " +
        "(otherwise 404, exactly like an unknown path).",
      access: "metrics",
      parameters: [],
      responses: {
        "200": text("text/plain", "The scrape", metricsExample(version)),
        ...errorResponses(["NOT_FOUND", "INTERNAL_ERROR"], "plain", { NOT_FOUND: "No route matches this path" }),
      },
    },
  ];
}
