// OWASP API9:2023 Improper Inventory Management. The app's own route list is the inventory:
// each route is one the behaviour reference (docs/reference/) documents, appears in /openapi.json with its method, and
// answers as documented; any other path is a contract-shaped 404, and a production /metrics
// without its token cannot be told apart from a path that does not exist.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fc from "fast-check";
import { adminOpenApiDocument } from "../../src/modules/admin/openapi.ts";
import { GRUPOZAP_EXAMPLE } from "../../src/modules/inbound/model.ts";
import { hashSecret } from "../../src/security/secrets.ts";
import { errorBodyViolations } from "../fuzz/contract.ts";
import { client, createTestApp, read, type TestApp } from "../helpers/app.ts";
import { LEAD } from "./tenants.ts";

const INBOUND_PASSWORD = "portal-lead-secret";
const portal = client("portal", {
  rateLimitPerMinute: 100_000,
  inbound: { format: "grupozap", username: "vivareal", passwordHash: hashSecret(INBOUND_PASSWORD) },
});
let t: TestApp;
let token = "";
// Webhook targets on this machine only: the test event must reach nothing else.
const receiver = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response(null, { status: 204 }) });
const hook = { url: `http://127.0.0.1:${receiver.port}/hooks`, events: ["lead.created"] };
beforeAll(async () => {
  t = createTestApp({ clients: [portal.entry], webhookTargets: { allowHttp: true, allowPrivateTargets: true } });
  token = await t.token(portal);
});
afterAll(() => {
  t.close();
  receiver.stop(true);
});

type Ids = { property: string; lead: string; webhook: string; webhookToDelete: string };
const json = (method: string, body: unknown): RequestInit => ({
  method,
  headers: { "content-type": "application/json" },
  body: JSON.stringify(body),
});

/** Every route the documents promise, with a request that must succeed and its status. */
const DOCUMENTED: Record<string, (ids: Ids) => { path: string; init?: RequestInit; status: number }> = {
  "GET /health": () => ({ path: "/health", status: 200 }),
  "POST /v1/auth/token": () => ({
    path: "/v1/auth/token",
    init: { method: "POST", headers: { "x-api-key": portal.apiKey, "x-api-secret": portal.secret } },
    status: 200,
  }),
  "GET /v1/fields": () => ({ path: "/v1/fields", status: 200 }),
  "GET /v1/values/:entity/:field": () => ({ path: "/v1/values/leads/status", status: 200 }),
  "GET /v1/properties": () => ({ path: "/v1/properties?fields=id", status: 200 }),
  "GET /v1/properties/:id": ({ property }) => ({ path: `/v1/properties/${property}?fields=id`, status: 200 }),
  "GET /v1/facets/properties": () => ({ path: "/v1/facets/properties?facets=city&q=apartamento", status: 200 }),
  "GET /v1/leads": () => ({ path: "/v1/leads?fields=id", status: 200 }),
  "GET /v1/leads/:id": ({ lead }) => ({ path: `/v1/leads/${lead}?fields=id`, status: 200 }),
  "POST /v1/leads": () => ({
    path: "/v1/leads",
    init: { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(LEAD) },
    status: 201,
  }),
  "PATCH /v1/leads/:id": ({ lead }) => ({
    path: `/v1/leads/${lead}`,
    init: json("PATCH", { status: "IN_SERVICE" }),
    status: 200,
  }),
  "GET /v1/changes": () => ({ path: "/v1/changes?entity=leads", status: 200 }),
  // Leads as portals post them: docs/operators/portal-leads.md.
  "POST /v1/inbound/:clientId": () => ({
    path: "/v1/inbound/portal",
    init: {
      method: "POST",
      headers: { authorization: `Basic ${btoa(`vivareal:${INBOUND_PASSWORD}`)}` },
      body: JSON.stringify(GRUPOZAP_EXAMPLE),
    },
    status: 201,
  }),
  // Webhook subscriptions: docs/reference/behaviour-extensions.md §13.
  "POST /v1/webhooks": () => ({ path: "/v1/webhooks", init: json("POST", hook), status: 201 }),
  "GET /v1/webhooks": () => ({ path: "/v1/webhooks", status: 200 }),
  "GET /v1/webhooks/:id": ({ webhook }) => ({ path: `/v1/webhooks/${webhook}`, status: 200 }),
  "PATCH /v1/webhooks/:id": ({ webhook }) => ({
    path: `/v1/webhooks/${webhook}`,
    init: json("PATCH", { description: "inventory" }),
    status: 200,
  }),
  "DELETE /v1/webhooks/:id": ({ webhookToDelete }) => ({
    path: `/v1/webhooks/${webhookToDelete}`,
    init: { method: "DELETE" },
    status: 204,
  }),
  "POST /v1/webhooks/:id/rotate-secret": ({ webhook }) => ({
    path: `/v1/webhooks/${webhook}/rotate-secret`,
    init: { method: "POST" },
    status: 200,
  }),
  "POST /v1/webhooks/:id/test": ({ webhook }) => ({
    path: `/v1/webhooks/${webhook}/test`,
    init: { method: "POST" },
    status: 200,
  }),
  "GET /v1/webhooks/:id/deliveries": ({ webhook }) => ({ path: `/v1/webhooks/${webhook}/deliveries`, status: 200 }),
  "POST /v1/webhooks/:id/replay": ({ webhook }) => ({
    path: `/v1/webhooks/${webhook}/replay`,
    init: json("POST", { after: 0 }),
    status: 202,
  }),
  // The portal feed: docs/reference/behaviour-extensions.md §17.
  "GET /v1/feeds/vrsync.xml": () => ({ path: "/v1/feeds/vrsync.xml", status: 200 }),
  "HEAD /v1/feeds/vrsync.xml": () => ({ path: "/v1/feeds/vrsync.xml", init: { method: "HEAD" }, status: 200 }),
  "GET /openapi.json": () => ({ path: "/openapi.json", status: 200 }),
  "GET /docs": () => ({ path: "/docs", status: 200 }),
  // The docs page's script: docs/reference/behaviour-extensions.md §12 keeps its assets inside the binary.
  "GET /docs/scalar.js": () => ({ path: "/docs/scalar.js", status: 200 }),
  // Production without a metrics token: 404 by docs/reference/behaviour-extensions.md §12.
  "GET /metrics": () => ({ path: "/metrics", status: 404 }),
};

