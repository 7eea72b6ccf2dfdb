// Turns routes into the OpenAPI 3.1 document of the API: each route carries its operations as
// its `detail` (declared beside it, src/modules/<feature>/openapi.ts), and the subscribing route
// the webhook events; this file adds what is shared (info, tags, security schemes, component
// headers). Pure, so the same routes always give the same document, and GET /openapi.json
// serialises it once. The routes are the app's own (src/openapi.ts); this file knows no module.

import { hoistNamedSchemas } from "./components.ts";
import { SANDBOX_API_KEY, SANDBOX_API_SECRET, SANDBOX_EXAMPLES, type SandboxExamples } from "./examples.ts";
import { INBOUND_SECURITY_SCHEME } from "./inbound.ts";
import { oauth2Scheme, TOKEN_HEADERS } from "./oauth.ts";
import { type Access, isRouteDoc, type Operation, type RouteDoc } from "./operation.ts";
import { FEED_HEADERS } from "./portal-feed.ts";
import { HEADERS } from "./responses.ts";

type Json = Record<string, unknown>;

const TAGS = [
  { name: "Health", description: "Is the API up" },
  { name: "Authentication", description: "Exchange API credentials for a bearer token" },
  { name: "Catalogue", description: "Which fields exist and which values filters take" },
  { name: "Properties", description: "Published properties, read-only" },
  { name: "Leads", description: "Leads: list, read and create" },
  { name: "Sync", description: "The change feed, for partners that keep a copy" },
  {
    name: "Webhooks",
    description: "Changes pushed to you as they happen: your subscriptions, and the events your receiver gets",
  },
  {
    name: "Portal feed",
    description:
      "All your listings as one VRSync XML file at a URL, for portals that fetch a file (ZAP, VivaReal, OLX)",
  },
  {
    name: "Portal leads",
    description:
      "Leads as portals post them by themselves (Grupo ZAP, Chaves na Mão), to a URL the agency registers in their panels",
  },
  { name: "Operations", description: "This documentation and the operator's metrics" },
];

const DESCRIPTION = `The Partner API of the real-estate platform: read published properties, read and create leads.

**Environments.** Production and the sandbox each have their own address. The sandbox serves fictitious data and accepts the published credentials \`X-API-Key: ${SANDBOX_API_KEY}\` and \`X-API-Secret: ${SANDBOX_API_SECRET}\`, which production refuses.

**Authentication.** \`POST /v1/auth/token\` exchanges your API key and secret for a JWT valid for one hour: by OAuth 2.0 client credentials (the key as client id, the secret as client secret: the \`oauth2\` scheme, which Postman, this page and generated clients run by themselves), or with your \`X-API-Key\` and \`X-API-Secret\` headers. Send the token as \`Authorization: Bearer <token>\` on every other \`/v1\` route, and ask for a new one before it expires. On the reference page (\`GET /docs\`), open an operation's *Test Request*, then *Authentication* → **Authorize**: the token it obtains is sent by every operation.

**Rate limits.** Each client has a limit per sliding minute. Every response of a protected route carries \`X-RateLimit-Limit\` and \`X-RateLimit-Remaining\` (and the IETF \`RateLimit-Policy\` / \`RateLimit\` fields); a 429 adds \`Retry-After\` in seconds.

**Errors.** Every error body is \`{ "error": <message>, "code": <code> }\`; a VALIDATION_ERROR adds \`details: [{ field, message }]\`. A query parameter an operation does not list is refused, never ignored: \`bedrooms: unknown parameter; did you mean minBedrooms?\`. A 401 carries \`WWW-Authenticate: Bearer\` (with \`error="invalid_token"\` when the token you sent is no good). Do not retry 400, 401, 403, 404; retry 429 after \`Retry-After\`, and 5xx with exponential backoff.

**Webhooks.** Instead of polling, subscribe (\`POST /v1/webhooks\`) and receive \`lead.created\`, \`lead.updated\`, \`property.upserted\` and \`property.removed\` as they happen, signed per Standard Webhooks 1.0: the events and their payloads are under *Webhooks*.

**Portal feed.** \`GET /v1/feeds/vrsync.xml\` serves your listings as one VRSync file, with a bearer token or HTTP Basic auth (API key as user, API secret as password), validators for 304s and gzip.

**Portal leads.** \`POST /v1/inbound/{clientId}\` is the URL an agency registers in Grupo ZAP's and Chaves na Mão's panels: the portal posts each lead there in its own JSON, with HTTP Basic auth, and the lead joins the client's leads once, whatever the portal resends.

**Pages.** Lists take \`page\` (from 1) and \`limit\` (1 to 100, default 20) and answer \`{ data, meta: { page, limit, total, totalPages } }\`.`;

