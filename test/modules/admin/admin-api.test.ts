// The admin API's rules (docs/operators/console.md), in process with an injected clock:
// set-up, sign-in, lockout, sessions, CSRF, roles, tokens, partners and the audit log.
import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { createAdmin, LOCK_MS, SESSION_IDLE_MS, SESSION_MAX_MS } from "../../../src/modules/admin/service.ts";
import { totpCode } from "../../../src/modules/admin/totp.ts";
import { createTestApp, type TestApp } from "../../helpers/app.ts";
import { type ConsoleApp, consoleApp, jsonInit, LOOPBACK, PASSWORD } from "./helpers.ts";

let t: ConsoleApp | TestApp | null = null;
afterEach(() => {
  t?.close();
  t = null;
});

async function body(response: Response) {
  return (await response.json()) as { data?: any; meta?: unknown; code?: string; error?: string; details?: unknown };
}

setDefaultTimeout(30_000);

describe("a server without admins", () => {
  test("answers 404 on the admin API and its document, as before the console", async () => {
    t = consoleApp();
    for (const path of ["/admin/v1/partners", "/admin/openapi.json"]) {
      const response = await t.request(path, { peer: LOOPBACK });
      expect(response.status).toBe(404);
      expect((await body(response)).code).toBe("NOT_FOUND");
    }
    const signIn = await t.request("/admin/v1/sessions", {
      ...jsonInit("POST", { email: "a@example.com", password: "x", code: "1" }),
      peer: LOOPBACK,
    });
    expect(signIn.status).toBe(404);
  });

  test("without a control database at all, the admin API is not there", async () => {
    t = createTestApp();
    expect((await t.request("/admin/v1/partners")).status).toBe(404);
  });
});

describe("set-up", () => {
  test("a password among common ones or too short is refused; the link works once", async () => {
    const c = consoleApp();
    t = c;
    const { token } = createAdmin(c.store, { email: "owner@example.com", role: "owner", databases: [] }, c.clock.now());
    for (const password of ["short-one", "passwordpassword", "123456789012"]) {
      const r = await c.request("/admin/v1/setup", { ...jsonInit("POST", { token, password }), peer: LOOPBACK });
      expect(r.status).toBe(400);
      expect((await body(r)).code).toBe("VALIDATION_ERROR");
    }
    const setup = await c.request("/admin/v1/setup", {
      ...jsonInit("POST", { token, password: PASSWORD }),
      peer: LOOPBACK,
    });
    expect(setup.status).toBe(200);
    const data = (await body(setup)).data;
    expect(data.otpauthUri).toStartWith("otpauth://totp/");
    expect(data.otpauthUri).toContain(`secret=${data.totpSecret}`);
    const wrong = await c.request("/admin/v1/setup/confirm", {
      ...jsonInit("POST", { token, code: "000000" }),
      peer: LOOPBACK,
    });
    expect(wrong.status).toBe(400);
    const confirm = await c.request("/admin/v1/setup/confirm", {
      ...jsonInit("POST", { token, code: await c.code(data.totpSecret) }),
      peer: LOOPBACK,
    });
    expect(confirm.status).toBe(200);
    // A replayed link is spent.
    for (const path of ["/admin/v1/setup", "/admin/v1/setup/confirm"]) {
      const replay = await c.request(path, {
        ...jsonInit("POST", { token, password: PASSWORD, code: await c.code(data.totpSecret) }),
        peer: LOOPBACK,
      });
      expect(replay.status).toBe(401);
      expect((await body(replay)).code).toBe("INVALID_SETUP_LINK");
    }
  });

  test("a link older than 24 hours is refused", async () => {
    const c = consoleApp();
    t = c;
    const { token } = createAdmin(c.store, { email: "late@example.com", role: "admin", databases: [] }, c.clock.now());
    c.clock.advance(24 * 3600_000 + 1);
    const r = await c.request("/admin/v1/setup", {
      ...jsonInit("POST", { token, password: PASSWORD }),
      peer: LOOPBACK,
    });
    expect(r.status).toBe(401);
    expect((await body(r)).code).toBe("INVALID_SETUP_LINK");
  });

  test("over plain HTTP from another machine, set-up and sign-in are refused", async () => {
    const c = consoleApp();
    t = c;
    const { token } = createAdmin(c.store, { email: "far@example.com", role: "admin", databases: [] }, c.clock.now());
    const r = await c.request("/admin/v1/setup", {
      ...jsonInit("POST", { token, password: PASSWORD }),
      peer: "198.51.100.7",
    });
    expect(r.status).toBe(403);
    expect((await body(r)).code).toBe("HTTPS_REQUIRED");
  });
});