/** The partners' routes; the admin API's (/admin/…) have their own document, the console's pages none (docs/operators/console.md). */
const routeKeys = () =>
  t.app.routes
    .map((r) => `${r.method} ${r.path}`)
    .filter((key) => !key.includes(" /admin/") && !key.includes(" /console"));
const consoleRouteKeys = () =>
  t.app.routes.map((r) => `${r.method} ${r.path}`).filter((key) => key.includes(" /console"));
const adminRouteKeys = () => t.app.routes.map((r) => `${r.method} ${r.path}`).filter((key) => key.includes(" /admin/"));

describe("API9 improper inventory management", () => {
  test("every route the app serves is a documented one", () => {
    expect(routeKeys().filter((key) => !(key in DOCUMENTED))).toEqual([]);
  });

  test("each route answers as documented", async () => {
    const subscribe = async () =>
      (
        await read(
          await t.request("/v1/webhooks", {
            ...json("POST", hook),
            headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          }),
        )
      ).body.data.id;
    const ids: Ids = {
      property: (await read(await t.get("/v1/properties?fields=id&limit=1", token))).body.data[0].id,
      lead: (await read(await t.get("/v1/leads?fields=id&limit=1", token))).body.data[0].id,
      webhook: await subscribe(),
      webhookToDelete: await subscribe(),
    };
    for (const key of routeKeys()) {
      const { path, init = {}, status } = DOCUMENTED[key]!(ids);
      const response = await t.request(path, {
        ...init,
        headers: { authorization: `Bearer ${token}`, ...init.headers },
      });
      expect({ key, status: response.status }).toEqual({ key, status });
    }
  });

  test("/openapi.json describes exactly the routes served, method for method", async () => {
    expect(routeKeys()).toContain("GET /openapi.json");
    const document = (await read(await t.request("/openapi.json"))).body as {
      paths: Record<string, Record<string, unknown>>;
    };
    const documented = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.keys(methods)
        .filter((m) => ["get", "head", "post", "put", "patch", "delete"].includes(m))
        .map((m) => `${m.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ":$1")}`),
    );
    // The one values route is documented as a path per entity, each with its own fields.
    const routes = routeKeys().flatMap((key) =>
      key === "GET /v1/values/:entity/:field"
        ? ["GET /v1/values/properties/:field", "GET /v1/values/leads/:field"]
        : [key],
    );
    expect(documented.sort()).toEqual(routes.sort());
  });

  test("the admin API's routes are those of its own document, and all 404 on a server without admins", async () => {
    const document = adminOpenApiDocument("http://x");
    const documented = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((m) => `${m.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ":$1")}`),
    );
    expect(
      adminRouteKeys()
        .filter((key) => key !== "GET /admin/openapi.json")
        .sort(),
    ).toEqual(documented.sort());
    for (const key of adminRouteKeys()) {
      const [method, path] = key.split(" ") as [string, string];
      const response = await t.request(path.replace(/:[^/]+/g, "x"), {
        method,
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        ...(method === "GET" || method === "DELETE" ? {} : { body: "{}" }),
      });
      expect({ key, status: response.status }).toEqual({ key, status: 404 });
    }
    expect(consoleRouteKeys().length).toBeGreaterThan(0);
    for (const key of consoleRouteKeys()) {
      const path = key.split(" ")[1]!.replace(/:[^/]+/g, "x");
      expect({ key, status: (await t.request(path)).status }).toEqual({ key, status: 404 });
    }
  });

  test("any other path is a 404 in the contract's shape", async () => {
    const near = [
      "/v2/leads",
      "/V1/leads",
      "/v1/leads/x/y",
      "/v1/admin",
      "/v1/clients",
      "/v1/auth/refresh",
      "/v1/auth/token/x",
      "/.env",
      "/.git/config",
      "/debug",
      "/swagger.json",
      "/graphql",
      "/server-status",
      "/v1",
      "/v1/",
      "/api/v1/leads",
      "/health/x",
      "/metrics/x",
      "/docs/../config.json",
    ];
    const segment = fc.stringMatching(/^[A-Za-z0-9._~-]{1,12}$/);
    const random = fc.sample(
      fc.array(segment, { minLength: 1, maxLength: 4 }).map((s) => `/${s.join("/")}`),
      { numRuns: 150, seed: 9 },
    );
    const served = t.app.routes.map((r) => new RegExp(`^${r.path.replace(/:[^/]+/g, "[^/]+")}/?$`));
    for (const path of [...near, ...random].filter(
      (p) => !served.some((re) => re.test(new URL(p, "http://x").pathname)),
    )) {
      const response = await t.request(path, { headers: { authorization: `Bearer ${token}` } });
      const body = await response.text();
      expect({
        path,
        status: response.status,
        problems: errorBodyViolations(response.status, response.headers, body),
      }).toEqual({ path, status: 404, problems: [] });
      expect(JSON.parse(body).code).toBe("NOT_FOUND");
    }
  });

  test("a production /metrics without its token answers GET exactly like a missing path", async () => {
    const metrics = await t.request("/metrics");
    const missing = await t.request("/no-such-path");
    expect({ status: metrics.status, body: await metrics.text() }).toEqual({
      status: missing.status,
      body: await missing.text(),
    });
  });

  // Known gap, not fixed here (src/app.ts and src/modules/metrics are another engineer's work in
  // progress): POST/DELETE/PUT /metrics answer 405 with `Allow: GET`, so the hidden endpoint's
  // existence shows. Expected: the same 404 as any unknown path while /metrics is hidden.
  test("a production /metrics without its token answers every method like a missing path", async () => {
    for (const method of ["POST", "PUT", "DELETE", "PATCH", "OPTIONS"]) {
      const response = await t.request("/metrics", { method });
      expect({ method, status: response.status, allow: response.headers.get("allow") }).toEqual({
        method,
        status: 404,
        allow: null,
      });
    }
  });
});
