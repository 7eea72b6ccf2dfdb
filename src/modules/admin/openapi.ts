// The admin API's own OpenAPI document (GET /admin/openapi.json), apart from the partners' one:
// one table of its routes, each with what it takes and answers (docs/operators/console.md).
import { VERSION } from "../../version.ts";
import { USE_CASES } from "./presets.ts";

export const ADMIN_PREFIX = "/admin/v1";

interface AdminRouteDoc {
  method: "get" | "post" | "patch" | "delete";
  path: string;
  summary: string;
  /** Who may call it: "public" (set-up, sign-in), or the least role. */
  who: "public" | "viewer" | "admin" | "owner";
  body?: Record<string, unknown>;
  /** Query parameters, each optional. */
  query?: readonly string[];
  status: number;
}

const obj = (properties: Record<string, unknown>, required: string[] = []) => ({
  type: "object",
  additionalProperties: false,
  properties,
  required,
});
const str = (extra: Record<string, unknown> = {}) => ({ type: "string", ...extra });
const strings = { type: "array", items: { type: "string" } };

export const ADMIN_ROUTES: readonly AdminRouteDoc[] = [
  {
    method: "post",
    path: "/setup",
    summary: "Set a password with the set-up link's token; answers the TOTP secret to enrol",
    who: "public",
    body: obj({ token: str(), password: str({ minLength: 12 }) }, ["token", "password"]),
    status: 200,
  },
  {
    method: "post",
    path: "/setup/confirm",
    summary: "Confirm the TOTP enrolment with a first code; the account is active and the link spent",
    who: "public",
    body: obj({ token: str(), code: str({ pattern: "^\\d{6}$" }) }, ["token", "code"]),
    status: 200,
  },
  {
    method: "post",
    path: "/sessions",
    summary: "Sign in: sets the session cookie and answers the CSRF token",
    who: "public",
    body: obj({ email: str(), password: str(), code: str() }, ["email", "password"]),
    status: 201,
  },
  { method: "delete", path: "/sessions/current", summary: "Sign out", who: "viewer", status: 204 },
  { method: "get", path: "/me", summary: "The signed-in admin or the token", who: "viewer", status: 200 },
  {
    method: "get",
    path: "/partners",
    summary: "Every client, the config file's read-only",
    who: "viewer",
    status: 200,
  },
  {
    method: "post",
    path: "/partners",
    summary: "A new partner from its use case's preset; its secret shown once",
    who: "admin",
    body: obj(
      {
        id: str({ pattern: "^[a-z0-9][a-z0-9_-]{1,62}$" }),
        name: str({ maxLength: 120 }),
        contactEmail: str({ format: "email" }),
        useCase: { type: "string", enum: [...USE_CASES] },
        database: str(),
        allowedIps: strings,
        scopes: strings,
        rateLimitPerMinute: { type: "integer", minimum: 1, maximum: 100000 },
        inbound: obj({ format: { type: "string", enum: ["grupozap", "chavesnamao"] } }),
      },
      ["name", "contactEmail", "useCase", "database"],
    ),
    status: 201,
  },
  { method: "get", path: "/partners/{id}", summary: "One partner", who: "viewer", status: 200 },
  {
    method: "patch",
    path: "/partners/{id}",
    summary: "Change a console partner (409 READ_ONLY for the config file's)",
    who: "admin",
    body: obj({
      name: str({ maxLength: 120 }),
      scopes: strings,
      rateLimitPerMinute: { type: "integer", minimum: 1, maximum: 100000 },
      allowedIps: strings,
      enabled: { type: "boolean" },
    }),
    status: 200,
  },
  {
    method: "delete",
    path: "/partners/{id}",
    summary: "Delete a console partner; its tokens stop",
    who: "admin",
    status: 204,
  },
  {
    method: "post",
    path: "/partners/{id}/rotate-secret",
    summary: "A new secret, shown once; the old one valid for the overlap chosen",
    who: "admin",
    body: obj({ overlap: { type: "string", enum: ["none", "1h", "24h", "7d"] } }, ["overlap"]),
    status: 200,
  },
  {
    method: "get",
    path: "/partners/{id}/usage",
    summary:
      "A partner's requests per day by outcome (2xx, 401, 403 and its codes, 404, 429, 5xx), p50 and p95 latency, leads created, and when it was last seen (days: 1 to 90, default 30)",
    who: "viewer",
    query: ["days"],
    status: 200,
  },
  {
    method: "get",
    path: "/requests",
    summary:
      "The request log, newest first: time, client, method, route template, status, code, latency, source address, request id; never a body or a query value",
    who: "viewer",
    query: ["client", "status", "ip", "since", "until", "page", "limit"],
    status: 200,
  },
  {
    method: "get",
    path: "/portal-feed/downloads",
    summary: "The portal feed's downloads per portal and day: how many, how many answered 304, bytes sent",
    who: "viewer",
    query: ["days"],
    status: 200,
  },
  {
    method: "get",
    path: "/leads/origins",
    summary: "Leads per month, source and partner, by status; counts only (months: 1 to 36, default 6)",
    who: "viewer",
    query: ["months"],
    status: 200,
  },
  {
    method: "get",
    path: "/webhooks/subscriptions",
    summary: "Every webhook subscription of your databases, with its deliveries pending, succeeded and failed",
    who: "viewer",
    status: 200,
  },
  {
    method: "get",
    path: "/webhooks/subscriptions/{id}/deliveries",
    summary:
      "A subscription's deliveries, newest first, each with every attempt (status, latency, first KiB of the answer) and its next retry",
    who: "viewer",
    query: ["state", "page", "limit"],
    status: 200,
  },
  {
    method: "patch",
    path: "/webhooks/subscriptions/{id}",
    summary: "Disable a subscription (what waits fails) or enable it again",
    who: "admin",
    body: obj({ enabled: { type: "boolean" } }, ["enabled"]),
    status: 200,
  },
  {
    method: "post",
    path: "/webhooks/subscriptions/{id}/send-again",
    summary: "Send again every delivery of the subscription that failed since a time",
    who: "admin",
    body: obj({ since: str({ format: "date-time" }) }, ["since"]),
    status: 200,
  },
  {
    method: "post",
    path: "/webhooks/deliveries/{id}/send-again",
    summary: "Send a failed delivery again (409 STATE_CONFLICT unless it failed and its subscription is enabled)",
    who: "admin",
    status: 200,
  },
  {
    method: "get",
    path: "/feeds",
    summary: "The CRM feeds of your databases, each with its schedule and last run",
    who: "viewer",
    status: 200,
  },
  {
    method: "get",
    path: "/feeds/{id}/runs",
    summary: "A feed's runs, newest first: time, duration, outcome, counts, rejections with their reasons",
    who: "viewer",
    query: ["page", "limit"],
    status: 200,
  },
  { method: "post", path: "/feeds/{id}/run", summary: "Run the feed now", who: "admin", status: 202 },
  {
    method: "post",
    path: "/feeds/runs/{id}/apply",
    summary: "Apply a run a guard held: the feed runs again now with its guard lifted for that run",
    who: "admin",
    status: 200,
  },
  {
    method: "post",
    path: "/feeds/runs/{id}/drop",
    summary: "Drop a run a guard held: nothing changes, the decision is recorded",
    who: "admin",
    status: 200,
  },
  { method: "get", path: "/tokens", summary: "Admin API tokens (never their value)", who: "viewer", status: 200 },
  {
    method: "post",
    path: "/tokens",
    summary: "A new admin API token, shown once",
    who: "admin",
    body: obj(
      {
        name: str({ maxLength: 100 }),
        role: { type: "string", enum: ["owner", "admin", "viewer"] },
        databases: strings,
      },
      ["name", "role"],
    ),
    status: 201,
  },
  { method: "delete", path: "/tokens/{id}", summary: "Revoke an admin API token", who: "admin", status: 204 },
  { method: "get", path: "/admins", summary: "The admins", who: "owner", status: 200 },
  {
    method: "post",
    path: "/admins",
    summary: "Invite an admin: answers the one-time set-up link",
    who: "owner",
    body: obj({ email: str(), role: { type: "string", enum: ["owner", "admin", "viewer"] }, databases: strings }, [
      "email",
      "role",
    ]),
    status: 201,
  },
  {
    method: "patch",
    path: "/admins/{id}",
    summary: "Disable or enable an admin",
    who: "owner",
    body: obj({ disabled: { type: "boolean" } }, ["disabled"]),
    status: 200,
  },
  {
    method: "delete",
    path: "/admins/{id}/sessions",
    summary: "End every session of an admin",
    who: "owner",
    status: 204,
  },
  {
    method: "get",
    path: "/audit",
    summary: "The audit log, newest first (since, until, admin, action, page, limit)",
    who: "viewer",
    status: 200,
  },
  {
    method: "get",
    path: "/audit/export",
    summary: "The audit log as NDJSON (same filters)",
    who: "viewer",
    status: 200,
  },
];