describe("sign-in", () => {
  test("each wrong part answers the same 401, and the right three sign in with the contract's cookie", async () => {
    const c = consoleApp();
    t = c;
    const owner = await c.admin("owner@example.com", "owner");
    const attempts = [
      { email: "nobody@example.com", password: PASSWORD, code: await totpCode(owner.secret, c.clock.now()) },
      { email: owner.email, password: "wrong password 123", code: await totpCode(owner.secret, c.clock.now()) },
      { email: owner.email, password: PASSWORD, code: "000000" },
      { email: owner.email, password: PASSWORD },
      {},
    ];
    const answers = new Set<string>();
    for (const attempt of attempts) {
      const r = await c.request("/admin/v1/sessions", { ...jsonInit("POST", attempt), peer: LOOPBACK });
      expect(r.status).toBe(401);
      expect(r.headers.get("set-cookie")).toBeNull();
      answers.add(JSON.stringify(await body(r)));
    }
    expect([...answers]).toEqual([
      JSON.stringify({ error: "Invalid e-mail, password or code", code: "INVALID_CREDENTIALS" }),
    ]);
    const session = await c.signIn(owner.email, owner.secret);
    const attributes = session.setCookie.split(";").map((s) => s.trim());
    expect(attributes[0]).toStartWith("__Host-partner-api-session=");
    expect(attributes).toContain("HttpOnly");
    expect(attributes).toContain("Secure");
    expect(attributes).toContain("SameSite=Strict");
    expect(attributes).toContain("Path=/");
    expect(attributes.some((a) => a.toLowerCase().startsWith("domain"))).toBe(false);
    const me = await session.call("/admin/v1/me");
    expect((await body(me)).data).toMatchObject({ kind: "session", name: owner.email, role: "owner", databases: [] });
  });

  test("a code is accepted once", async () => {
    const c = consoleApp();
    t = c;
    const owner = await c.admin("owner@example.com", "owner");
    const code = await c.code(owner.secret);
    const first = await c.request("/admin/v1/sessions", {
      ...jsonInit("POST", { email: owner.email, password: PASSWORD, code }),
      peer: LOOPBACK,
    });
    expect(first.status).toBe(201);
    const again = await c.request("/admin/v1/sessions", {
      ...jsonInit("POST", { email: owner.email, password: PASSWORD, code }),
      peer: LOOPBACK,
    });
    expect(again.status).toBe(401);
  });

  test("ten failures lock the account for 15 minutes, even with everything right, then it opens", async () => {
    const c = consoleApp();
    t = c;
    const owner = await c.admin("owner@example.com", "owner");
    for (let i = 0; i < 10; i++) {
      const peer = `198.51.100.${i + 1}`; // spread over addresses: the account's own count locks it
      const r = await c.request("/admin/v1/sessions", {
        ...jsonInit("POST", { email: owner.email, password: "not the password!", code: "123456" }),
        peer,
        headers: { "x-forwarded-proto": "https" },
      });
      expect(r.status).toBe(403); // plain http from afar: refused before any check
    }
    // From the loopback address, where the console may be used over http:
    for (let i = 0; i < 10; i++) {
      const r = await c.request("/admin/v1/sessions", {
        ...jsonInit("POST", { email: owner.email, password: "not the password!", code: "123456" }),
        peer: LOOPBACK,
      });
      expect(r.status).toBe(401);
    }
    const locked = await c.request("/admin/v1/sessions", {
      ...jsonInit("POST", { email: owner.email, password: PASSWORD, code: await c.code(owner.secret) }),
      peer: LOOPBACK,
    });
    expect(locked.status).toBe(401);
    expect((await body(locked)).code).toBe("INVALID_CREDENTIALS");
    c.clock.advance(LOCK_MS);
    await c.signIn(owner.email, owner.secret);
  });

  test("ten failures from one address lock that address for every account", async () => {
    const c = consoleApp({ trustedProxies: ["10.0.0.1"] });
    t = c;
    const owner = await c.admin("owner@example.com", "owner");
    const viaProxy = (forwardedFor: string, bodyOf: unknown) =>
      c.request("/admin/v1/sessions", {
        ...jsonInit("POST", bodyOf, { "x-forwarded-for": forwardedFor, "x-forwarded-proto": "https" }),
        peer: "10.0.0.1",
      });
    for (let i = 0; i < 10; i++) {
      const r = await viaProxy("198.51.100.66", {
        email: `guess${i}@example.com`,
        password: "guessing-123456",
        code: "1",
      });
      expect(r.status).toBe(401);
    }
    const fromThere = await viaProxy("198.51.100.66", {
      email: owner.email,
      password: PASSWORD,
      code: await c.code(owner.secret),
    });
    expect(fromThere.status).toBe(401);
    const elsewhere = await viaProxy("198.51.100.67", {
      email: owner.email,
      password: PASSWORD,
      code: await c.code(owner.secret),
    });
    expect(elsewhere.status).toBe(201);
  });
});

