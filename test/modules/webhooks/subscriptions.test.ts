// The subscription routes (docs/reference/behaviour-extensions.md §13) through app.handle: the happy path of each, every
// input error in the contract's shape, and security (no token, another client's subscription,
// the guard's order, the limit of 10).
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { Webhook } from "standardwebhooks";
import { EVENT_TYPES } from "../../../src/modules/webhooks/events.ts";
import { createTestApp, DEFAULT_PEER } from "../../helpers/app.ts";
import { OTHER, PARTNER, type Receiver, read, startReceiver, type WebhookApp, webhookApp } from "./helpers.ts";

let app: WebhookApp;
let receiver: Receiver;
beforeEach(async () => {
  app = await webhookApp();
  receiver = startReceiver();
});
afterEach(() => {
  app.close();
  receiver.stop();
});

const create = (body: unknown = { url: receiver.url, events: ["lead.created"] }, token?: string) =>
  app.call("POST", "/v1/webhooks", body, token);

describe("POST /v1/webhooks", () => {
  test("creates a subscription and shows its secret once, as whsec_ + base64 of 24+ bytes", async () => {
    const { status, body } = await create({
      url: receiver.url,
      events: ["lead.created", "property.removed"],
      description: "  CRM  ",
    });
    expect(status).toBe(201);
    expect(Object.keys(body.data)).toEqual([
      "id",
      "url",
      "events",
      "description",
      "enabled",
      "secret",
      "createdAt",
      "updatedAt",
    ]);
    expect(body.data).toMatchObject({
      url: receiver.url,
      events: ["lead.created", "property.removed"],
      description: "CRM",
      enabled: true,
    });
    expect(body.data.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(Buffer.from(body.data.secret.slice(6), "base64").length).toBeGreaterThanOrEqual(24);
    expect(() => new Webhook(body.data.secret)).not.toThrow();
    const read = await app.call("GET", `/v1/webhooks/${body.data.id}`);
    expect(read.body.data.secret).toBeUndefined();
    expect(read.body.data).toEqual({ ...body.data, secret: undefined, disabledReason: null });
  });

  test("repeated events collapse; unknown keys are ignored", async () => {
    const { status, body } = await create({
      url: receiver.url,
      events: ["lead.created", "lead.created", "lead.updated"],
      id: "mine",
      enabled: false,
    });
    expect(status).toBe(201);
    expect(body.data.events).toEqual(["lead.created", "lead.updated"]);
    expect(body.data.enabled).toBe(true);
    expect(body.data.id).not.toBe("mine");
  });

  test("every malformed body answers 400 VALIDATION_ERROR naming each field", async () => {
    const cases: [unknown, string][] = [
      [{ events: ["lead.created"] }, "url: is required"],
      [{ url: receiver.url }, "events: is required"],
      [{ url: 42, events: ["lead.created"] }, "url: must be a string"],
      [{ url: "", events: ["lead.created"] }, "url: is required"],
      [
        { url: "crm.example.com/hooks", events: ["lead.created"] },
        "url: must be an absolute URL, e.g. https://crm.example.com/webhooks",
      ],
      [{ url: "ftp://crm.example.com/x", events: ["lead.created"] }, "url: must be an https:// URL"],
      [
        { url: "https://user:pw@crm.example.com/x", events: ["lead.created"] },
        "url: must not carry a user name or password; authenticate deliveries by their signature",
      ],
      [{ url: "https://crm.example.com/x#frag", events: ["lead.created"] }, "url: must not carry a #fragment"],
      [
        { url: `https://crm.example.com/${"x".repeat(2048)}`, events: ["lead.created"] },
        "url: must be at most 2048 characters",
      ],
      [
        { url: receiver.url, events: [] },
        `events: must be a non-empty array of event types: ${EVENT_TYPES.join(", ")}`,
      ],
      [
        { url: receiver.url, events: "lead.created" },
        `events: must be a non-empty array of event types: ${EVENT_TYPES.join(", ")}`,
      ],
      [
        { url: receiver.url, events: ["lead.deleted", 7] },
        `events: unknown event type "lead.deleted", a number; use: ${EVENT_TYPES.join(", ")}`,
      ],
      [
        { url: receiver.url, events: ["Lead.Created"] },
        `events: unknown event type "Lead.Created"; use: ${EVENT_TYPES.join(", ")}`,
      ],
      [{ url: receiver.url, events: ["lead.created"], description: 5 }, "description: must be a string or null"],
      [
        { url: receiver.url, events: ["lead.created"], description: "x".repeat(501) },
        "description: must be at most 500 characters",
      ],
      [
        { url: receiver.url, events: ["lead.created"], description: "\ud800" },
        "description: must be valid Unicode text (no unpaired surrogates)",
      ],
    ];
    for (const [body, error] of cases) {
      const response = await create(body);
      expect({ body, status: response.status, error: response.body.error, code: response.body.code }).toEqual({
        body,
        status: 400,
        error,
        code: "VALIDATION_ERROR",
      });
      expect(response.body.details).toEqual(
        error.split("; ").length === 1
          ? [{ field: error.split(": ")[0], message: error.slice(error.indexOf(": ") + 2) }]
          : expect.any(Array),
      );
    }
    const both = await create({ url: "nope", events: [] });
    expect(both.body.details.map((d: { field: string }) => d.field)).toEqual(["url", "events"]);
  });

  test("bodies that are not JSON objects get the contract's codes", async () => {
    expect((await create("")).body.code).toBe("MISSING_BODY");
    expect((await create("{nope")).body).toMatchObject({ code: "VALIDATION_ERROR", error: "body: must be valid JSON" });
    expect((await create([1])).body).toMatchObject({ code: "VALIDATION_ERROR", error: "body: must be a JSON object" });
    const text = await app.request("/v1/webhooks", {
      method: "POST",
      headers: { authorization: `Bearer ${app.partner}`, "content-type": "text/plain" },
      body: "x",
    });
    expect(text.status).toBe(415);
    const big = await create({ url: receiver.url, events: ["lead.created"], description: "x".repeat(70_000) });
    expect(big.status).toBe(413);
  });

  test("at most 10 per client; the 11th is refused, other clients are not affected", async () => {
    for (let i = 0; i < 10; i++) expect((await create()).status).toBe(201);
    const refused = await create();
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({
      code: "VALIDATION_ERROR",
      error: "webhooks: at most 10 subscriptions per client; delete one before creating another",
    });
    expect((await create(undefined, app.other)).status).toBe(201);
    // Creations racing for the last places never overshoot.
    const list = await app.call("GET", "/v1/webhooks");
    await app.call("DELETE", `/v1/webhooks/${list.body.data[0].id}`);
    await app.call("DELETE", `/v1/webhooks/${list.body.data[1].id}`);
    const raced = await Promise.all(Array.from({ length: 6 }, () => create()));
    expect(raced.map((r) => r.status).sort()).toEqual([201, 201, 400, 400, 400, 400]);
    expect((await app.call("GET", "/v1/webhooks")).body.meta.total).toBe(10);
  });
});

describe("target rules in production (docs/reference/behaviour-extensions.md §13)", () => {
  const resolveTo = (table: Record<string, string[]>) => async (host: string) => {
    const found = table[host];
    if (!found) throw Object.assign(new Error("not found"), { code: "ENOTFOUND" });
    return found;
  };

  test("https only; no loopback, private, link-local, unique-local, metadata or other special address, as written or as resolved", async () => {
    const strict = await webhookApp({
      webhookTargets: {},
      resolve: resolveTo({
        "crm.example.com": ["93.184.215.14"],
        "internal.example.com": ["10.1.2.3"],
        "mixed.example.com": ["93.184.215.14", "192.168.0.5"],
        "metadata.example.com": ["169.254.169.254"],
        "v6.example.com": ["fd00::1"],
        "compat.example.com": ["::a9fe:a9fe"],
      }),
    });
    try {
      const refused: [string, string][] = [
        ["http://crm.example.com/hooks", "must be an https:// URL (plain http is not accepted by this server)"],
        ["https://127.0.0.1/hooks", "127.0.0.1 is a loopback address"],
        ["https://[::1]/hooks", "::1 is a loopback address"],
        ["https://localhost/hooks", "localhost is a loopback address"],
        ["https://10.0.0.7/hooks", "10.0.0.7 is a private address"],
        ["https://172.16.3.4/hooks", "172.16.3.4 is a private address"],
        ["https://192.168.1.1/hooks", "192.168.1.1 is a private address"],
        ["https://169.254.169.254/latest/meta-data", "169.254.169.254 is a link-local (cloud metadata) address"],
        ["https://[fe80::1]/hooks", "fe80::1 is a link-local (cloud metadata) address"],
        ["https://[fc00::1]/hooks", "fc00::1 is a unique-local address"],
        ["https://[::ffff:10.0.0.1]/hooks", "10.0.0.1 is a private address"],
        [
          "https://[::127.0.0.1]/hooks",
          "::7f00:1 is an IPv4-compatible (deprecated) address carrying 127.0.0.1, a loopback address",
        ],
        [
          "https://[::169.254.169.254]/",
          "::a9fe:a9fe is an IPv4-compatible (deprecated) address carrying 169.254.169.254, a link-local (cloud metadata) address",
        ],
        [
          "https://[::10.0.0.1]/hooks",
          "::a00:1 is an IPv4-compatible (deprecated) address carrying 10.0.0.1, a private address",
        ],
        ["https://[64:ff9b::10.0.0.1]/hooks", "64:ff9b::a00:1 is a NAT64 address carrying 10.0.0.1, a private address"],
        ["https://[2002:a9fe:a9fe::1]/hooks", "2002:a9fe:a9fe::1 is a 6to4 address carrying 169.254.169.254"],
        [
          "https://compat.example.com/hooks",
          "compat.example.com resolves to ::a9fe:a9fe, an IPv4-compatible (deprecated) address carrying 169.254.169.254",
        ],
        ["https://0.0.0.0/hooks", "0.0.0.0 is an unspecified address"],
        ["https://2130706433/hooks", "127.0.0.1 is a loopback address"],
        ["https://100.100.100.200/hooks", "100.100.100.200 is a shared (carrier-grade NAT) address"],
        ["https://internal.example.com/hooks", "internal.example.com resolves to 10.1.2.3, a private address"],
        ["https://mixed.example.com/hooks", "mixed.example.com resolves to 192.168.0.5, a private address"],
        [
          "https://metadata.example.com/hooks",
          "metadata.example.com resolves to 169.254.169.254, a link-local (cloud metadata) address",
        ],
        ["https://v6.example.com/hooks", "v6.example.com resolves to fd00::1, a unique-local address"],
        ["https://nowhere.example.com/hooks", "the host nowhere.example.com could not be resolved (ENOTFOUND)"],
      ];
      for (const [url, problem] of refused) {
        const response = await strict.call("POST", "/v1/webhooks", { url, events: ["lead.created"] });
        expect({ url, status: response.status, code: response.body.code, error: response.body.error }).toEqual({
          url,
          status: 400,
          code: "VALIDATION_ERROR",
          error: expect.stringContaining(`url: ${problem}`),
        });
      }
      const ok = await strict.call("POST", "/v1/webhooks", {
        url: "https://crm.example.com/hooks?x=1",
        events: ["lead.created"],
      });
      expect(ok.status).toBe(201);
      // A change of URL is checked the same way.
      const patched = await strict.call("PATCH", `/v1/webhooks/${ok.body.data.id}`, {
        url: "https://internal.example.com/x",
      });
      expect(patched.body).toMatchObject({
        code: "VALIDATION_ERROR",
        error: expect.stringContaining("resolves to 10.1.2.3"),
      });
    } finally {
      strict.close();
    }
  });

  test("the config's webhooks keys lift each rule; the sandbox lifts both", async () => {
    const httpOnly = await webhookApp({ webhookTargets: { allowHttp: true }, resolve: async () => ["93.184.215.14"] });
    try {
      expect(
        (await httpOnly.call("POST", "/v1/webhooks", { url: "http://crm.example.com/x", events: ["lead.created"] }))
          .status,
      ).toBe(201);
      expect(
        (await httpOnly.call("POST", "/v1/webhooks", { url: "http://127.0.0.1/x", events: ["lead.created"] })).status,
      ).toBe(400);
    } finally {
      httpOnly.close();
    }
    const sandbox = createTestApp({ environment: "sandbox", clients: [PARTNER.entry] });
    try {
      expect(sandbox.runtime.config.webhooks).toEqual({ allowHttp: true, allowPrivateTargets: true });
    } finally {
      sandbox.close();
    }
  });
});

describe("GET /v1/webhooks", () => {
  test("a page of the client's own subscriptions, oldest first, without secrets", async () => {
    const first = await create();
    app.clock.advance(1000);
    const second = await create({ url: receiver.url, events: ["property.upserted"] });
    await create(undefined, app.other);
    const { status, body } = await app.call("GET", "/v1/webhooks");
    expect(status).toBe(200);
    expect(body.meta).toEqual({ page: 1, limit: 20, total: 2, totalPages: 1 });
    expect(body.data.map((s: { id: string }) => s.id)).toEqual([first.body.data.id, second.body.data.id]);
    for (const s of body.data) expect(s.secret).toBeUndefined();
    const paged = await app.call("GET", "/v1/webhooks?limit=1&page=2");
    expect(paged.body).toEqual({ data: [body.data[1]], meta: { page: 2, limit: 1, total: 2, totalPages: 2 } });
  });

  test("bad paging parameters answer 400 naming each", async () => {
    const { status, body } = await app.call("GET", "/v1/webhooks?limit=0&page=x");
    expect(status).toBe(400);
    expect(body.error).toBe(
      "page: must be an integer greater than or equal to 1; limit: must be an integer between 1 and 100",
    );
  });
});

describe("GET, PATCH, DELETE /v1/webhooks/{id}", () => {
  test("PATCH changes what it is given and nothing else; enabling clears the server's reason", async () => {
    const { body } = await create({ url: receiver.url, events: ["lead.created"], description: "a" });
    const id = body.data.id;
    app.clock.advance(5000);
    const patched = await app.call("PATCH", `/v1/webhooks/${id}`, { events: ["lead.updated"], description: null });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({
      url: receiver.url,
      events: ["lead.updated"],
      description: null,
      enabled: true,
    });
    expect(patched.body.data.updatedAt).not.toBe(body.data.updatedAt);
    expect(patched.body.data.createdAt).toBe(body.data.createdAt);
    const off = await app.call("PATCH", `/v1/webhooks/${id}`, { enabled: false });
    expect(off.body.data.enabled).toBe(false);
    const on = await app.call("PATCH", `/v1/webhooks/${id}`, { enabled: true, url: `${receiver.url}/v2` });
    expect(on.body.data).toMatchObject({ enabled: true, disabledReason: null, url: `${receiver.url}/v2` });
  });

  test("PATCH errors: nothing to change, wrong types, bad URL or events", async () => {
    const id = (await create()).body.data.id;
    const cases: [unknown, string][] = [
      [{}, "body: must set at least one of: url, events, description, enabled"],
      [{ name: "x" }, "body: must set at least one of: url, events, description, enabled"],
      [{ enabled: "yes" }, "enabled: must be true or false"],
      [
        { url: "nope", events: ["x"] },
        `url: must be an absolute URL, e.g. https://crm.example.com/webhooks; events: unknown event type "x"; use: ${EVENT_TYPES.join(", ")}`,
      ],
    ];
    for (const [body, error] of cases) {
      const response = await app.call("PATCH", `/v1/webhooks/${id}`, body);
      expect({ status: response.status, error: response.body.error }).toEqual({ status: 400, error });
    }
  });

  test("DELETE answers 204 with no body, then the subscription is gone", async () => {
    const id = (await create()).body.data.id;
    const response = await app.request(`/v1/webhooks/${id}`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${app.partner}` },
    });
    expect(response.status).toBe(204);
    expect(await response.text()).toBe("");
    expect(response.headers.get("x-ratelimit-remaining")).not.toBeNull();
    expect((await app.call("GET", `/v1/webhooks/${id}`)).status).toBe(404);
    expect((await app.call("DELETE", `/v1/webhooks/${id}`)).status).toBe(404);
  });
});

describe("rotate-secret, test, deliveries, replay", () => {
  test("rotate-secret answers the new secret; it differs from the old one, which is not shown again", async () => {
    const { body } = await create();
    const rotated = await app.call("POST", `/v1/webhooks/${body.data.id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.data.secret).toMatch(/^whsec_/);
    expect(rotated.body.data.secret).not.toBe(body.data.secret);
    expect(rotated.body.data.id).toBe(body.data.id);
  });

  test("test sends a signed webhook.test event now and answers that attempt's outcome", async () => {
    const { body } = await create({ url: receiver.url, events: ["lead.created"] });
    const sent = await app.call("POST", `/v1/webhooks/${body.data.id}/test`);
    expect(sent.status).toBe(200);
    expect(sent.body.data).toMatchObject({
      type: "webhook.test",
      sequence: 0,
      state: "succeeded",
      attempts: 1,
      lastStatus: 200,
      lastError: null,
      nextAttemptAt: null,
    });
    const [payload] = receiver.verifyAll(body.data.secret) as any[];
    expect(payload).toEqual({
      type: "webhook.test",
      timestamp: expect.any(String),
      data: { sequence: 0, id: body.data.id, record: null },
    });
    expect(receiver.received[0]!.headers["webhook-id"]).toBe(sent.body.data.id);

    receiver.answer(() => new Response("nope", { status: 500 }));
    const failed = await app.call("POST", `/v1/webhooks/${body.data.id}/test`);
    expect(failed.body.data).toMatchObject({
      state: "failed",
      attempts: 1,
      lastStatus: 500,
      lastError: "HTTP 500: nope",
      nextAttemptAt: null,
    });
    // A failed test is one attempt, never retried, and leaves the subscription as it was…
    expect((await app.call("GET", `/v1/webhooks/${body.data.id}`)).body.data).toMatchObject({
      enabled: true,
      disabledReason: null,
    });
    // …but 410 Gone disables it at once, on a test as on any delivery (docs/reference/behaviour-extensions.md §13).
    receiver.answer(() => new Response(null, { status: 410 }));
    expect((await app.call("POST", `/v1/webhooks/${body.data.id}/test`)).body.data.lastStatus).toBe(410);
    expect((await app.call("GET", `/v1/webhooks/${body.data.id}`)).body.data).toMatchObject({
      enabled: false,
      disabledReason: expect.stringMatching(/^the endpoint answered 410 Gone at /),
    });
  });

  test("the delivery log pages newest first and filters by state; bad parameters are 400s", async () => {
    const { body } = await create();
    const id = body.data.id;
    await app.call("POST", `/v1/webhooks/${id}/test`);
    receiver.answer(() => new Response(null, { status: 503 }));
    await app.call("POST", `/v1/webhooks/${id}/test`);
    const log = await app.call("GET", `/v1/webhooks/${id}/deliveries`);
    expect(log.body.meta).toEqual({ page: 1, limit: 20, total: 2, totalPages: 1 });
    expect(log.body.data.map((d: { state: string }) => d.state)).toEqual(["failed", "succeeded"]);
    expect(Object.keys(log.body.data[0])).toEqual([
      "id",
      "type",
      "sequence",
      "state",
      "attempts",
      "lastStatus",
      "lastError",
      "lastAttemptAt",
      "nextAttemptAt",
    ]);
    expect(
      (await app.call("GET", `/v1/webhooks/${id}/deliveries?state=succeeded`)).body.data.map(
        (d: { state: string }) => d.state,
      ),
    ).toEqual(["succeeded"]);
    expect((await app.call("GET", `/v1/webhooks/${id}/deliveries?state=pending`)).body).toEqual({
      data: [],
      meta: { page: 1, limit: 20, total: 0, totalPages: 0 },
    });
    const bad = await app.call("GET", `/v1/webhooks/${id}/deliveries?state=done&limit=101&state=x`);
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe(
      "limit: must be an integer between 1 and 100; state: must be given once; state: must be one of: pending, succeeded, failed",
    );
    expect((await app.call("GET", `/v1/webhooks/${id}/deliveries?state=done`)).body.error).toBe(
      "state: must be one of: pending, succeeded, failed",
    );
  });

  test("replay takes { after } and answers 202 with the range it will deliver again", async () => {
    const id = (await create()).body.data.id;
    const accepted = await app.call("POST", `/v1/webhooks/${id}/replay`, { after: 10 });
    expect(accepted.status).toBe(202);
    expect(accepted.body.data).toEqual({ after: 10, until: expect.any(Number) });
    for (const [body, error] of [
      [{}, "after: is required"],
      [{ after: -1 }, "after: must be an integer greater than or equal to 0"],
      [{ after: 1.5 }, "after: must be an integer greater than or equal to 0"],
      [{ after: "10" }, "after: must be an integer greater than or equal to 0"],
    ] as const) {
      const response = await app.call("POST", `/v1/webhooks/${id}/replay`, body);
      expect({ status: response.status, error: response.body.error }).toEqual({ status: 400, error });
    }
  });
});

describe("request bodies on every webhook route that takes one (docs/reference/behaviour.md §4)", () => {
  const ERRORS = {
    tooLarge: { status: 413, body: { error: "Request body exceeds 65536 bytes", code: "PAYLOAD_TOO_LARGE" } },
    mediaType: {
      status: 415,
      body: { error: "Content-Type must be application/json", code: "UNSUPPORTED_MEDIA_TYPE" },
    },
    missing: { status: 400, body: { error: "Request body is required", code: "MISSING_BODY" } },
    malformed: {
      status: 400,
      body: {
        error: "body: must be valid JSON",
        code: "VALIDATION_ERROR",
        details: [{ field: "body", message: "must be valid JSON" }],
      },
    },
    notObject: {
      status: 400,
      body: {
        error: "body: must be a JSON object",
        code: "VALIDATION_ERROR",
        details: [{ field: "body", message: "must be a JSON object" }],
      },
    },
  };

  test("POST /v1/webhooks, PATCH /v1/webhooks/{id} and POST …/replay answer 413, 415, missing, malformed and non-object bodies in { error, code }", async () => {
    const id = (await create()).body.data.id;
    const routes: [string, string, Record<string, unknown>][] = [
      ["POST", "/v1/webhooks", { url: receiver.url, events: ["lead.created"] }],
      ["PATCH", `/v1/webhooks/${id}`, { description: "CRM" }],
      ["POST", `/v1/webhooks/${id}/replay`, { after: 0 }],
    ];
    const send = async (method: string, path: string, body: string, contentType = "application/json") => {
      const response = await app.request(path, {
        method,
        headers: { authorization: `Bearer ${app.partner}`, "content-type": contentType },
        body,
      });
      return { status: response.status, body: await response.json() };
    };
    for (const [method, path, valid] of routes) {
      // Valid on its own, over 64 KiB only by its padding: the size alone decides the 413.
      const padded = JSON.stringify({ ...valid, padding: "x".repeat(64 * 1024) });
      const cases: [string, Promise<{ status: number; body: unknown }>, { status: number; body: unknown }][] = [
        ["over 64 KiB", send(method, path, padded), ERRORS.tooLarge],
        ["text/plain", send(method, path, JSON.stringify(valid), "text/plain"), ERRORS.mediaType],
        ["form", send(method, path, "after=0", "application/x-www-form-urlencoded"), ERRORS.mediaType],
        ["empty", send(method, path, ""), ERRORS.missing],
        ["malformed", send(method, path, "{nope"), ERRORS.malformed],
        ["an array", send(method, path, "[1]"), ERRORS.notObject],
        ["a string", send(method, path, '"x"'), ERRORS.notObject],
        ["null", send(method, path, "null"), ERRORS.notObject],
      ];
      for (const [what, response, expected] of cases)
        expect({ method, path, what, ...(await response) }).toEqual({ method, path, what, ...expected });
      // The same body at 64 KiB less its padding goes through: the limit is the body's size, not the route.
      expect((await send(method, path, JSON.stringify(valid))).status).toBeLessThan(300);
    }
    expect((await app.call("GET", `/v1/webhooks/${id}`)).body.data.description).toBe("CRM");
  });
});

/** Every webhook route, with `id` in the paths that take one. */
const webhookRoutes = (id: string): [string, string][] => [
  ["POST", "/v1/webhooks"],
  ["GET", "/v1/webhooks"],
  ["GET", `/v1/webhooks/${id}`],
  ["PATCH", `/v1/webhooks/${id}`],
  ["DELETE", `/v1/webhooks/${id}`],
  ["POST", `/v1/webhooks/${id}/rotate-secret`],
  ["POST", `/v1/webhooks/${id}/test`],
  ["GET", `/v1/webhooks/${id}/deliveries`],
  ["POST", `/v1/webhooks/${id}/replay`],
];

describe("security", () => {
  test("every route needs a valid token", async () => {
    const id = (await create()).body.data.id;
    for (const [method, path] of webhookRoutes(id)) {
      // Two failures per route: the failed-auth allowance of one address is 20.
      for (const token of ["not-a-token", `${app.partner}x`]) {
        const response = await app.call(method, path, method === "GET" || method === "DELETE" ? undefined : {}, token);
        expect({ method, path, status: response.status, code: response.body.code }).toEqual({
          method,
          path,
          status: 401,
          code: "INVALID_TOKEN",
        });
      }
    }
    expect((await app.call("GET", `/v1/webhooks/${id}`)).status).toBe(200);
  });

  test("another client's subscription is a 404 on every route, exactly like a missing one, and stays untouched", async () => {
    const { body } = await create();
    const id = body.data.id;
    const missing = "00000000-0000-4000-8000-000000000000";
    for (const target of [id, missing, "not-a-uuid", "%zz"]) {
      for (const [method, path, payload] of [
        ["GET", "", undefined],
        ["PATCH", "", { enabled: false }],
        ["DELETE", "", undefined],
        ["POST", "/rotate-secret", undefined],
        ["POST", "/test", undefined],
        ["GET", "/deliveries", undefined],
        ["POST", "/replay", { after: 0 }],
      ] as const) {
        const response = await app.call(method, `/v1/webhooks/${target}${path}`, payload, app.other);
        expect({ target, method, path, status: response.status, body: response.body }).toEqual({
          target,
          method,
          path,
          status: 404,
          body: { error: "No webhook subscription with this id", code: "NOT_FOUND" },
        });
      }
    }
    expect(receiver.received).toEqual([]);
    const mine = await app.call("GET", `/v1/webhooks/${id}`);
    expect(mine.body.data).toEqual({ ...body.data, secret: undefined, disabledReason: null });
    expect((await app.call("GET", "/v1/webhooks", undefined, app.other)).body.meta.total).toBe(0);
  });

  test("the guard's order holds: rate limit before validation; disabled clients are refused", async () => {
    const tiny = await webhookApp({ clients: [{ ...PARTNER.entry, rateLimitPerMinute: 2 }, OTHER.entry] });
    try {
      expect((await tiny.call("POST", "/v1/webhooks", {})).status).toBe(400);
      expect((await tiny.call("GET", "/v1/webhooks")).status).toBe(200);
      const limited = await tiny.call("POST", "/v1/webhooks", {});
      expect(limited.status).toBe(429);
      expect(limited.headers.get("retry-after")).not.toBeNull();
      tiny.reload({ clients: [{ ...PARTNER.entry, enabled: false }, OTHER.entry] });
      expect((await tiny.call("GET", "/v1/webhooks")).body.code).toBe("API_DISABLED");
    } finally {
      tiny.close();
    }
  });

  test("a client with an IP whitelist is refused from any other address on every route (403 IP_BLOCKED), and served from its own", async () => {
    const id = (await create()).body.data.id;
    // The helper's requests come from DEFAULT_PEER, inside this whitelist.
    app.reload({ clients: [{ ...PARTNER.entry, ipWhitelist: [`${DEFAULT_PEER}/32`] }, OTHER.entry] });
    for (const [method, path] of webhookRoutes(id)) {
      const response = await app.request(path, {
        method,
        peer: "192.0.2.44",
        headers: { authorization: `Bearer ${app.partner}`, "content-type": "application/json" },
        ...(method === "GET" || method === "DELETE"
          ? {}
          : { body: JSON.stringify({ after: 0, description: "from outside" }) }),
      });
      const { status, body } = await read(response);
      expect({ method, path, status, body }).toEqual({
        method,
        path,
        status: 403,
        body: { error: "IP not allowed", code: "IP_BLOCKED" },
      });
    }
    // Nothing was changed or sent from outside; from inside the same token is served.
    expect(receiver.received).toEqual([]);
    expect((await app.call("GET", `/v1/webhooks/${id}`)).body.data).toMatchObject({ description: null, enabled: true });
    expect((await app.call("GET", "/v1/webhooks")).body.meta.total).toBe(1);
  });

  test("a client whose database is no longer configured gets 403 NO_DATABASE on every route", async () => {
    const id = (await create()).body.data.id;
    app.reload({ databases: {} });
    for (const [method, path] of webhookRoutes(id)) {
      const response = await app.call(method, path, method === "GET" || method === "DELETE" ? undefined : { after: 0 });
      expect({ method, path, status: response.status, body: response.body }).toEqual({
        method,
        path,
        status: 403,
        body: { error: "Client database not configured", code: "NO_DATABASE" },
      });
    }
    expect(receiver.received).toEqual([]);
  });

  test("a wrong method on a webhook path is a 405 naming the allowed ones", async () => {
    const response = await app.request("/v1/webhooks/x/test", {
      method: "GET",
      headers: { authorization: `Bearer ${app.partner}` },
    });
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("POST");
  });
});
