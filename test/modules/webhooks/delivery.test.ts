// Deliveries (docs/reference/behaviour-extensions.md §13) from the real worker to real local receivers that verify every
// request with the standardwebhooks library: events from every write path, the payload, the
// retry schedule on an injected clock, 410 and three days of failures, rotation, replay,
// compaction, several workers on one file, a worker killed mid-attempt, and receivers that
// misbehave.
import { Database } from "bun:sqlite";
import { afterEach, beforeAll, describe, expect, test } from "bun:test";
import { Webhook } from "standardwebhooks";
import { CATALOGS } from "../../../src/catalog/index.ts";
import { compactChangesStep } from "../../../src/db/compaction.ts";
import { silentLogger } from "../../../src/logging.ts";
import { type ClaimedDelivery, dispatchStep } from "../../../src/modules/webhooks/dispatch.ts";
import { DISABLE_AFTER_FAILING_MS } from "../../../src/modules/webhooks/outcome.ts";
import { webhookRepos } from "../../../src/modules/webhooks/repo.ts";
import { RETRY_DELAYS_MS } from "../../../src/modules/webhooks/schedule.ts";
import { createServerWebhooks, recordReader, streamAccess } from "../../../src/modules/webhooks/service.ts";
import { PER_SUBSCRIPTION } from "../../../src/modules/webhooks/slots.ts";
import { LEASE_MS, newDeliveryId } from "../../../src/modules/webhooks/worker.ts";
import {
  type Certificates,
  createLead,
  type KeyPair,
  LEAD,
  type Receiver,
  startReceiver,
  testCertificates,
  type WebhookApp,
  webhookApp,
} from "./helpers.ts";

const cleanup: (() => void)[] = [];
afterEach(() => {
  while (cleanup.length > 0) cleanup.pop()!();
});

async function setup(options: Parameters<typeof webhookApp>[0] = {}, answer?: Parameters<typeof startReceiver>[0]) {
  const app = await webhookApp(options);
  const receiver = startReceiver(answer);
  cleanup.push(
    () => app.close(),
    () => receiver.stop(),
  );
  return { app, receiver };
}

async function subscribe(app: WebhookApp, receiver: Receiver, events: string[], token = app.partner) {
  const { status, body } = await app.call("POST", "/v1/webhooks", { url: receiver.url, events }, token);
  expect(status).toBe(201);
  return body.data as { id: string; secret: string };
}

/** A connection of its own, as another process or the sqlite3 shell would write. */
function outside(app: WebhookApp): Database {
  const db = new Database(app.runtime.config.databases.get("main")!);
  db.run("PRAGMA busy_timeout = 5000");
  cleanup.push(() => db.close());
  return db;
}

/** An app with a subscription to property events, another process's connection, and a published property's id. */
async function propertySetup() {
  const { app, receiver } = await setup();
  const sub = await subscribe(app, receiver, ["property.upserted", "property.removed"]);
  const db = outside(app);
  const { id } = db.query("SELECT id FROM properties WHERE is_published = 1 ORDER BY id LIMIT 1").get() as {
    id: string;
  };
  return { app, receiver, sub, db, id };
}

const allFields = (entity: "properties" | "leads") => CATALOGS[entity].fields.map((f) => f.name).join(",");

async function getRecord(app: WebhookApp, entity: "properties" | "leads", id: string) {
  return (await app.call("GET", `/v1/${entity}/${id}?fields=${allFields(entity)}`)).body;
}

