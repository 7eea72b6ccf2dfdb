// The typed client against the compiled sandbox: tokens by client credentials and their
// renewal, typed calls, the page iterator, idempotent lead creation, the change-feed follower,
// retries after 429 and 5xx, and webhook verification of a real delivery.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type ChangeFollower, PartnerApi, PartnerApiError, verifyWebhook, type WebhookEvent } from "../src/index.ts";
import { SANDBOX_KEY, SANDBOX_SECRET, type Sandbox, startSandbox } from "./sandbox.ts";

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox();
}, 180_000);
afterAll(async () => {
  expect(await sandbox.stop()).toEqual([]);
});

const client = (extra: Partial<ConstructorParameters<typeof PartnerApi>[0]> = {}) =>
  new PartnerApi({ baseUrl: sandbox.url, apiKey: SANDBOX_KEY, apiSecret: SANDBOX_SECRET, ...extra });

const claims = (token: string) =>
  JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString()) as { jti: string; exp: number; iat: number };

describe("tokens", () => {
  test("a token is obtained by client credentials and reused while it is fresh", async () => {
    const api = client();
    const first = await api.accessToken();
    expect(claims(first).exp - claims(first).iat).toBe(3600);
    expect(await api.accessToken()).toBe(first);
    const { data, response } = await api.api.GET("/v1/fields");
    expect(response.status).toBe(200);
    expect(Object.keys(data!.data)).toEqual(["properties", "leads"]);
  });

  test("a token is renewed before it expires, and calls go on with the new one", async () => {
    let now = Date.now();
    const api = client({ now: () => now, renewBeforeSeconds: 60 });
    const first = await api.accessToken();
    now += 3_539_000; // 61 s before expiry: still the same token
    expect(await api.accessToken()).toBe(first);
    now += 2_000; // 59 s before expiry: inside the margin
    const second = await api.accessToken();
    expect(claims(second).jti).not.toBe(claims(first).jti);
    expect((await api.listProperties({ fields: "id", limit: 1 })).data).toHaveLength(1);
  });

  test("wrong credentials are a PartnerApiError with the grant's code", async () => {
    const api = client({ apiSecret: "sk_wrong" });
    const error = await api.accessToken().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PartnerApiError);
    expect(error).toMatchObject({ status: 401, code: "INVALID_API_SECRET" });
  });
});

describe("typed calls and iterators", () => {
  test("the page iterator yields every published property once", async () => {
    const api = client();
    const { meta } = await api.listProperties({ fields: "id", limit: 1 });
    const ids = new Set<string>();
    for await (const property of api.properties({ fields: "id,title", limit: 100 })) ids.add(property.id!);
    expect(ids.size).toBe(meta.total);
  });

  test("a single record by id, with the fields asked for", async () => {
    const api = client();
    const [first] = (await api.listLeads({ fields: "id", limit: 1 })).data;
    const lead = await api.getLead(first!.id!, "id,name,email,status");
    expect(Object.keys(lead)).toEqual(["id", "name", "email", "status"]);
  });

  test("an error answer is a PartnerApiError with the API's code", async () => {
    const error = await client()
      .listProperties({ fields: "nope" })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 400, code: "INVALID_FIELDS" });
  });
});

describe("lead creation is idempotent", () => {
  const lead = {
    name: "Joana Prado",
    email: "joana.prado@exémplo.com.br",
    phone: "+55 11 91234-5678",
    message: "Quero visitar o imóvel.",
  };

  test("every creation carries an Idempotency-Key; the same key again returns the first lead", async () => {
    const api = client();
    const created = await api.createLead(lead);
    expect(created.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.replayed).toBe(false);
    expect(created.lead.email).toBe(lead.email);
    const again = await api.createLead(lead, { idempotencyKey: created.idempotencyKey });
    expect(again.replayed).toBe(true);
    expect(again.lead.id).toBe(created.lead.id);
  });
});