const securitySchemes = (origin: string | null) => ({
  oauth2: oauth2Scheme(origin),
  bearerAuth: {
    type: "http",
    scheme: "bearer",
    bearerFormat: "JWT",
    description: "The token from `POST /v1/auth/token`, valid for 3600 seconds",
  },
  apiKey: {
    type: "apiKey",
    in: "header",
    name: "X-API-Key",
    description: `Your public API key (sandbox: \`${SANDBOX_API_KEY}\`)`,
  },
  apiSecret: {
    type: "apiKey",
    in: "header",
    name: "X-API-Secret",
    description: `Your API secret (sandbox: \`${SANDBOX_API_SECRET}\`)`,
  },
  basicAuth: {
    type: "http",
    scheme: "basic",
    description:
      "User = your API key, password = your API secret: the token endpoint (OAuth client_secret_basic) and the portal feed",
  },
  inboundBasic: INBOUND_SECURITY_SCHEME,
  metricsToken: {
    type: "http",
    scheme: "bearer",
    description: "Production only: the `metrics.token` of the server's config",
  },
});

const SECURITY: Record<Access, Json[]> = {
  public: [],
  // Basic (client_secret_basic), the X- headers, or client_id/client_secret in the form (no scheme).
  credentials: [{ basicAuth: [] }, { apiKey: [], apiSecret: [] }, {}],
  bearer: [{ oauth2: [] }, { bearerAuth: [] }],
  bearerOrBasic: [{ oauth2: [] }, { bearerAuth: [] }, { basicAuth: [] }],
  inbound: [{ inboundBasic: [] }],
  // Open in the sandbox, token-protected in production.
  metrics: [{}, { metricsToken: [] }],
};

function operationObject(op: Operation, tag: string): Json {
  return {
    operationId: op.operationId,
    tags: [tag],
    summary: op.summary,
    description: op.description,
    security: SECURITY[op.access],
    ...(op.parameters.length > 0 ? { parameters: op.parameters } : {}),
    ...(op.requestBody ? { requestBody: op.requestBody } : {}),
    responses: op.responses,
  };
}

/** A route as `app.routes` lists it: its documentation is its `detail`. */
export interface DocumentedRoute {
  method: string;
  path: string;
  hooks?: { detail?: unknown };
}

/** The documentation a route carries; a declaration passed on another route than its own is a bug. */
function routeDocOf(route: DocumentedRoute): RouteDoc | null {
  const detail = route.hooks?.detail;
  if (!isRouteDoc(detail)) return null;
  if (detail.method.toUpperCase() !== route.method || detail.path !== route.path) {
    throw new Error(`${route.method} ${route.path} carries the documentation of ${detail.method} ${detail.path}`);
  }
  return detail;
}

export interface DocumentOptions {
  version: string;
  /** The address the document is served from (`https://host[:port]`): its server and token URL. Absent: relative ones. */
  origin?: string;
  examples?: SandboxExamples;
}

/** The document of `routes` (the app's, in the app's order). */
export function openApiDocument(routes: readonly DocumentedRoute[], options: DocumentOptions): Json {
  const context = { examples: options.examples ?? SANDBOX_EXAMPLES, version: options.version };
  const operations: { path: string; method: string; tag: string; op: Operation }[] = [];
  const events: Record<string, Json> = {};
  for (const route of routes) {
    // A route without a declaration is left out; the docs tests fail on it.
    const doc = routeDocOf(route);
    if (doc === null) continue;
    const template = doc.path.replace(/:([^/]+)/g, "{$1}");
    for (const op of doc.operations(context)) {
      operations.push({ path: op.path ?? template, method: doc.method, tag: doc.tags[0], op });
    }
    Object.assign(events, doc.webhooks?.(context));
  }
  // In the order of the tags, and within a tag in the order of the routes.
  const rank = (tag: string) => TAGS.findIndex((t) => t.name === tag);
  operations.sort((a, b) => rank(a.tag) - rank(b.tag));
  const inline: Record<string, Record<string, Json>> = {};
  for (const { path, method, tag, op } of operations) (inline[path] ??= {})[method] = operationObject(op, tag);
  const {
    tree: { paths, webhooks },
    schemas,
  } = hoistNamedSchemas({ paths: inline, webhooks: events });
  return {
    openapi: "3.1.0",
    info: {
      title: "Partner API",
      version: options.version,
      summary: "Properties and leads of a real-estate platform, for partner portals, CRMs and websites",
      description: DESCRIPTION,
      license: { name: "Proprietary: for partners holding API credentials", identifier: "LicenseRef-Proprietary" },
    },
    servers: [{ url: options.origin ?? "/", description: "The server this document came from" }],
    tags: TAGS,
    paths,
    webhooks,
    components: {
      schemas,
      headers: { ...HEADERS, ...FEED_HEADERS, ...TOKEN_HEADERS },
      securitySchemes: securitySchemes(options.origin ?? null),
    },
  };
}