describe("events come from every write path, with the record as GET returns it", () => {
  test("lead.created from the API, lead.updated from an outside write; the record is GET /v1/leads/{id} byte for byte", async () => {
    const { app, receiver } = await setup();
    const sub = await subscribe(app, receiver, ["lead.created", "lead.updated"]);
    const lead = await createLead(app);
    await app.deliver();
    outside(app).run("UPDATE leads SET status = 'IN_SERVICE', updated_at = '2030-01-01T00:00:00.000Z' WHERE id = ?", [
      lead.id,
    ]);
    await app.deliver();
    const payloads = receiver.verifyAll(sub.secret) as any[];
    expect(payloads.map((p) => p.type)).toEqual(["lead.created", "lead.updated"]);
    expect(payloads[0].data.sequence).toBeLessThan(payloads[1].data.sequence);
    expect(payloads.map((p) => p.data.id)).toEqual([lead.id, lead.id]);
    const current = await app.request(`/v1/leads/${lead.id}?fields=${allFields("leads")}`, {
      headers: { authorization: `Bearer ${app.partner}` },
    });
    const text = await current.text();
    // The second delivery's record, spliced into the body, is exactly the route's `data`.
    expect(receiver.received[1]!.body).toContain(`"record":${text.slice('{"data":'.length, -1)}}`);
    expect(payloads[1].data.record.status).toBe("IN_SERVICE");
    expect(Object.keys(payloads[0])).toEqual(["type", "timestamp", "data"]);
    expect(Object.keys(payloads[0].data)).toEqual(["sequence", "id", "record"]);
    expect(payloads[0].timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    const headers = receiver.received[0]!.headers;
    expect(headers["content-type"]).toBe("application/json");
    expect(headers["user-agent"]).toMatch(/^partner-api\//);
    expect(headers["webhook-id"]).toMatch(/^msg_/);
    expect(headers["webhook-timestamp"]).toBe(String(Math.floor(app.clock.now() / 1000)));
  });

  test("property.upserted and property.removed from outside writes; removed carries a null record; unpublished is never shown", async () => {
    const { app, receiver, sub, db, id } = await propertySetup();
    db.run("UPDATE properties SET title = 'Novo título' WHERE id = ?", [id]);
    await app.deliver();
    const expected = await getRecord(app, "properties", id);
    db.run("UPDATE properties SET is_published = 0 WHERE id = ?", [id]);
    await app.deliver();
    const payloads = receiver.verifyAll(sub.secret) as any[];
    expect(payloads.map((p) => p.type)).toEqual(["property.upserted", "property.removed"]);
    expect(payloads[0].data.record).toEqual(expected.data);
    expect(payloads[0].data.record.title).toBe("Novo título");
    expect(payloads[1].data).toEqual({ sequence: expect.any(Number), id, record: null });
  });

  test("a property changed and unpublished before dispatch sends no record it can no longer show: only its removal", async () => {
    const { app, receiver, sub, db, id } = await propertySetup();
    db.run("UPDATE properties SET title = 'Antes' WHERE id = ?", [id]);
    db.run("UPDATE properties SET is_published = 0 WHERE id = ?", [id]);
    await app.deliver();
    expect((receiver.verifyAll(sub.secret) as any[]).map((p) => [p.type, p.data.record])).toEqual([
      ["property.removed", null],
    ]);
  });

  test("a subscription gets only its events, and only those after its creation; other clients' subscriptions get theirs", async () => {
    const { app, receiver } = await setup();
    await createLead(app);
    const leadsOnly = await subscribe(app, receiver, ["lead.created"]);
    const other = startReceiver();
    cleanup.push(() => other.stop());
    const otherSub = await subscribe(app, other, ["lead.created"], app.other);
    outside(app).run(
      "UPDATE properties SET title = title || '!' WHERE is_published = 1 AND rowid = (SELECT min(rowid) FROM properties WHERE is_published = 1)",
    );
    const lead = await createLead(app, app.other);
    await app.deliver();
    expect((receiver.verifyAll(leadsOnly.secret) as any[]).map((p) => [p.type, p.data.id])).toEqual([
      ["lead.created", lead.id],
    ]);
    expect((other.verifyAll(otherSub.secret) as any[]).map((p) => [p.type, p.data.id])).toEqual([
      ["lead.created", lead.id],
    ]);
  });

  test("a deleted lead, or a disabled or removed client, gets nothing", async () => {
    const { app, receiver } = await setup();
    await subscribe(app, receiver, ["lead.created", "lead.updated"]);
    const lead = await createLead(app);
    outside(app).run("DELETE FROM leads WHERE id = ?", [lead.id]);
    await app.deliver();
    expect(receiver.received).toEqual([]);
    app.reload({ clients: [{ ...(await import("./helpers.ts")).PARTNER.entry, enabled: false }] });
    outside(app).run("UPDATE leads SET status = 'LOST' WHERE rowid = (SELECT min(rowid) FROM leads)");
    await app.deliver();
    expect(receiver.received).toEqual([]);
  });
});

describe("retries (docs/reference/behaviour-extensions.md §13)", () => {
  test("a failure is retried on the schedule with the same webhook-id until it succeeds", async () => {
    let failures = 3;
    const { app, receiver } = await setup({}, () =>
      failures-- > 0 ? new Response("busy", { status: 503 }) : new Response("ok"),
    );
    const sub = await subscribe(app, receiver, ["lead.created"]);
    await createLead(app);
    const log = async () => (await app.call("GET", `/v1/webhooks/${sub.id}/deliveries`)).body.data[0];
    await app.deliver();
    expect(await log()).toMatchObject({ state: "pending", attempts: 1, lastStatus: 503, lastError: "HTTP 503: busy" });
    // random() = 0.5 puts each retry exactly on the schedule.
    expect(Date.parse((await log()).nextAttemptAt) - app.clock.now()).toBe(RETRY_DELAYS_MS[0]!);
    for (let i = 0; i < 3; i++) {
      app.clock.advance(RETRY_DELAYS_MS[i]! - 1);
      await app.deliver();
      expect(receiver.received.length).toBe(i + 1);
      app.clock.advance(1);
      await app.deliver();
      expect(receiver.received.length).toBe(i + 2);
    }
    expect(await log()).toMatchObject({
      state: "succeeded",
      attempts: 4,
      lastStatus: 200,
      lastError: null,
      nextAttemptAt: null,
    });
    expect(new Set(receiver.received.map((r) => r.headers["webhook-id"])).size).toBe(1);
    expect(new Set(receiver.received.map((r) => r.body)).size).toBe(1);
    receiver.verifyAll(sub.secret);
  });

  test("after the last retry the delivery is failed; receivers that redirect, reset or send 10 MB are failures too", async () => {
    const target = startReceiver();
    cleanup.push(() => target.stop());
    const { app, receiver } = await setup({}, (request) => {
      const path = new URL(request.url).pathname;
      if (path.endsWith("/redirect")) return Response.redirect(target.url, 307);
      if (path.endsWith("/big")) return new Response(new Uint8Array(10 * 1024 * 1024).fill(120), { status: 500 });
      return new Response("no", { status: 500 });
    });
    const sub = await subscribe(app, receiver, ["lead.created"]);
    await createLead(app);
    await app.deliver();
    for (const delay of RETRY_DELAYS_MS) {
      app.clock.advance(delay);
      await app.deliver();
    }
    const [delivery] = (await app.call("GET", `/v1/webhooks/${sub.id}/deliveries`)).body.data;
    expect(delivery).toMatchObject({ state: "failed", attempts: 11, lastStatus: 500, nextAttemptAt: null });
    expect(receiver.received.length).toBe(11);

    const redirect = await app.call("PATCH", `/v1/webhooks/${sub.id}`, { url: `${receiver.url}/redirect` });
    expect(redirect.status).toBe(200);
    const tested = await app.call("POST", `/v1/webhooks/${sub.id}/test`);
    expect(tested.body.data).toMatchObject({
      state: "failed",
      lastStatus: 307,
      lastError: `HTTP 307: redirects are not followed (Location: ${target.url})`,
    });
    expect(target.received).toEqual([]);
    await app.call("PATCH", `/v1/webhooks/${sub.id}`, { url: `${receiver.url}/big` });
    const big = await app.call("POST", `/v1/webhooks/${sub.id}/test`);
    expect(big.body.data.lastStatus).toBe(500);
    expect(big.body.data.lastError.length).toBeLessThan(300);

    const reset = Bun.listen({
      hostname: "127.0.0.1",
      port: 0,
      socket: { data: (socket) => socket.terminate(), open() {} },
    });
    cleanup.push(() => reset.stop(true));
    await app.call("PATCH", `/v1/webhooks/${sub.id}`, { url: `http://127.0.0.1:${reset.port}/hooks` });
    const resetTest = await app.call("POST", `/v1/webhooks/${sub.id}/test`);
    expect(resetTest.body.data).toMatchObject({
      state: "failed",
      lastStatus: null,
      lastError: expect.stringMatching(/^connection failed: /),
    });
  });

  test("410 Gone disables the subscription at once, with its reason; what it had pending fails", async () => {
    const { app, receiver } = await setup({}, () => new Response(null, { status: 410 }));
    const sub = await subscribe(app, receiver, ["lead.created"]);
    await createLead(app);
    await createLead(app);
    // One attempt (the worker claims both; each gets a 410): the subscription is disabled, nothing is left pending.
    await app.deliver();
    const read = await app.call("GET", `/v1/webhooks/${sub.id}`);
    expect(read.body.data).toMatchObject({
      enabled: false,
      disabledReason: expect.stringMatching(/^the endpoint answered 410 Gone at /),
    });
    const log = (await app.call("GET", `/v1/webhooks/${sub.id}/deliveries`)).body.data;
    expect(log.map((d: { state: string }) => d.state)).toEqual(["failed", "failed"]);
    const before = receiver.received.length;
    await createLead(app);
    app.clock.advance(RETRY_DELAYS_MS[0]!);
    await app.deliver();
    expect(receiver.received.length).toBe(before);
    // Enabled again by its partner, it receives what comes next.
    receiver.answer(() => new Response("ok"));
    expect((await app.call("PATCH", `/v1/webhooks/${sub.id}`, { enabled: true })).body.data.disabledReason).toBeNull();
    await createLead(app);
    await app.deliver();
    expect(receiver.received.length).toBe(before + 1);
  });

  test("a subscription whose every delivery failed for 3 days is disabled with its reason; one success resets the count", async () => {
    let ok = false;
    const { app, receiver } = await setup({}, () => new Response(null, { status: ok ? 200 : 500 }));
    const sub = await subscribe(app, receiver, ["lead.created"]);
    const day = 24 * 60 * 60 * 1000;
    const failingDay = async () => {
      await createLead(app);
      await app.deliver();
      app.clock.advance(day);
    };
    await failingDay();
    await failingDay();
    ok = true;
    await createLead(app);
    await app.deliver();
    ok = false;
    for (let i = 0; i < 3; i++) await failingDay();
    expect((await app.call("GET", `/v1/webhooks/${sub.id}`)).body.data.enabled).toBe(true);
    app.clock.advance(DISABLE_AFTER_FAILING_MS - 3 * day);
    await createLead(app);
    await app.deliver();
    const read = (await app.call("GET", `/v1/webhooks/${sub.id}`)).body.data;
    expect(read).toMatchObject({
      enabled: false,
      disabledReason: expect.stringMatching(/^every delivery failed for 3 days \(since /),
    });
    expect((await app.call("GET", `/v1/webhooks/${sub.id}/deliveries?state=pending`)).body.meta.total).toBe(0);
  });
});

describe("rotation and replay", () => {
  test("for 24 h after a rotation every delivery carries both signatures; then only the new one", async () => {
    const { app, receiver } = await setup();
    const sub = await subscribe(app, receiver, ["lead.created"]);
    const rotated = (await app.call("POST", `/v1/webhooks/${sub.id}/rotate-secret`)).body.data;
    await createLead(app);
    await app.deliver();
    const during = receiver.received[0]!;
    expect(during.headers["webhook-signature"]!.split(" ")).toHaveLength(2);
    expect(() => new Webhook(sub.secret).verify(during.body, during.headers)).not.toThrow();
    expect(() => new Webhook(rotated.secret).verify(during.body, during.headers)).not.toThrow();
    app.clock.advance(24 * 60 * 60 * 1000);
    await createLead(app);
    await app.deliver();
    const after = receiver.received[1]!;
    expect(after.headers["webhook-signature"]!.split(" ")).toHaveLength(1);
    expect(after.headers["webhook-signature"]).toBe(
      new Webhook(rotated.secret).sign(
        after.headers["webhook-id"]!,
        new Date(Number(after.headers["webhook-timestamp"]) * 1000),
        after.body,
      ),
    );
  });

  test("replay delivers again every event after the sequence, as new deliveries with new ids", async () => {
    const { app, receiver } = await setup();
    const sub = await subscribe(app, receiver, ["lead.created"]);
    const leads = [await createLead(app), await createLead(app), await createLead(app)];
    await app.deliver();
    const first = receiver.verifyAll(sub.secret) as any[];
    expect(first.map((p) => p.data.id)).toEqual(leads.map((l) => l.id));
    const replay = await app.call("POST", `/v1/webhooks/${sub.id}/replay`, { after: first[0].data.sequence });
    expect(replay.body.data).toEqual({ after: first[0].data.sequence, until: first[2].data.sequence });
    await app.deliver();
    const again = (receiver.verifyAll(sub.secret) as any[]).slice(3);
    expect(again.map((p) => p.data.id)).toEqual([leads[1].id, leads[2].id]);
    expect(again).toEqual(first.slice(1));
    const ids = receiver.received.map((r) => r.headers["webhook-id"]);
    expect(new Set(ids).size).toBe(5);
  });
});

describe("nothing is lost", () => {
  test("compaction keeps events not yet dispatched: a lead created and updated before dispatch gives both events", async () => {
    const { app, receiver } = await setup();
    const sub = await subscribe(app, receiver, ["lead.created", "lead.updated"]);
    const lead = await createLead(app);
    outside(app).run("UPDATE leads SET status = 'LOST' WHERE id = ?", [lead.id]);
    const tenant = app.runtime.tenants.all()[0]!;
    for (let after = 0; ; ) {
      const step = await tenant.writer.submit((db) => compactChangesStep(db, after));
      if (step.next === 0) break;
      after = step.next;
    }
    await app.deliver();
    expect((receiver.verifyAll(sub.secret) as any[]).map((p) => p.type)).toEqual(["lead.created", "lead.updated"]);
    // Once dispatched, the superseded event is compacted as before.
    const count = () =>
      (tenant.read.query("SELECT count(*) AS n FROM changes WHERE record_id = ?").get(lead.id) as { n: number }).n;
    expect(count()).toBe(2);
    await tenant.writer.submit((db) => compactChangesStep(db, 0, 1_000_000));
    expect(count()).toBe(1);
  });

  test("two workers on one database make each attempt once", async () => {
    const { app, receiver } = await setup();
    const sub = await subscribe(app, receiver, ["lead.created"]);
    const second = createServerWebhooks(app.runtime, { logger: silentLogger() }).worker;
    for (let i = 0; i < 40; i++) await createLead(app);
    await Promise.all([
      app.webhooks.worker.runOnce(),
      second.runOnce(),
      app.webhooks.worker.runOnce(),
      second.runOnce(),
    ]);
    await Promise.all([app.webhooks.worker.idle(), second.idle()]);
    await app.deliver();
    await second.runOnce();
    await second.idle();
    const ids = receiver.received.map((r) => r.headers["webhook-id"]);
    expect(ids.length).toBe(40);
    expect(new Set(ids).size).toBe(40);
    receiver.verifyAll(sub.secret);
  });

  test("a worker killed mid-attempt leaves its claims to be tried again with the same webhook-id once the lease ends", async () => {
    const { app, receiver } = await setup();
    const sub = await subscribe(app, receiver, ["lead.created"]);
    await createLead(app);
    const tenant = app.runtime.tenants.all()[0]!;
    const repos = webhookRepos(tenant);
    // What a kill -9 right after a claim leaves behind: the delivery leased to a process that is gone.
    await tenant.onDisk(repos.cursor.head());
    const deps = {
      tenant,
      onDiskThrough: tenant.onDiskThrough(),
      repos,
      records: recordReader(app.runtime),
      streams: streamAccess(app.runtime),
      now: () => app.clock.now(),
      newId: newDeliveryId,
    };
    const targets = [
      {
        id: sub.id,
        clientId: "partner",
        events: new Set(["lead.created"] as const),
        afterSequence: repos.subscriptions.get(sub.id)!.after_sequence,
      },
    ];
    for (let step = dispatchStep(deps, targets); step !== null; step = dispatchStep(deps, targets))
      await tenant.writer.submit((db) => step!.write(db, () => null));
    const now = app.clock.now();
    expect(
      await tenant.writer.submit((db) => repos.deliveries.claim(db, sub.id, "dead:1", now, now + LEASE_MS, 10)),
    ).toHaveLength(1);
    const restarted = createServerWebhooks(app.runtime, { logger: silentLogger() }).worker;
    await restarted.runOnce();
    await restarted.idle();
    expect(receiver.received.length).toBe(0);
    app.clock.advance(LEASE_MS);
    await restarted.runOnce();
    await restarted.idle();
    expect(receiver.received.length).toBe(1);
    await restarted.runOnce(); // records the outcome
    const [delivery] = (await app.call("GET", `/v1/webhooks/${sub.id}/deliveries`)).body.data;
    expect(delivery).toMatchObject({
      id: receiver.received[0]!.headers["webhook-id"],
      state: "succeeded",
      attempts: 2,
    });
    receiver.verifyAll(sub.secret);
  });
});

describe("a delivery's body", () => {
  const payloadOf = (app: WebhookApp, webhookId: string) =>
    (
      outside(app).query("SELECT payload FROM webhook_deliveries WHERE id = ?").get(webhookId) as {
        payload: string | null;
      }
    ).payload;

  test("is not stored while its first attempt is under way; a failed attempt stores what it sent, and every retry sends those bytes though the record changed", async () => {
    let answered = 0;
    const { app, receiver } = await setup({}, () =>
      answered++ === 0 ? new Response("busy", { status: 503 }) : new Response("ok"),
    );
    const sub = await subscribe(app, receiver, ["lead.created"]);
    const lead = await createLead(app);
    await app.webhooks.worker.runOnce();
    // Claimed and being sent: the row has no body, the attempt holds it.
    const [first] = (await app.call("GET", `/v1/webhooks/${sub.id}/deliveries`)).body.data;
    expect(first).toMatchObject({ state: "pending", attempts: 1 });
    expect(payloadOf(app, first.id)).toBeNull();
    await app.deliver();
    expect(receiver.received).toHaveLength(1);
    expect(payloadOf(app, first.id)).toBe(receiver.received[0]!.body);
    outside(app).run("UPDATE leads SET name = 'Ana Lima' WHERE id = ?", [lead.id]);
    app.clock.advance(RETRY_DELAYS_MS[0]!);
    await app.deliver();
    expect(receiver.received).toHaveLength(2);
    expect(receiver.received[1]!.body).toBe(receiver.received[0]!.body);
    expect((receiver.verifyAll(sub.secret) as any[])[1].data.record.name).toBe(LEAD.name);
  });

  test("claimed by a process killed during the first attempt is made again by the next: the same bytes while the record is unchanged; failed, with why, when the record is gone", async () => {
    const { app, receiver } = await setup();
    const sub = await subscribe(app, receiver, ["lead.created"]);
    const kept = await createLead(app);
    const deleted = await createLead(app);
    const tenant = app.runtime.tenants.all()[0]!;
    const repos = webhookRepos(tenant);
    // What a kill -9 during the first attempts leaves behind: deliveries stored already claimed by a process that is gone.
    await tenant.onDisk(repos.cursor.head());
    const deps = {
      tenant,
      onDiskThrough: tenant.onDiskThrough(),
      repos,
      records: recordReader(app.runtime),
      streams: streamAccess(app.runtime),
      now: () => app.clock.now(),
      newId: newDeliveryId,
    };
    const targets = [
      {
        id: sub.id,
        clientId: "partner",
        events: new Set(["lead.created"] as const),
        afterSequence: repos.subscriptions.get(sub.id)!.after_sequence,
      },
    ];
    const lease = { owner: "dead:1", until: app.clock.now() + LEASE_MS };
    const inFlight: ClaimedDelivery[] = [];
    for (let step = dispatchStep(deps, targets); step !== null; step = dispatchStep(deps, targets)) {
      inFlight.push(...(await tenant.writer.submit((db) => step!.write(db, () => lease)))!);
    }
    expect(inFlight.map((d) => JSON.parse(d.payload).data.id)).toEqual([kept.id, deleted.id]);
    for (const delivery of inFlight) expect(payloadOf(app, delivery.id)).toBeNull();
    outside(app).run("DELETE FROM leads WHERE id = ?", [deleted.id]);
    const restarted = createServerWebhooks(app.runtime, { logger: silentLogger() }).worker;
    app.clock.advance(LEASE_MS);
    await restarted.runOnce();
    await restarted.idle();
    await restarted.runOnce(); // records the outcome
    expect(receiver.received).toHaveLength(1);
    expect(receiver.received[0]!.headers["webhook-id"]).toBe(inFlight[0]!.id);
    expect(receiver.received[0]!.body).toBe(inFlight[0]!.payload);
    receiver.verifyAll(sub.secret);
    const log = (await app.call("GET", `/v1/webhooks/${sub.id}/deliveries`)).body.data as any[];
    expect(log.find((d) => d.id === inFlight[0]!.id)).toMatchObject({ state: "succeeded", attempts: 2 });
    expect(log.find((d) => d.id === inFlight[1]!.id)).toMatchObject({
      state: "failed",
      attempts: 2,
      lastError: "not sent again: the record is no longer visible to this client",
    });
  });
});

describe("targets at delivery time", () => {
  test("the host is resolved and checked again at every attempt: a DNS answer turned private is refused and nothing is sent", async () => {
    let answer = ["93.184.215.14"];
    const { app, receiver } = await setup({ webhookTargets: { allowHttp: true }, resolve: async () => answer });
    const sub = await subscribe(app, { ...receiver, url: `http://receiver.test:${receiver.port}/hooks` }, [
      "lead.created",
    ]);
    answer = ["127.0.0.1"];
    await createLead(app);
    await app.deliver();
    const [delivery] = (await app.call("GET", `/v1/webhooks/${sub.id}/deliveries`)).body.data;
    expect(delivery).toMatchObject({
      state: "pending",
      lastStatus: null,
      lastError:
        "target refused: receiver.test resolves to 127.0.0.1, a loopback address: webhooks may not target loopback, private, link-local, unique-local or metadata addresses",
    });
    expect(receiver.received).toEqual([]);
  });

  test("an attempt connects to the address resolved, with the URL's own Host", async () => {
    const { app, receiver } = await setup({ resolve: async (host) => (host === "receiver.test" ? ["127.0.0.1"] : []) });
    const sub = await subscribe(app, { ...receiver, url: `http://receiver.test:${receiver.port}/hooks` }, [
      "lead.created",
    ]);
    await createLead(app);
    await app.deliver();
    expect(receiver.received[0]!.headers.host).toBe(`receiver.test:${receiver.port}`);
    receiver.verifyAll(sub.secret);
  });
});

describe("dispatch keeps pace with sending", () => {
  test("a backlog waits in the log, not as deliveries: each delivery is made only when it can start, already claimed, and all arrive once", async () => {
    const { app, receiver } = await setup();
    const subs = [await subscribe(app, receiver, ["lead.updated"]), await subscribe(app, receiver, ["lead.updated"])];
    const events = 3 * PER_SUBSCRIPTION;
    outside(app).run(
      `UPDATE leads SET status = 'LOST' WHERE rowid IN (SELECT rowid FROM leads ORDER BY rowid LIMIT ${events})`,
    );
    const tenant = app.runtime.tenants.all()[0]!;
    const rows = () =>
      // Every state: attempts that end during the run are recorded by its next pass (a claim's owner stays).
      tenant.read.query("SELECT count(*) AS made, count(lease_owner) AS claimed FROM webhook_deliveries").get() as {
        made: number;
        claimed: number;
      };
    const cursorBehind = () =>
      (
        tenant.read
          .query("SELECT (SELECT max(sequence) FROM changes) - (SELECT sequence FROM webhook_cursor) AS n")
          .get() as { n: number }
      ).n;
    // Events are sent once known on disk: a sync of the WAL first, so the run below can send them.
    await tenant.writer.synced();
    await app.webhooks.worker.runOnce();
    // A run: events as fast as slots free up (PER_SUBSCRIPTION at first, more if attempts ended
    // meanwhile), every delivery claimed as it is made; the rest of the backlog still in the log.
    const first = rows();
    expect(first.claimed).toBe(first.made);
    expect(first.made).toBeGreaterThanOrEqual(2 * PER_SUBSCRIPTION);
    expect(cursorBehind()).toBeGreaterThan(0);
    expect(first.made).toBe(2 * (events - cursorBehind()));
    await app.deliver();
    expect(cursorBehind()).toBe(0);
    for (const sub of subs) {
      const log = (await app.call("GET", `/v1/webhooks/${sub.id}/deliveries?limit=100`)).body.data as {
        state: string;
        attempts: number;
      }[];
      expect(log.map((d) => [d.state, d.attempts])).toEqual(Array.from({ length: events }, () => ["succeeded", 1]));
    }
    expect(new Set(receiver.received.map((r) => r.headers["webhook-id"])).size).toBe(2 * events);
  });
});

describe("https, as production delivers (docs/reference/behaviour-extensions.md §13: https only)", () => {
  const HOST = "hooks.partner.test";
  const ELSEWHERE = "elsewhere.partner.test";
  let certificates: Certificates;
  beforeAll(() => {
    certificates = testCertificates([HOST, ELSEWHERE]);
  });
  const resolve = async (host: string) => (host === HOST ? ["127.0.0.1"] : []);
  /** A production app that lifts only the private-address rule (a local receiver), never the https one. */
  const httpsApp = async (trust: "test CA" | "system only") => {
    const app = await webhookApp({
      webhookTargets: { allowPrivateTargets: true },
      resolve,
      ...(trust === "test CA" ? { ca: certificates.ca } : {}),
    });
    cleanup.push(() => app.close());
    return app;
  };
  const tlsReceiver = (pair: KeyPair) => {
    const receiver = startReceiver(undefined, { host: HOST, ...pair });
    cleanup.push(() => receiver.stop());
    return receiver;
  };

  test("a delivery goes over TLS to the checked address, the certificate verified for the URL's host name, and verifies with standardwebhooks", async () => {
    const app = await httpsApp("test CA");
    const receiver = tlsReceiver(certificates.issued[HOST]!);
    expect(receiver.url).toStartWith(`https://${HOST}:`);
    const sub = await subscribe(app, receiver, ["lead.created"]);
    const lead = await createLead(app);
    await app.deliver();
    const [payload] = receiver.verifyAll(sub.secret) as any[];
    expect(payload).toMatchObject({ type: "lead.created", data: { id: lead.id } });
    expect(receiver.received[0]!.headers.host).toBe(`${HOST}:${receiver.port}`);
    const [delivery] = (await app.call("GET", `/v1/webhooks/${sub.id}/deliveries`)).body.data;
    expect(delivery).toMatchObject({ state: "succeeded", attempts: 1, lastStatus: 200, lastError: null });
    // This config keeps the https rule: the same receiver by plain http is refused.
    const plain = await app.call("PATCH", `/v1/webhooks/${sub.id}`, { url: `http://127.0.0.1:${receiver.port}/hooks` });
    expect(plain.body).toMatchObject({
      code: "VALIDATION_ERROR",
      error: "url: must be an https:// URL (plain http is not accepted by this server)",
    });
  });

  test("a certificate for another name, from an authority not trusted, or self-signed is refused before anything is sent, and lastError says which", async () => {
    const cases: [string, "test CA" | "system only", KeyPair, RegExp][] = [
      [
        "another name",
        "test CA",
        certificates.issued[ELSEWHERE]!,
        /^connection failed: the certificate is not valid for hooks\.partner\.test \([A-Z_]+\)$/,
      ],
      [
        "an authority not trusted",
        "system only",
        certificates.issued[HOST]!,
        /^connection failed: the certificate is not from a trusted authority \([A-Z_]+\)$/,
      ],
      [
        "self-signed",
        "test CA",
        certificates.selfSigned,
        /^connection failed: the certificate is not from a trusted authority \([A-Z_]+\)$/,
      ],
    ];
    for (const [what, trust, pair, lastError] of cases) {
      const app = await httpsApp(trust);
      const receiver = tlsReceiver(pair);
      const sub = await subscribe(app, receiver, ["lead.created"]);
      await createLead(app);
      await app.deliver();
      const [delivery] = (await app.call("GET", `/v1/webhooks/${sub.id}/deliveries`)).body.data;
      expect({ what, ...delivery }).toMatchObject({
        what,
        state: "pending",
        attempts: 1,
        lastStatus: null,
        lastError: expect.stringMatching(lastError),
      });
      expect({ what, received: receiver.received.length }).toEqual({ what, received: 0 });
    }
  });
});

describe("a receiver that hangs costs others nothing", () => {
  test("its deliveries time out within their own share; another subscription's and the API go on meanwhile", async () => {
    const hanging: (() => void)[] = [];
    const { app, receiver } = await setup(
      { timeoutMs: 1500 },
      () => new Promise<Response>((resolve) => hanging.push(() => resolve(new Response("late")))),
    );
    cleanup.push(() => hanging.forEach((release) => release()));
    const healthy = startReceiver();
    cleanup.push(() => healthy.stop());
    const stuck = await subscribe(app, receiver, ["lead.created"]);
    const fine = await subscribe(app, healthy, ["lead.created"]);
    for (let i = 0; i < 3 * PER_SUBSCRIPTION; i++) await createLead(app);
    const started = performance.now();
    await app.webhooks.worker.runOnce();
    // The stuck receiver holds its slots; the healthy one is served in the same pass. Both are
    // awaited: on a busy machine the stuck one's requests may arrive after the healthy one's.
    while (healthy.received.length < PER_SUBSCRIPTION || receiver.received.length < PER_SUBSCRIPTION)
      await Bun.sleep(5);
    expect(receiver.received.length).toBe(PER_SUBSCRIPTION);
    expect((await app.call("GET", "/v1/webhooks")).status).toBe(200);
    // Each pass gives the healthy subscription the slots its finished attempts freed.
    while (healthy.received.length < 3 * PER_SUBSCRIPTION) {
      await app.webhooks.worker.runOnce();
      await Bun.sleep(5);
    }
    expect(receiver.received.length).toBe(PER_SUBSCRIPTION);
    await app.webhooks.worker.idle();
    await app.webhooks.worker.runOnce(); // records the timeouts
    expect(performance.now() - started).toBeLessThan(10_000);
    const stuckLog = (await app.call("GET", `/v1/webhooks/${stuck.id}/deliveries?state=pending&limit=100`)).body.data;
    expect(stuckLog.filter((d: { lastError: string | null }) => d.lastError === "no answer within 2 s").length).toBe(
      PER_SUBSCRIPTION,
    );
    healthy.verifyAll(fine.secret);
  });
});

describe("receivers that flood, redirect or reset cost others nothing", () => {
  test("32 deliveries at once to each of a 10 MB answer, a redirect and a reset: a healthy subscription gets its deliveries promptly, the API answers, and the server keeps 64 KiB of each answer, not 10 MB", async () => {
    const { app, receiver: healthy } = await setup();
    // 10 MB of 500, made as it is read: what the server takes is all the memory it costs.
    const piece = new Uint8Array(64 * 1024).fill(120);
    const flood = startReceiver(() => {
      let left = 10 * 1024 * 1024;
      return new Response(
        new ReadableStream({
          pull: (c) => (left <= 0 ? c.close() : (c.enqueue(piece), void (left -= piece.byteLength))),
        }),
        { status: 500 },
      );
    });
    const elsewhere = startReceiver();
    const redirect = startReceiver(() => Response.redirect(elsewhere.url, 307));
    const reset = Bun.listen({
      hostname: "127.0.0.1",
      port: 0,
      socket: { data: (socket) => socket.terminate(), open() {} },
    });
    cleanup.push(
      () => flood.stop(),
      () => elsewhere.stop(),
      () => redirect.stop(),
      () => reset.stop(true),
    );
    const fine = await subscribe(app, healthy, ["lead.created"]);
    const hostile = {
      flood: await subscribe(app, flood, ["lead.created"]),
      redirect: await subscribe(app, redirect, ["lead.created"]),
      reset: await subscribe(app, { ...healthy, url: `http://127.0.0.1:${reset.port}/hooks` }, ["lead.created"]),
    };
    const leads = 2 * PER_SUBSCRIPTION;
    for (let i = 0; i < leads; i++) await createLead(app);

    Bun.gc(true);
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
    const apiMs: number[] = [];
    const started = performance.now();
    app.webhooks.worker.start();
    try {
      // The API is asked all along; the healthy receiver is waited for.
      while (healthy.received.length < leads && performance.now() - started < 8_000) {
        const asked = performance.now();
        expect((await app.call("GET", "/v1/webhooks")).status).toBe(200);
        apiMs.push(performance.now() - asked);
        await Bun.sleep(10);
      }
      const healthyMs = performance.now() - started;
      const logOf = async (id: string) =>
        (await app.call("GET", `/v1/webhooks/${id}/deliveries?limit=100`)).body.data as any[];
      const recorded = async () =>
        (await Promise.all(Object.values(hostile).map((h) => logOf(h.id)))).every((log) =>
          log.every((d) => d.lastAttemptAt !== null),
        );
      while (!(await recorded()) && performance.now() - started < 15_000) await Bun.sleep(20);
      clearInterval(sampler);

      expect(healthy.received.length).toBe(leads);
      healthy.verifyAll(fine.secret);
      // Well inside one attempt's 10 s: nothing hostile held the healthy subscription's turn.
      expect(healthyMs).toBeLessThan(5_000);
      expect(apiMs.length).toBeGreaterThan(0);
      expect(Math.max(...apiMs)).toBeLessThan(1_000);
      // 32 answers of 10 MB read whole would add 320 MB; 64 KiB each (and what the sockets buffer) is a few dozen.
      expect((peak - before) / 1024 / 1024).toBeLessThan(160);
      for (const d of await logOf(hostile.flood.id)) {
        expect(d).toMatchObject({
          state: "pending",
          lastStatus: 500,
          lastError: expect.stringMatching(/^HTTP 500: x{200}…$/),
        });
      }
      for (const d of await logOf(hostile.redirect.id)) {
        expect(d).toMatchObject({
          state: "pending",
          lastStatus: 307,
          lastError: `HTTP 307: redirects are not followed (Location: ${elsewhere.url})`,
        });
      }
      for (const d of await logOf(hostile.reset.id))
        expect(d).toMatchObject({
          state: "pending",
          lastStatus: null,
          lastError: expect.stringMatching(/^connection failed: /),
        });
      expect(elsewhere.received).toEqual([]);
    } finally {
      clearInterval(sampler);
      await app.webhooks.worker.stop();
    }
  }, 30_000);
});

describe("metrics", () => {
  test("/metrics counts attempts and deliveries by event and outcome, their latency, and the oldest pending delivery's age", async () => {
    const { app, receiver } = await setup({ environment: "sandbox" }, () => new Response(null, { status: 500 }));
    await subscribe(app, receiver, ["lead.created"]);
    await createLead(app);
    await app.deliver();
    app.clock.advance(3000);
    const text = await (await app.request("/metrics")).text();
    expect(text).toContain('partner_api_webhook_attempts_total{event="lead.created",outcome="http_error"} 1');
    expect(text).toContain('partner_api_webhook_deliveries_total{event="lead.created",state="failed"} 0');
    expect(text).toContain('partner_api_webhook_attempt_duration_seconds_count{event="lead.created"} 1');
    expect(text).toMatch(/partner_api_webhook_oldest_pending_seconds\{database="main"\} 3(\.\d+)?\n/);
  });

  test("the oldest pending age counts events not yet turned into deliveries (dispatch lag), from when they happened", async () => {
    const { app, receiver } = await setup({ environment: "sandbox" });
    const gauge = async () => {
      const text = await (await app.request("/metrics")).text();
      return Number(/partner_api_webhook_oldest_pending_seconds\{database="main"\} (\S+)\n/.exec(text)![1]);
    };
    const db = outside(app);
    const change = () => {
      db.run("UPDATE leads SET status = 'LOST' WHERE rowid = (SELECT min(rowid) FROM leads)");
      return db.query("SELECT at FROM changes ORDER BY sequence DESC LIMIT 1").get() as { at: string };
    };
    // No subscription wants events: none waits, however old.
    const unwanted = change();
    app.clock.ms = Date.parse(unwanted.at) + 60_000;
    expect(await gauge()).toBe(0);
    // A subscription made now does not want what came before it either.
    const sub = await subscribe(app, receiver, ["lead.updated"]);
    expect(await gauge()).toBe(0);
    // An event after it waits for dispatch: its age counts from when it happened, before any delivery exists.
    const waiting = change();
    app.clock.ms = Date.parse(waiting.at) + 7_000;
    expect(await gauge()).toBe(7);
    app.clock.advance(5_000);
    expect(await gauge()).toBe(12);
    // Dispatched and delivered, nothing waits.
    await app.deliver();
    expect(receiver.verifyAll(sub.secret)).toHaveLength(1);
    expect(await gauge()).toBe(0);
  });
});