describe("the funnel", () => {
  test("a lead's status and priority are updated, and read back", async () => {
    const api = client();
    const { lead } = await api.createLead({
      name: "Bia Lima",
      email: "bia@example.com",
      phone: "+55 31 90000-0000",
      message: "Olá",
    });
    const updated = await api.updateLead(lead.id, { status: "VISIT_SCHEDULED", priority: "HIGH" });
    expect({ status: updated.status, priority: updated.priority }).toEqual({
      status: "VISIT_SCHEDULED",
      priority: "HIGH",
    });
    expect((await api.getLead(lead.id, "status")).status).toBe("VISIT_SCHEDULED");
  });
});

describe("the change-feed follower", () => {
  test("drains the feed, keeps nextAfter, and picks up a change made afterwards", async () => {
    const api = client();
    const follower: ChangeFollower = api.changes("leads", 0, 1000);
    let seen = 0;
    for await (const _ of follower.drain()) seen++;
    expect(seen).toBeGreaterThan(0);
    const position = follower.position;
    expect(position).toBeGreaterThan(0);
    const { lead } = await api.createLead({
      name: "Rui Campos",
      email: "rui@example.com",
      phone: "+55 21 90000-0000",
      message: "Olá",
    });
    const fresh = [];
    for await (const change of follower.drain()) fresh.push(change);
    expect(fresh.map((c) => [c.id, c.change])).toEqual([[lead.id, "upsert"]]);
    expect(follower.position).toBeGreaterThan(position);
    // A follower started at the stored position has nothing new.
    const resumed = api.changes("leads", follower.position);
    for await (const change of resumed.drain()) throw new Error(`unexpected change ${change.sequence}`);
  });

  test("follow() leaves no abort listener behind: at most one at a time over 60 polls, none after", async () => {
    const api = client();
    const { meta } = await api.changePage("leads", 0, 1);
    const controller = new AbortController();
    const { signal } = controller;
    const live = new Set<unknown>();
    let polls = 0;
    let most = 0;
    const add = signal.addEventListener.bind(signal);
    const remove = signal.removeEventListener.bind(signal);
    signal.addEventListener = ((type: string, listener: EventListener, options?: AddEventListenerOptions) => {
      if (type === "abort") {
        live.add(listener);
        most = Math.max(most, live.size);
        // Each wait between two polls adds one; stop after 60 of them.
        if (++polls === 60) queueMicrotask(() => controller.abort());
      }
      // A once listener is gone after it fires: count it out then too.
      const counted: EventListener = (event) => {
        live.delete(listener);
        listener(event);
      };
      const wrapped = type === "abort" ? counted : listener;
      (listener as { wrapped?: EventListener }).wrapped = wrapped;
      add(type, wrapped, options);
    }) as typeof signal.addEventListener;
    signal.removeEventListener = ((type: string, listener: EventListener, options?: EventListenerOptions) => {
      live.delete(listener);
      remove(type, (listener as { wrapped?: EventListener }).wrapped ?? listener, options);
    }) as typeof signal.removeEventListener;
    // From the head of the feed: nothing to yield, only polls.
    for await (const change of api.changes("leads", meta.head).follow({ intervalMs: 1, signal }))
      throw new Error(`unexpected change ${change.sequence}`);
    expect({ polls, most, left: live.size }).toEqual({ polls: 60, most: 1, left: 0 });
  });
});