describe("sessions", () => {
  test("30 minutes idle end a session; activity keeps it up to 12 hours", async () => {
    const c = consoleApp();
    t = c;
    const owner = await c.admin("owner@example.com", "owner");
    const idle = await c.signIn(owner.email, owner.secret);
    c.clock.advance(SESSION_IDLE_MS + 1);
    expect((await idle.call("/admin/v1/me")).status).toBe(401);
    const busy = await c.signIn(owner.email, owner.secret);
    const started = c.clock.now();
    while (c.clock.now() - started < SESSION_MAX_MS - 20 * 60_000) {
      c.clock.advance(20 * 60_000);
      expect((await busy.call("/admin/v1/me")).status).toBe(200);
    }
    c.clock.advance(25 * 60_000);
    expect((await busy.call("/admin/v1/me")).status).toBe(401);
  });

  test("signing out and an owner's revocation end sessions at once", async () => {
    const c = consoleApp();
    t = c;
    const owner = await c.admin("owner@example.com", "owner");
    const other = await c.admin("viewer@example.com", "viewer");
    const mine = await c.signIn(owner.email, owner.secret);
    const theirs = await c.signIn(other.email, other.secret);
    const admins = (await body(await mine.call("/admin/v1/admins"))).data as { id: number; email: string }[];
    const viewerId = admins.find((a) => a.email === other.email)!.id;
    expect((await mine.call(`/admin/v1/admins/${viewerId}/sessions`, { method: "DELETE" })).status).toBe(204);
    expect((await theirs.call("/admin/v1/me")).status).toBe(401);
    const out = await mine.call("/admin/v1/sessions/current", { method: "DELETE" });
    expect(out.status).toBe(204);
    expect(out.headers.get("set-cookie")).toContain("Max-Age=0");
    expect((await mine.call("/admin/v1/me")).status).toBe(401);
  });

  test("a state-changing call without the session's CSRF token, or with a stale one, changes nothing", async () => {
    const c = consoleApp();
    t = c;
    const owner = await c.admin("owner@example.com", "owner");
    const old = await c.signIn(owner.email, owner.secret);
    const session = await c.signIn(owner.email, owner.secret);
    const create = jsonInit("POST", {
      name: "Site",
      contactEmail: "dev@site.example",
      useCase: "website",
      database: "main",
    });
    for (const csrf of [false, old.csrf, "x"] as const) {
      const r = await session.call("/admin/v1/partners", { ...create, csrf });
      expect(r.status).toBe(403);
      expect((await body(r)).code).toBe("INVALID_CSRF_TOKEN");
    }
    expect(c.store.partners()).toHaveLength(0);
    expect((await session.call("/admin/v1/partners", create)).status).toBe(201);
  });
});

