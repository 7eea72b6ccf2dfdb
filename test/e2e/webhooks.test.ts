// Webhooks end to end: the compiled binary (sandbox, which allows local receivers) and a real
// local receiver that verifies every delivery with the standardwebhooks library. Retries keep
// their webhook-id, a rotation signs with both secrets, 410 disables, replay sends again, and
// kill -9 with 100+ deliveries pending loses nothing: after a restart every acknowledged lead
// is delivered, and a lead delivered twice is delivered with the same webhook-id. Two serve
// processes on one database share the deliveries, each attempt made by one of them.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Webhook } from "standardwebhooks";
import { hashSecret } from "../../src/security/secrets.ts";
import { ensureBinary, type RunningBinary, sandboxToken, startBinary } from "../helpers/binary.ts";

interface Delivery {
  path: string;
  id: string;
  signatures: number;
  payload: any;
}

const dir = mkdtempSync(join(tmpdir(), "pa-webhooks-e2e-"));
const db = join(dir, "sandbox.sqlite");
let binary: string;
let server: RunningBinary;
let token: string;
/** Secrets by receiver path: every request is verified with the secret(s) of its subscription. */
const secrets = new Map<string, string[]>();
const deliveries: Delivery[] = [];
const unverified: string[] = [];
/** How each path answers: the n-th request of a webhook-id (0-based) gets status(n). */
const behaviour = new Map<string, { status: (attempt: number) => number; delayMs?: number }>();
const attemptsById = new Map<string, number>();

const receiver = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  idleTimeout: 30,
  async fetch(request) {
    const path = new URL(request.url).pathname;
    const body = await request.text();
    const headers = Object.fromEntries(request.headers);
    let payload: unknown = null;
    for (const secret of secrets.get(path) ?? []) {
      try {
        payload = new Webhook(secret).verify(body, headers);
        break;
      } catch {}
    }
    if (payload === null) {
      unverified.push(`${path} ${headers["webhook-id"]}`);
      return new Response("bad signature", { status: 400 });
    }
    const id = headers["webhook-id"]!;
    const attempt = attemptsById.get(id) ?? 0;
    attemptsById.set(id, attempt + 1);
    deliveries.push({ path, id, signatures: headers["webhook-signature"]!.split(" ").length, payload });
    const rule = behaviour.get(path) ?? { status: () => 200 };
    if (rule.delayMs) await Bun.sleep(rule.delayMs);
    return new Response(null, { status: rule.status(attempt) });
  },
});
const receiverUrl = (path: string) => `http://127.0.0.1:${receiver.port}${path}`;

async function api(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body !== undefined ? { "content-type": "application/json" } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  return { status: response.status, body: text === "" ? null : JSON.parse(text) };
}

async function subscribe(path: string, events: string[]): Promise<{ id: string; secret: string }> {
  const { status, body } = await api("POST", "/v1/webhooks", { url: receiverUrl(path), events });
  expect(status).toBe(201);
  secrets.set(path, [body.data.secret]);
  return body.data;
}

async function createLead(marker: string): Promise<string> {
  const { status, body } = await api("POST", "/v1/leads", {
    name: "E2E",
    email: "e2e@example.com",
    phone: "1",
    message: marker,
  });
  expect(status).toBe(201);
  return body.data.id;
}

async function until<T>(
  what: string,
  check: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(50);
  }
}

const deliveredTo = (path: string) => deliveries.filter((d) => d.path === path);

beforeAll(async () => {
  binary = ensureBinary();
  server = await startBinary(binary, ["sandbox", "--db", db, "--rate-limit", "1000000"], dir);
  token = await sandboxToken(server.url);
}, 120_000);

afterAll(async () => {
  await server?.stop("SIGKILL");
  receiver.stop(true);
  rmSync(dir, { recursive: true, force: true });
});

