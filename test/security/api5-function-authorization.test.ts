// OWASP API5:2023 Broken Function Level Authorization. Every /v1 route but the token endpoint
// runs the guard; there is no write route for properties, no delete of leads, and the one update
// of a lead (PATCH, the funnel) changes nothing but status and priority under any method or
// override; the operator's /metrics takes its own token, never a partner's. The one route a
// token does not open, portals' lead posts, takes only its client's Basic credentials.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { hashSecret } from "../../src/security/secrets.ts";
import { client, createTestApp, read, type TestApp } from "../helpers/app.ts";

const portal = client("portal", { rateLimitPerMinute: 100_000 });
const INBOUND_PASSWORD = "portal-lead-password";
const disabled = client("disabled", {
  enabled: false,
  inbound: { format: "grupozap", passwordHash: hashSecret(INBOUND_PASSWORD) },
});
const INBOUND = "/v1/inbound/:clientId";
const METRICS_TOKEN = "metrics-token-0123456789abcdef";
let t: TestApp;
let token = "";
beforeAll(async () => {
  t = createTestApp({ clients: [portal.entry, disabled.entry] });
  token = await t.token(portal);
});
afterAll(() => t.close());

/** A concrete path for a route pattern (ids need not exist: the guard answers first). */
const concrete = (path: string) =>
  path
    .replace(":entity", "leads")
    .replace(":field", "status")
    .replace(":id", crypto.randomUUID())
    .replace(":clientId", disabled.id);

describe("API5 broken function level authorization", () => {
  test("every /v1 route except the token endpoint refuses a missing token, and a disabled client", async () => {
    const guarded = t.app.routes.filter((r) => r.path.startsWith("/v1/") && r.path !== "/v1/auth/token");
    expect(guarded.length).toBeGreaterThanOrEqual(8);
    // The disabled client's token is minted before the switch, as a live token would be.
    t.reload({ clients: [portal.entry, { ...disabled.entry, enabled: true }] });
    const stale = await t.token(disabled);
    t.reload({ clients: [portal.entry, disabled.entry] });
    for (const route of guarded) {
      const init = {
        method: route.method,
        headers: { "content-type": "application/json" },
        ...(route.method === "POST" ? { body: "{}" } : {}),
      };
      const none = await read(
        await t.request(concrete(route.path), { ...init, peer: `192.0.2.${guarded.indexOf(route) + 1}` }),
      );
      // A portal's lead post takes Basic credentials, not a token: its 401 says so.
      const refused = route.path === INBOUND ? "INVALID_API_SECRET" : "INVALID_TOKEN";
      expect({ route: route.path, status: none.status, code: none.body.code }).toEqual({
        route: route.path,
        status: 401,
        code: refused,
      });
      const credentials = route.path === INBOUND ? `Basic ${btoa(`vivareal:${INBOUND_PASSWORD}`)}` : `Bearer ${stale}`;
      const off = await read(
        await t.request(concrete(route.path), { ...init, headers: { ...init.headers, authorization: credentials } }),
      );
      expect({ route: route.path, status: off.status, code: off.body.code }).toEqual({
        route: route.path,
        status: 403,
        code: "API_DISABLED",
      });
    }
  });

  test("no method writes properties or changes a lead's contact, whatever the method or override", async () => {
    const lead = (await read(await t.get("/v1/leads?fields=id,name&limit=1", token))).body.data[0];
    const property = (await read(await t.get("/v1/properties?fields=id,title&limit=1", token))).body.data[0];
    const auth = { authorization: `Bearer ${token}`, "content-type": "application/json" };
    for (const method of ["PUT", "PATCH", "DELETE", "POST"]) {
      for (const path of [`/v1/properties/${property.id}`, `/v1/leads/${lead.id}`, "/v1/properties"]) {
        const response = await t.request(path, {
          method,
          headers: auth,
          body: JSON.stringify({ name: "hijacked", title: "hijacked" }),
        });
        // PATCH of a lead is the funnel's route: it refuses every key but status and priority.
        const expected = method === "PATCH" && path.startsWith("/v1/leads/") ? 400 : 405;
        expect({ method, path, status: response.status }).toEqual({ method, path, status: expected });
      }
    }
    for (const override of ["DELETE", "PUT", "PATCH"]) {
      const headers = {
        ...auth,
        "x-http-method-override": override,
        "x-method-override": override,
        "x-http-method": override,
      };
      // The headers are ignored: a plain read.
      expect((await t.request(`/v1/leads/${lead.id}?fields=id`, { headers })).status).toBe(200);
      // A `_method` parameter is no override either: the read refuses it as unknown (docs/reference/behaviour.md §8).
      const answer = await read(await t.request(`/v1/leads/${lead.id}?fields=id&_method=${override}`, { headers }));
      expect({ status: answer.status, error: answer.body.error }).toEqual({
        status: 400,
        error: "_method: unknown parameter",
      });
    }
    expect((await read(await t.get(`/v1/leads/${lead.id}?fields=name`, token))).body.data.name).toBe(lead.name);
    expect((await read(await t.get(`/v1/properties/${property.id}?fields=title`, token))).body.data.title).toBe(
      property.title,
    );
  });

  test("/metrics in production: 404 without its token, with a wrong one and with a partner's token; 200 with its own", async () => {
    t.reload({ metrics: { token: METRICS_TOKEN } });
    try {
      for (const authorization of [undefined, "Bearer wrong-token-0123456789", `Bearer ${token}`, METRICS_TOKEN]) {
        const response = await t.request("/metrics", authorization ? { headers: { authorization } } : {});
        expect(response.status).toBe(404);
      }
      expect((await t.request("/metrics", { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).status).toBe(200);
    } finally {
      t.reload({});
    }
  });
});