describe("retries", () => {
  test("a 429 is retried after Retry-After, then reported once the retries are spent", async () => {
    const limited = await startSandbox({ rateLimit: 2 });
    try {
      const waits: number[] = [];
      const api = new PartnerApi({
        baseUrl: limited.url,
        apiKey: SANDBOX_KEY,
        apiSecret: SANDBOX_SECRET,
        maxRetries: 2,
        sleep: async (ms) => void waits.push(ms),
      });
      await api.listProperties({ fields: "id", limit: 1 });
      await api.listProperties({ fields: "id", limit: 1 });
      const error = await api.listProperties({ fields: "id", limit: 1 }).catch((e: unknown) => e);
      expect(error).toMatchObject({ status: 429, code: "RATE_LIMIT_EXCEEDED" });
      const retryAfter = Number((error as PartnerApiError).response.headers.get("retry-after"));
      expect(waits).toHaveLength(2);
      for (const wait of waits) {
        expect(wait % 1000).toBe(0);
        expect(wait / 1000).toBeGreaterThanOrEqual(retryAfter);
        expect(wait / 1000).toBeLessThanOrEqual(60);
      }
    } finally {
      expect(await limited.stop()).toEqual([]);
    }
  }, 180_000);

  test("a 5xx on a read is retried with exponential backoff until it succeeds", async () => {
    // A proxy in front of the real sandbox turns its first two answers to the list into 503s
    // (the sandbox's own headers kept), as a restarting server behind a load balancer would.
    let failures = 2;
    const failing = await startSandbox({
      front: (upstream) => {
        const server = Bun.serve({
          port: 0,
          hostname: "127.0.0.1",
          async fetch(request) {
            const url = new URL(request.url);
            const answer = await fetch(`${upstream}${url.pathname}${url.search}`, {
              method: request.method,
              headers: request.headers,
              body: request.method === "GET" || request.method === "HEAD" ? undefined : await request.arrayBuffer(),
            });
            if (url.pathname !== "/v1/properties" || failures === 0) return answer;
            failures--;
            const headers = new Headers(answer.headers);
            headers.delete("content-length");
            headers.set("retry-after", "1");
            return new Response(
              JSON.stringify({ error: "Service temporarily unavailable, retry later", code: "SERVICE_UNAVAILABLE" }),
              { status: 503, headers },
            );
          },
        });
        return { url: `http://127.0.0.1:${server.port}`, stop: () => server.stop(true) };
      },
    });
    try {
      const waits: number[] = [];
      const api = new PartnerApi({
        baseUrl: failing.url,
        apiKey: SANDBOX_KEY,
        apiSecret: SANDBOX_SECRET,
        backoffMs: 500,
        sleep: async (ms) => void waits.push(ms),
      });
      const page = await api.listProperties({ fields: "id", limit: 2 });
      expect(page.data).toHaveLength(2);
      // 500 ms doubled each time, never less than the server's Retry-After.
      expect(waits).toEqual([1000, 1000]);
      expect(failures).toBe(0);
      const slower = new PartnerApi({
        baseUrl: failing.url,
        apiKey: SANDBOX_KEY,
        apiSecret: SANDBOX_SECRET,
        backoffMs: 2000,
        sleep: async (ms) => void waits.push(ms),
      });
      failures = 2;
      waits.length = 0;
      await slower.listProperties({ fields: "id", limit: 2 });
      expect(waits).toEqual([2000, 4000]);
    } finally {
      expect(await failing.stop()).toEqual([]);
    }
  }, 180_000);
});

describe("webhooks", () => {
  test("a real delivery from the sandbox verifies with the subscription's secret; a tampered one does not", async () => {
    const received: { body: string; headers: Headers }[] = [];
    const receiver = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      async fetch(request) {
        received.push({ body: await request.text(), headers: request.headers });
        return new Response("ok");
      },
    });
    try {
      const api = client();
      const created = await api.api.POST("/v1/webhooks", {
        body: { url: `http://127.0.0.1:${receiver.port}/hooks`, events: ["lead.created"] },
      });
      expect(created.response.status).toBe(201);
      const subscription = created.data!.data;
      const tested = await api.api.POST("/v1/webhooks/{id}/test", { params: { path: { id: subscription.id } } });
      expect(tested.response.status).toBe(200);
      expect(received).toHaveLength(1);
      const event: WebhookEvent = verifyWebhook(subscription.secret, received[0]!.body, received[0]!.headers);
      expect(event.type).toBe("webhook.test");
      expect(() =>
        verifyWebhook(
          subscription.secret,
          received[0]!.body.replace("webhook.test", "lead.created"),
          received[0]!.headers,
        ),
      ).toThrow();
      await api.api.DELETE("/v1/webhooks/{id}", { params: { path: { id: subscription.id } } });
    } finally {
      receiver.stop(true);
    }
  });
});