describe("roles and tokens", () => {
  test("a viewer reads and changes nothing", async () => {
    const c = consoleApp();
    t = c;
    const owner = await c.admin("owner@example.com", "owner");
    const viewer = await c.admin("viewer@example.com", "viewer");
    const o = await c.signIn(owner.email, owner.secret);
    const made = await body(
      await o.call(
        "/admin/v1/partners",
        jsonInit("POST", {
          id: "site",
          name: "Site",
          contactEmail: "d@s.example",
          useCase: "website",
          database: "main",
        }),
      ),
    );
    expect(made.data.partner.id).toBe("site");
    const v = await c.signIn(viewer.email, viewer.secret);
    expect((await v.call("/admin/v1/partners")).status).toBe(200);
    const before = JSON.stringify(c.store.partners());
    const tries: [string, RequestInit][] = [
      [
        "/admin/v1/partners",
        jsonInit("POST", { name: "X", contactEmail: "x@x.example", useCase: "website", database: "main" }),
      ],
      ["/admin/v1/partners/site", jsonInit("PATCH", { enabled: false })],
      ["/admin/v1/partners/site/rotate-secret", jsonInit("POST", { overlap: "none" })],
      ["/admin/v1/partners/site", { method: "DELETE" }],
      ["/admin/v1/tokens", jsonInit("POST", { name: "ci", role: "viewer" })],
      ["/admin/v1/admins", jsonInit("POST", { email: "n@example.com", role: "viewer" })],
    ];
    for (const [path, init] of tries) {
      const r = await v.call(path, init);
      expect(r.status).toBe(403);
      expect((await body(r)).code).toBe("INSUFFICIENT_ROLE");
    }
    expect((await v.call("/admin/v1/admins")).status).toBe(403);
    expect(JSON.stringify(c.store.partners())).toBe(before);
    expect(c.store.tokens()).toHaveLength(0);
  });

  test("admin tokens serve the admin API only, partner tokens never serve it", async () => {
    const c = consoleApp();
    t = c;
    const owner = await c.admin("owner@example.com", "owner");
    const o = await c.signIn(owner.email, owner.secret);
    const made = await o.call("/admin/v1/tokens", jsonInit("POST", { name: "automation", role: "admin" }));
    expect(made.status).toBe(201);
    const { id, token } = (await body(made)).data;
    expect(token).toStartWith("pa_admin_");
    const listed = await body(await o.call("/admin/v1/tokens"));
    expect(JSON.stringify(listed)).not.toContain(token);
    // The token works without CSRF, and its changes are audited under its name.
    const created = await c.request(
      "/admin/v1/partners",
      jsonInit(
        "POST",
        { id: "crm", name: "CRM", contactEmail: "it@crm.example", useCase: "crm", database: "main" },
        { authorization: `Bearer ${token}` },
      ),
    );
    expect(created.status).toBe(201);
    // An admin token on a partner route, a partner token on an admin route: both refused.
    expect((await c.get("/v1/properties", token)).status).toBe(401);
    const partner = await c.token({ id: "portal", apiKey: "pk_live_portal_key", secret: "sk_live_portal_secret" });
    const crossed = await c.get("/admin/v1/partners", partner);
    expect(crossed.status).toBe(401);
    expect((await body(crossed)).code).toBe("ADMIN_AUTH_REQUIRED");
    // Revoked, it stops.
    expect((await o.call(`/admin/v1/tokens/${id}`, { method: "DELETE" })).status).toBe(204);
    expect((await c.get("/admin/v1/partners", token)).status).toBe(401);
    const audit = await body(await o.call("/admin/v1/audit?action=partner.create"));
    expect(audit.data[0].admin).toBe(`token:${id}`);
    // A viewer token cannot be promoted by its maker.
    const viewerToken = (await body(await o.call("/admin/v1/tokens", jsonInit("POST", { name: "ro", role: "viewer" }))))
      .data.token;
    const promote = await c.request(
      "/admin/v1/tokens",
      jsonInit("POST", { name: "x", role: "owner" }, { authorization: `Bearer ${viewerToken}` }),
    );
    expect(promote.status).toBe(403);
  });
});