const ERROR = {
  type: "object",
  required: ["error", "code"],
  properties: { error: { type: "string" }, code: { type: "string" }, details: { type: "array" } },
};

export function adminOpenApiDocument(origin: string) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of ADMIN_ROUTES) {
    const path = `${ADMIN_PREFIX}${route.path}`;
    const parameters: Record<string, unknown>[] = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => ({
      name: m[1],
      in: "path",
      required: true,
      schema: { type: "string" },
    }));
    for (const name of route.query ?? [])
      parameters.push({ name, in: "query", required: false, schema: { type: "string" } });
    const responses: Record<string, unknown> = {
      [String(route.status)]:
        route.status === 204
          ? { description: "Done" }
          : { description: "Done", content: { "application/json": { schema: { type: "object" } } } },
      "400": { description: "VALIDATION_ERROR", content: { "application/json": { schema: ERROR } } },
    };
    if (route.who === "public")
      responses["401"] = {
        description: "INVALID_CREDENTIALS or INVALID_SETUP_LINK",
        content: { "application/json": { schema: ERROR } },
      };
    else {
      responses["401"] = { description: "ADMIN_AUTH_REQUIRED", content: { "application/json": { schema: ERROR } } };
      responses["403"] = {
        description: "INSUFFICIENT_ROLE or INVALID_CSRF_TOKEN",
        content: { "application/json": { schema: ERROR } },
      };
    }
    paths[path] ??= {};
    paths[path]![route.method] = {
      summary: route.summary,
      description: route.who === "public" ? "No authentication." : `Role: ${route.who} or above.`,
      ...(parameters.length > 0 ? { parameters } : {}),
      ...(route.body
        ? { requestBody: { required: true, content: { "application/json": { schema: route.body } } } }
        : {}),
      ...(route.who === "public" ? { security: [] } : {}),
      responses,
    };
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "partner-api admin API",
      version: VERSION,
      description:
        "The agency's side: admins, partners made in the console, admin API tokens and the audit log. A console session's state-changing calls send X-CSRF-Token; an admin API token (Authorization: Bearer pa_admin_…) needs none.",
    },
    servers: [{ url: origin }],
    components: {
      securitySchemes: {
        session: { type: "apiKey", in: "cookie", name: "__Host-partner-api-session" },
        adminToken: { type: "http", scheme: "bearer" },
      },
    },
    security: [{ session: [] }, { adminToken: [] }],
    paths,
  };
}