describe("webhooks from the compiled binary", () => {
  test("a new lead is delivered, signed and carrying the record GET returns; a test event answers its outcome", async () => {
    const sub = await subscribe("/ok", ["lead.created"]);
    const leadId = await createLead("e2e-first");
    const delivery = await until("the first delivery", () =>
      deliveredTo("/ok").find((d) => d.payload.data.id === leadId),
    );
    expect(delivery.payload.type).toBe("lead.created");
    const fields =
      "id,name,email,phone,message,source,status,priority,propertyId,interestedPropertyTitle,createdBy,createdAt,updatedAt";
    expect(delivery.payload.data.record).toEqual((await api("GET", `/v1/leads/${leadId}?fields=${fields}`)).body.data);
    const tested = await api("POST", `/v1/webhooks/${sub.id}/test`);
    expect(tested.body.data).toMatchObject({ type: "webhook.test", state: "succeeded", lastStatus: 200 });
    expect(deliveredTo("/ok").some((d) => d.id === tested.body.data.id && d.payload.type === "webhook.test")).toBe(
      true,
    );
  });

  test("a failed delivery is retried about 5 s later with the same webhook-id", async () => {
    behaviour.set("/flaky", { status: (attempt) => (attempt === 0 ? 503 : 200) });
    await subscribe("/flaky", ["lead.created"]);
    const leadId = await createLead("e2e-flaky");
    const first = await until("the first attempt", () =>
      deliveredTo("/flaky").find((d) => d.payload.data.id === leadId),
    );
    const firstAt = Date.now();
    await until(
      "the retry",
      () => deliveredTo("/flaky").filter((d) => d.payload.data.id === leadId).length === 2,
      15_000,
    );
    const elapsed = Date.now() - firstAt;
    expect(elapsed).toBeGreaterThan(3_500);
    expect(elapsed).toBeLessThan(9_000);
    expect(
      deliveredTo("/flaky")
        .filter((d) => d.payload.data.id === leadId)
        .map((d) => d.id),
    ).toEqual([first.id, first.id]);
  }, 30_000);

  test("after a rotation every delivery carries both signatures, each verifying with its secret", async () => {
    const sub = await subscribe("/rotating", ["lead.created"]);
    const rotated = await api("POST", `/v1/webhooks/${sub.id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    // Only the new secret: the receiver accepts the delivery because one of the two signatures is the new one…
    secrets.set("/rotating", [rotated.body.data.secret]);
    const leadId = await createLead("e2e-rotation");
    const delivery = await until("the rotated delivery", () =>
      deliveredTo("/rotating").find((d) => d.payload.data.id === leadId),
    );
    expect(delivery.signatures).toBe(2);
    // …and with only the old one, the same delivery verifies too (a receiver not yet switched).
    secrets.set("/rotating", [sub.secret]);
    const next = await createLead("e2e-rotation-2");
    await until("the delivery under the old secret", () =>
      deliveredTo("/rotating").find((d) => d.payload.data.id === next),
    );
  });

  test("410 disables the subscription at once, with its reason", async () => {
    behaviour.set("/gone", { status: () => 410 });
    const sub = await subscribe("/gone", ["lead.created"]);
    await createLead("e2e-gone");
    await until("the 410", () => deliveredTo("/gone").length === 1);
    const read = await until("the subscription disabled", async () => {
      const body = (await api("GET", `/v1/webhooks/${sub.id}`)).body.data;
      return body.enabled ? null : body;
    });
    expect(read.disabledReason).toMatch(/^the endpoint answered 410 Gone at /);
    await createLead("e2e-gone-2");
    await Bun.sleep(500);
    expect(deliveredTo("/gone").length).toBe(1);
  });

  test("replay delivers again every event after the sequence, with new webhook-ids", async () => {
    const sub = await subscribe("/replayed", ["lead.created"]);
    const ids = [await createLead("e2e-replay-1"), await createLead("e2e-replay-2")];
    await until("both deliveries", () => deliveredTo("/replayed").length === 2);
    const first = deliveredTo("/replayed").find((d) => d.payload.data.id === ids[0])!;
    const accepted = await api("POST", `/v1/webhooks/${sub.id}/replay`, { after: first.payload.data.sequence - 1 });
    expect(accepted.status).toBe(202);
    await until("the replayed deliveries", () => deliveredTo("/replayed").length === 4);
    const replayed = deliveredTo("/replayed").slice(2);
    expect(replayed.map((d) => d.payload.data.id).sort()).toEqual([...ids].sort());
    expect(new Set(deliveredTo("/replayed").map((d) => d.id)).size).toBe(4);
  });

  test("kill -9 with 100+ deliveries pending, then a restart: every acknowledged lead is delivered; a duplicate only with the same webhook-id", async () => {
    // A slow receiver (half a second each, with a few dozen at a time): most are still pending when the server dies.
    behaviour.set("/durable", { status: () => 200, delayMs: 500 });
    const sub = await subscribe("/durable", ["lead.created"]);
    const acknowledged = await Promise.all(Array.from({ length: 150 }, (_, i) => createLead(`e2e-kill-${i}`)));
    // Not yet dispatched counts as pending too: the change log holds it.
    await until(
      "the leads dispatched",
      async () => (await api("GET", `/v1/webhooks/${sub.id}/deliveries?limit=1`)).body.meta.total >= 100,
    );
    const pending = (await api("GET", `/v1/webhooks/${sub.id}/deliveries?state=pending&limit=1`)).body.meta.total;
    server.proc.kill("SIGKILL");
    await server.proc.exited;
    const deliveredBeforeKill = new Set(deliveredTo("/durable").map((d) => d.payload.data.id)).size;
    expect(pending).toBeGreaterThanOrEqual(100);

    server = await startBinary(binary, ["sandbox", "--db", db, "--rate-limit", "1000000"], dir);
    token = await sandboxToken(server.url);
    behaviour.set("/durable", { status: () => 200 });
    // Deliveries in flight at the kill wait out their lease (20 s); the rest go at once.
    await until(
      "every acknowledged lead delivered",
      () => acknowledged.every((id) => deliveredTo("/durable").some((d) => d.payload.data.id === id)),
      60_000,
    );
    // Then those in flight at the kill come again once their lease runs out, and nothing stays pending.
    await until(
      "nothing pending",
      async () => (await api("GET", `/v1/webhooks/${sub.id}/deliveries?state=pending&limit=1`)).body.meta.total === 0,
      60_000,
    );
    const idsByLead = new Map<string, Set<string>>();
    for (const d of deliveredTo("/durable"))
      idsByLead.set(d.payload.data.id, (idsByLead.get(d.payload.data.id) ?? new Set()).add(d.id));
    for (const id of acknowledged)
      expect({ lead: id, webhookIds: idsByLead.get(id)!.size }).toEqual({ lead: id, webhookIds: 1 });
    expect(unverified).toEqual([]);
  }, 120_000);
});

describe("two serve processes on one database", () => {
  test("each delivery is attempted by exactly one of them: every lead arrives once, whichever process took it", async () => {
    const shared = join(dir, "agency.sqlite");
    const seeded = Bun.spawnSync([binary, "seed", "--out", shared, "--properties", "20", "--leads", "20"], {
      cwd: dir,
    });
    expect(seeded.exitCode).toBe(0);
    const config = join(dir, "agency.json");
    await Bun.write(
      config,
      JSON.stringify({
        jwtSecret: "a-jwt-secret-long-enough-for-the-webhooks-test-01",
        databases: { agency: shared },
        clients: [
          {
            id: "crm",
            apiKey: "pk_live_crm_webhooks",
            secretHash: hashSecret("sk_live_crm"),
            database: "agency",
            rateLimitPerMinute: 100_000,
          },
        ],
        webhooks: { allowHttp: true, allowPrivateTargets: true },
      }),
    );
    const a = await startBinary(binary, ["serve", "--config", config], dir);
    const b = await startBinary(binary, ["serve", "--config", config], dir);
    try {
      const tokenOf = async (url: string) =>
        (
          (await (
            await fetch(`${url}/v1/auth/token`, {
              method: "POST",
              headers: { "x-api-key": "pk_live_crm_webhooks", "x-api-secret": "sk_live_crm" },
            })
          ).json()) as { data: { token: string } }
        ).data.token;
      const tokens = [await tokenOf(a.url), await tokenOf(b.url)];
      const created = await fetch(`${a.url}/v1/webhooks`, {
        method: "POST",
        headers: { authorization: `Bearer ${tokens[0]}`, "content-type": "application/json" },
        body: JSON.stringify({ url: receiverUrl("/shared"), events: ["lead.created"] }),
      });
      expect(created.status).toBe(201);
      secrets.set("/shared", [((await created.json()) as { data: { secret: string } }).data.secret]);
      const leads = await Promise.all(
        Array.from({ length: 200 }, async (_, i) => {
          const [url, token] = i % 2 === 0 ? [a.url, tokens[0]] : [b.url, tokens[1]];
          const response = await fetch(`${url}/v1/leads`, {
            method: "POST",
            headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
            body: JSON.stringify({ name: "Two", email: "two@example.com", phone: "1", message: `shared-${i}` }),
          });
          expect(response.status).toBe(201);
          return ((await response.json()) as { data: { id: string } }).data.id;
        }),
      );
      await until("every lead delivered", () =>
        leads.every((id) => deliveredTo("/shared").some((d) => d.payload.data.id === id)),
      );
      await Bun.sleep(1000); // a second attempt by the other process would arrive by now
      const ids = deliveredTo("/shared").map((d) => d.id);
      expect(ids.length).toBe(200);
      expect(new Set(ids).size).toBe(200);
      expect(unverified).toEqual([]);
    } finally {
      await a.stop();
      await b.stop();
    }
  }, 60_000);
});