describe("partners", () => {
  test("each use case fills its preset; the secret works once shown, and the config's clients are read-only", async () => {
    const c = consoleApp();
    t = c;
    const owner = await c.admin("owner@example.com", "owner");
    const o = await c.signIn(owner.email, owner.secret);
    const expected = {
      portal: { scopes: ["properties:read", "feed:read", "leads:create", "leads:read:own", "webhooks"], rate: 600 },
      website: { scopes: ["properties:read", "leads:create", "leads:read:own"], rate: 300 },
      crm: { scopes: ["properties:read", "leads:read", "leads:update", "webhooks"], rate: 1200 },
      "portal-leads": { scopes: ["leads:create"], rate: 120 },
    };
    for (const [useCase, want] of Object.entries(expected)) {
      const r = await o.call(
        "/admin/v1/partners",
        jsonInit("POST", {
          id: `p-${useCase}`,
          name: `P ${useCase}`,
          contactEmail: "a@b.example",
          useCase,
          database: "main",
        }),
      );
      expect(r.status).toBe(201);
      const data = (await body(r)).data;
      expect(data.partner.scopes.sort()).toEqual([...want.scopes].sort());
      expect(data.partner.rateLimitPerMinute).toBe(want.rate);
      expect(data.apiSecret).toStartWith("sk_live_");
      expect(data.message["pt-BR"]).toContain(data.apiSecret);
      expect(data.message.en).toContain(data.apiKey);
      if (useCase === "portal-leads") {
        expect(data.inbound.url).toEndWith("/v1/inbound/p-portal-leads");
        const lead = await c.request("/v1/inbound/p-portal-leads", {
          method: "POST",
          headers: {
            authorization: `Basic ${btoa(`${data.inbound.username}:${data.inbound.password}`)}`,
            "content-type": "application/json",
          },
          body: "{}",
        });
        expect(lead.status).not.toBe(401);
      } else {
        const token = await c.token({ id: data.partner.id, apiKey: data.apiKey, secret: data.apiSecret });
        const props = await c.get("/v1/properties?fields=id&limit=1", token);
        expect(props.status).toBe(useCase === "portal-leads" ? 403 : 200);
        expect(props.headers.get("x-ratelimit-limit")).toBe(String(want.rate));
      }
    }
    const other = await o.call(
      "/admin/v1/partners",
      jsonInit("POST", { name: "Other", contactEmail: "a@b.example", useCase: "other", database: "main" }),
    );
    expect(other.status).toBe(400);
    const list = (await body(await o.call("/admin/v1/partners"))).data as { id: string; source: string }[];
    expect(list.find((p) => p.id === "portal")?.source).toBe("config");
    expect(list.filter((p) => p.source === "console")).toHaveLength(4);
    const readOnly = await o.call("/admin/v1/partners/portal", jsonInit("PATCH", { enabled: false }));
    expect(readOnly.status).toBe(409);
    expect((await body(readOnly)).code).toBe("READ_ONLY");
    expect((await o.call("/admin/v1/partners/portal", { method: "DELETE" })).status).toBe(409);
  });

  test("an id made from the name keeps its letters, accents dropped", async () => {
    const c = consoleApp();
    t = c;
    const owner = await c.admin("owner@example.com", "owner");
    const o = await c.signIn(owner.email, owner.secret);
    const made = await o.call(
      "/admin/v1/partners",
      jsonInit("POST", { name: "Imobiliária Ação", contactEmail: "a@b.example", useCase: "website", database: "main" }),
    );
    expect((await body(made)).data.partner.id).toMatch(/^imobiliaria-acao-[a-z0-9]{4}$/);
  });

  test("hostile input gets the contract's errors and changes nothing", async () => {
    const c = consoleApp();
    t = c;
    const owner = await c.admin("owner@example.com", "owner");
    const o = await c.signIn(owner.email, owner.secret);
    const base = { name: "Site", contactEmail: "a@b.example", useCase: "website", database: "main" };
    const cases: [unknown, number, string][] = [
      [{ ...base, name: "x".repeat(121) }, 400, "VALIDATION_ERROR"],
      [{ ...base, useCase: "spaceship" }, 400, "VALIDATION_ERROR"],
      [{ ...base, allowedIps: ["10.0.0.0/33"] }, 400, "VALIDATION_ERROR"],
      [{ ...base, allowedIps: ["not-an-ip"] }, 400, "VALIDATION_ERROR"],
      [{ ...base, database: "nowhere" }, 400, "VALIDATION_ERROR"],
      [{ ...base, scopes: ["root"] }, 400, "VALIDATION_ERROR"],
      [{ ...base, admin: true }, 400, "VALIDATION_ERROR"],
      [{ ...base, contactEmail: "<script>" }, 400, "VALIDATION_ERROR"],
      [{ ...base, rateLimitPerMinute: -1 }, 400, "VALIDATION_ERROR"],
      [{ ...base, id: "portal" }, 409, "ALREADY_EXISTS"],
    ];
    for (const [input, status, code] of cases) {
      const r = await o.call("/admin/v1/partners", jsonInit("POST", input));
      expect(r.status).toBe(status);
      expect((await body(r)).code).toBe(code);
    }
    const huge = await o.call("/admin/v1/partners", jsonInit("POST", { ...base, name: "x".repeat(70_000) }));
    expect(huge.status).toBe(413);
    expect(c.store.partners()).toHaveLength(0);
    // A script in a name is kept as text (the console escapes it).
    const script = "<script>alert(1)</script>";
    const made = await o.call("/admin/v1/partners", jsonInit("POST", { ...base, name: script }));
    expect(made.status).toBe(201);
    expect(made.headers.get("content-type")).toStartWith("application/json");
    expect((await body(made)).data.partner.name).toBe(script);
  });

  test("rotation keeps the old secret and its tokens for the overlap, then ends them", async () => {
    const c = consoleApp();
    t = c;
    const owner = await c.admin("owner@example.com", "owner");
    const o = await c.signIn(owner.email, owner.secret);
    const made = (
      await body(
        await o.call(
          "/admin/v1/partners",
          jsonInit("POST", {
            id: "site",
            name: "Site",
            contactEmail: "a@b.example",
            useCase: "website",
            database: "main",
          }),
        ),
      )
    ).data;
    const old = { id: "site", apiKey: made.apiKey, secret: made.apiSecret };
    const oldToken = await c.token(old);
    const rotated = await o.call("/admin/v1/partners/site/rotate-secret", jsonInit("POST", { overlap: "1h" }));
    expect(rotated.status).toBe(200);
    const { apiSecret, previousValidUntil } = (await body(rotated)).data;
    expect(Date.parse(previousValidUntil)).toBe(c.clock.now() + 3600_000);
    const fresh = { ...old, secret: apiSecret };
    expect((await c.get("/v1/properties?fields=id&limit=1", oldToken)).status).toBe(200);
    const duringOverlap = await c.token(old);
    expect((await c.get("/v1/properties?fields=id&limit=1", await c.token(fresh))).status).toBe(200);
    c.clock.advance(3600_000);
    for (const token of [oldToken, duringOverlap])
      expect((await c.get("/v1/properties?fields=id&limit=1", token)).status).toBe(401);
    const again = await c.request("/v1/auth/token", {
      method: "POST",
      headers: { "x-api-key": old.apiKey, "x-api-secret": old.secret },
    });
    expect(again.status).toBe(401);
    const newToken = await c.token(fresh);
    expect((await c.get("/v1/properties?fields=id&limit=1", newToken)).status).toBe(200);
    // No overlap: the old secret's tokens end at once (an hour idle ended the session: sign in again).
    expect((await o.call("/admin/v1/me")).status).toBe(401);
    const o2 = await c.signIn(owner.email, owner.secret);
    expect((await o2.call("/admin/v1/partners/site/rotate-secret", jsonInit("POST", { overlap: "none" }))).status).toBe(
      200,
    );
    expect((await c.get("/v1/properties?fields=id&limit=1", newToken)).status).toBe(401);
    expect((await o2.call("/admin/v1/partners/site/rotate-secret", jsonInit("POST", { overlap: "2h" }))).status).toBe(
      400,
    );
  });

  test("a portal that pushes leads gets a new Basic password at rotation, the old one kept for the overlap", async () => {
    const c = consoleApp();
    t = c;
    const owner = await c.admin("owner@example.com", "owner");
    const o = await c.signIn(owner.email, owner.secret);
    const made = (
      await body(
        await o.call(
          "/admin/v1/partners",
          jsonInit("POST", {
            id: "zap",
            name: "ZAP",
            contactEmail: "a@zap.example",
            useCase: "portal-leads",
            database: "main",
          }),
        ),
      )
    ).data;
    const post = (password: string) =>
      c.request("/v1/inbound/zap", {
        method: "POST",
        headers: { authorization: `Basic ${btoa(`zap:${password}`)}`, "content-type": "application/json" },
        body: "{}",
      });
    const old = made.inbound.password as string;
    expect((await post(old)).status).not.toBe(401);
    const rotation = await o.call("/admin/v1/partners/zap/rotate-secret", jsonInit("POST", { overlap: "24h" }));
    const rotated = (await body(rotation)).data;
    expect({ status: rotation.status, rotated }).toMatchObject({ status: 200 });
    expect(rotated.inbound.username).toBe("zap");
    expect(rotated.inbound.password).not.toBe(old);
    expect((await post(old)).status).not.toBe(401);
    expect((await post(rotated.inbound.password)).status).not.toBe(401);
    c.clock.advance(24 * 3600_000);
    expect((await post(old)).status).toBe(401);
    expect((await post(rotated.inbound.password)).status).not.toBe(401);
    expect((await post("guess")).status).toBe(401);
  });

  test("disabling and deleting end the partner's tokens at once, in a sibling process too", async () => {
    const c = consoleApp();
    t = c;
    const owner = await c.admin("owner@example.com", "owner");
    const o = await c.signIn(owner.email, owner.secret);
    const made = (
      await body(
        await o.call(
          "/admin/v1/partners",
          jsonInit("POST", {
            id: "site",
            name: "Site",
            contactEmail: "a@b.example",
            useCase: "website",
            database: "main",
          }),
        ),
      )
    ).data;
    const token = await c.token({ id: "site", apiKey: made.apiKey, secret: made.apiSecret });
    expect((await c.get("/v1/properties?fields=id&limit=1", token)).status).toBe(200);
    expect((await o.call("/admin/v1/partners/site", jsonInit("PATCH", { enabled: false }))).status).toBe(200);
    const disabled = await c.get("/v1/properties?fields=id&limit=1", token);
    expect(disabled.status).toBe(403);
    expect((await body(disabled)).code).toBe("API_DISABLED");
    await o.call("/admin/v1/partners/site", jsonInit("PATCH", { enabled: true }));
    expect((await c.get("/v1/properties?fields=id&limit=1", token)).status).toBe(200);
    expect((await o.call("/admin/v1/partners/site", { method: "DELETE" })).status).toBe(204);
    expect((await c.get("/v1/properties?fields=id&limit=1", token)).status).toBe(401);
  });
});

describe("the audit log", () => {
  test("names every sign-in and action, newest first, with no secret or password in it", async () => {
    const c = consoleApp();
    t = c;
    const owner = await c.admin("owner@example.com", "owner");
    await c.request("/admin/v1/sessions", {
      ...jsonInit("POST", { email: owner.email, password: "wrong-password-1", code: "1" }),
      peer: LOOPBACK,
    });
    const o = await c.signIn(owner.email, owner.secret);
    const made = (
      await body(
        await o.call(
          "/admin/v1/partners",
          jsonInit("POST", {
            id: "site",
            name: "Site",
            contactEmail: "a@b.example",
            useCase: "website",
            database: "main",
          }),
        ),
      )
    ).data;
    const rotated = (
      await body(await o.call("/admin/v1/partners/site/rotate-secret", jsonInit("POST", { overlap: "24h" })))
    ).data;
    await o.call("/admin/v1/partners/site", jsonInit("PATCH", { rateLimitPerMinute: 50 }));
    const token = (await body(await o.call("/admin/v1/tokens", jsonInit("POST", { name: "ci", role: "viewer" })))).data
      .token;
    const page = await body(await o.call("/admin/v1/audit?limit=100"));
    const actions = (page.data as { action: string }[]).map((e) => e.action);
    expect(actions).toEqual([
      "token.create",
      "partner.update",
      "partner.rotate-secret",
      "partner.create",
      "sign-in",
      "sign-in.failed",
      "admin.setup.confirm",
      "admin.setup.password",
    ]);
    expect(page.meta).toEqual({ page: 1, limit: 100, total: 8, totalPages: 1 });
    const update = (page.data as any[]).find((e) => e.action === "partner.update");
    expect(update).toMatchObject({
      admin: owner.email,
      ip: LOOPBACK,
      target: "site",
      changes: { rateLimitPerMinute: { from: 300, to: 50 } },
    });
    const everything = new TextDecoder().decode(
      Bun.file(c.store.path).size > 0 ? new Uint8Array(await Bun.file(c.store.path).arrayBuffer()) : new Uint8Array(),
    );
    const exported = await (await o.call("/admin/v1/audit/export")).text();
    for (const secret of [made.apiSecret, rotated.apiSecret, token, PASSWORD, "wrong-password-1", o.csrf]) {
      expect(JSON.stringify(page)).not.toContain(secret);
      expect(exported).not.toContain(secret);
      expect(everything).not.toContain(secret);
    }
    expect(exported.trim().split("\n")).toHaveLength(8);
    const filtered = await body(await o.call(`/admin/v1/audit?action=sign-in&admin=${owner.email}`));
    expect(filtered.data).toHaveLength(1);
    expect((await o.call("/admin/v1/audit?since=yesterday")).status).toBe(400);
  });
});

describe("reloading the config file", () => {
  test("a SIGHUP that would give a console partner's id to a file client is refused, the old config kept", async () => {
    const c = consoleApp();
    t = c;
    const owner = await c.admin("owner@example.com", "owner");
    const o = await c.signIn(owner.email, owner.secret);
    const made = (
      await body(
        await o.call(
          "/admin/v1/partners",
          jsonInit("POST", {
            id: "site",
            name: "Site",
            contactEmail: "a@b.example",
            useCase: "website",
            database: "main",
          }),
        ),
      )
    ).data;
    const token = await c.token({ id: "site", apiKey: made.apiKey, secret: made.apiSecret });
    expect(() =>
      c.reload({
        clients: [{ id: "site", apiKey: "pk_live_other", secretHash: `sha256:${"1".repeat(64)}`, database: "main" }],
      }),
    ).toThrow(/"site"/);
    expect((await c.get("/v1/properties?fields=id&limit=1", token)).status).toBe(200);
    expect(c.runtime.config.clients.has("portal")).toBe(true);
  });
});
