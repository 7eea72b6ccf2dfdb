// Webhook deliveries and CRM feed runs as the agency sees them (docs/operators/console.md#webhook-deliveries,
// #crm-feeds) through the admin API: each attempt of a delivery, send again one or all failed
// since a time, a subscription disabled and enabled, feed runs with their rejections, a guarded
// run dropped; who may do what, and what an admin of other databases cannot see.
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { client, read } from "../../helpers/app.ts";
import { type ConsoleApp, consoleApp, jsonInit, type Session } from "./helpers.ts";

const crm = client("crm", { scopes: ["properties:read", "leads:read", "webhooks"] });
let t: ConsoleApp;
let owner: Session;
let viewer: Session;
let stranger: Session;
let db: Database;
let subscriptionId: string;

const T0 = Date.parse("2026-06-01T12:00:00.000Z");

function delivery(id: string, state: "pending" | "failed" | "succeeded", lastAttemptAt: number) {
  db.query(
    `INSERT INTO webhook_deliveries (id, subscription_id, type, sequence, payload, state, attempts, last_status, last_error,
       last_attempt_at, next_attempt_at, created_at, record_id, event_at)
     VALUES (?, ?, 'lead.created', 1, NULL, ?, 3, 500, 'HTTP 500', ?, ?, ?, 'lead-1', '2026-06-01T00:00:00.000Z')`,
  ).run(
    id,
    subscriptionId,
    state,
    lastAttemptAt,
    state === "pending" ? lastAttemptAt + 5000 : null,
    lastAttemptAt - 1000,
  );
}

beforeAll(async () => {
  t = consoleApp({ clients: [crm.entry], webhookTargets: { allowHttp: true, allowPrivateTargets: true } });
  const o = await t.admin("owner@agency.example", "owner");
  const v = await t.admin("viewer@agency.example", "viewer");
  const s = await t.admin("other@agency.example", "admin", ["elsewhere"]);
  owner = await t.signIn(o.email, o.secret);
  viewer = await t.signIn(v.email, v.secret);
  stranger = await t.signIn(s.email, s.secret);
  const token = await t.token(crm);
  const made = await t.request("/v1/webhooks", {
    ...jsonInit(
      "POST",
      { url: "http://127.0.0.1:9/hook", events: ["lead.created"] },
      { authorization: `Bearer ${token}` },
    ),
  });
  expect(made.status).toBe(201);
  subscriptionId = ((await made.json()) as { data: { id: string } }).data.id;
  db = new Database(t.runtime.config.databases.get("main")!);
  db.run("PRAGMA busy_timeout = 5000");
  delivery("msg_old", "failed", T0 - 3_600_000);
  delivery("msg_failed", "failed", T0 - 60_000);
  delivery("msg_pending", "pending", T0 - 10_000);
  delivery("msg_done", "succeeded", T0 - 5_000);
  for (const [status, answer] of [
    [500, "down for maintenance"],
    [200, '{"ok":true}'],
  ] as const)
    t.runtime.usage!.attempt({
      database: "main",
      subscriptionId,
      deliveryId: "msg_done",
      at: T0 - 5_000,
      status,
      ms: 12.5,
      error: status === 500 ? "HTTP 500" : null,
      answer,
    });
  t.runtime.usage!.feedRun({
    feedId: "crm-feed",
    database: "main",
    startedAt: T0 - 120_000,
    ms: 480,
    outcome: "guarded",
    error: "the feed would unpublish 28 of the 28 published listings",
    summary: null,
  });
  await t.runtime.usage!.flush();
});
afterAll(() => {
  db.close();
  t.close();
});

describe("deliveries", () => {
  test("a subscription's deliveries, newest first, each with its attempts", async () => {
    const { status, body } = await read(
      await owner.call(`/admin/v1/webhooks/subscriptions/${subscriptionId}/deliveries`),
    );
    expect(status).toBe(200);
    expect(body.data.deliveries.map((d: { id: string }) => d.id)).toEqual([
      "msg_done",
      "msg_pending",
      "msg_failed",
      "msg_old",
    ]);
    expect(body.data.deliveries[0].attempts).toEqual([
      {
        at: new Date(T0 - 5_000).toISOString(),
        status: 500,
        latencyMs: 12.5,
        error: "HTTP 500",
        answer: "down for maintenance",
      },
      { at: new Date(T0 - 5_000).toISOString(), status: 200, latencyMs: 12.5, error: null, answer: '{"ok":true}' },
    ]);
    expect(body.data.deliveries[1].nextAttemptAt).toBe(new Date(T0 - 5_000).toISOString());
    expect(body.data.deliveries[2].nextAttemptAt).toBeNull();
    const list = await read(await viewer.call("/admin/v1/webhooks/subscriptions"));
    expect(list.body.data[0].deliveries).toEqual({ pending: 1, succeeded: 1, failed: 2 });
    expect(JSON.stringify(list.body.data)).not.toContain("whsec_");
  });

  test("a viewer reads the statuses, never the receiver's answer (it may echo a lead)", async () => {
    const { body } = await read(await viewer.call(`/admin/v1/webhooks/subscriptions/${subscriptionId}/deliveries`));
    expect(body.data.deliveries[0].attempts.map((a: { answer: string | null }) => a.answer)).toEqual([null, null]);
    expect(body.data.deliveries[0].attempts[0].error).toBe("HTTP 500");
    const full = await read(await owner.call(`/admin/v1/webhooks/subscriptions/${subscriptionId}/deliveries`));
    expect(full.body.data.deliveries[0].attempts[0].answer).toBe("down for maintenance");
  });

  test("a viewer may not send again; an admin of other databases sees nothing", async () => {
    const refused = await viewer.call("/admin/v1/webhooks/deliveries/msg_failed/send-again", { method: "POST" });
    expect(refused.status).toBe(403);
    expect((await stranger.call("/admin/v1/webhooks/subscriptions")).status).toBe(200);
    expect((await read(await stranger.call("/admin/v1/webhooks/subscriptions"))).body.data).toEqual([]);
    expect((await stranger.call(`/admin/v1/webhooks/subscriptions/${subscriptionId}/deliveries`)).status).toBe(404);
    expect(
      (await stranger.call("/admin/v1/webhooks/deliveries/msg_failed/send-again", { method: "POST" })).status,
    ).toBe(404);
  });

  test("send again: a failed one goes back to pending, due now; anything else is a 409", async () => {
    expect((await owner.call("/admin/v1/webhooks/deliveries/msg_pending/send-again", { method: "POST" })).status).toBe(
      409,
    );
    expect((await owner.call("/admin/v1/webhooks/deliveries/msg_nope/send-again", { method: "POST" })).status).toBe(
      404,
    );
    const { status, body } = await read(
      await owner.call("/admin/v1/webhooks/deliveries/msg_failed/send-again", { method: "POST" }),
    );
    expect(status).toBe(200);
    expect(body.data).toMatchObject({ id: "msg_failed", state: "pending", attemptCount: 0 });
    expect(body.data.nextAttemptAt).toBe(new Date(t.clock.now()).toISOString());
    const row = db.query("SELECT state, lease_owner, payload FROM webhook_deliveries WHERE id = 'msg_failed'").get();
    expect(row).toEqual({ state: "pending", lease_owner: null, payload: null });
  });

  test("send again every one failed since a time: only those", async () => {
    const since = new Date(T0 - 7_200_000).toISOString();
    expect(
      (await owner.call(`/admin/v1/webhooks/subscriptions/${subscriptionId}/send-again`, jsonInit("POST", {}))).status,
    ).toBe(400);
    const { body } = await read(
      await owner.call(`/admin/v1/webhooks/subscriptions/${subscriptionId}/send-again`, jsonInit("POST", { since })),
    );
    expect(body.data).toEqual({ subscriptionId, sentAgain: 1 });
    expect(db.query("SELECT state FROM webhook_deliveries WHERE id = 'msg_old'").get()).toEqual({ state: "pending" });
  });

  test("disabled, what waits fails with the reason; enabled again; both audited", async () => {
    const off = await read(
      await owner.call(`/admin/v1/webhooks/subscriptions/${subscriptionId}`, jsonInit("PATCH", { enabled: false })),
    );
    expect(off.body.data).toMatchObject({
      enabled: false,
      disabledReason: expect.stringContaining("owner@agency.example"),
    });
    const states = db.query("SELECT id, state, last_error FROM webhook_deliveries ORDER BY id").all() as {
      id: string;
      state: string;
      last_error: string;
    }[];
    expect(states.filter((d) => d.state === "pending")).toEqual([]);
    expect(states.find((d) => d.id === "msg_pending")!.last_error).toContain("disabled by the agency");
    expect((await owner.call("/admin/v1/webhooks/deliveries/msg_pending/send-again", { method: "POST" })).status).toBe(
      409,
    );
    const on = await read(
      await owner.call(`/admin/v1/webhooks/subscriptions/${subscriptionId}`, jsonInit("PATCH", { enabled: true })),
    );
    expect(on.body.data).toMatchObject({ enabled: true, disabledReason: null });
    expect(
      (await owner.call(`/admin/v1/webhooks/subscriptions/${subscriptionId}`, jsonInit("PATCH", { enabled: "no" })))
        .status,
    ).toBe(400);
    const audit = await read(await owner.call("/admin/v1/audit?action=webhook.subscription.disable"));
    expect(audit.body.meta.total).toBe(1);
  });
});

describe("feed runs", () => {
  test("a run the guard held is listed with its reason; applied needs a process that runs feeds; dropped once", async () => {
    t.reload({ feeds: [{ id: "crm-feed", database: "main", url: "http://127.0.0.1:9/feed.xml?token=secret-value" }] });
    const feeds = await read(await viewer.call("/admin/v1/feeds"));
    expect(feeds.body.data[0]).toMatchObject({
      id: "crm-feed",
      database: "main",
      url: "http://127.0.0.1:9/feed.xml?…",
    });
    expect(feeds.body.data[0].lastRun).toMatchObject({ outcome: "guarded", decision: null });
    const runs = await read(await viewer.call("/admin/v1/feeds/crm-feed/runs"));
    expect(runs.body.meta.total).toBe(1);
    const run = runs.body.data[0];
    expect(run).toMatchObject({ feed: "crm-feed", durationMs: 480, outcome: "guarded", counts: null, rejections: [] });
    expect(run.error).toContain("would unpublish 28");
    expect((await viewer.call(`/admin/v1/feeds/runs/${run.id}/drop`, { method: "POST" })).status).toBe(403);
    expect((await stranger.call(`/admin/v1/feeds/runs/${run.id}/drop`, { method: "POST" })).status).toBe(404);
    // This app runs no feeds (no scheduler): applying answers 503 and decides nothing.
    expect((await owner.call(`/admin/v1/feeds/runs/${run.id}/apply`, { method: "POST" })).status).toBe(503);
    expect((await owner.call("/admin/v1/feeds/crm-feed/run", { method: "POST" })).status).toBe(503);
    const dropped = await read(await owner.call(`/admin/v1/feeds/runs/${run.id}/drop`, { method: "POST" }));
    expect(dropped.status).toBe(200);
    expect(dropped.body.data.run.decision).toMatchObject({ action: "dropped", by: "owner@agency.example" });
    expect((await owner.call(`/admin/v1/feeds/runs/${run.id}/drop`, { method: "POST" })).status).toBe(409);
    expect((await owner.call("/admin/v1/feeds/runs/abc/drop", { method: "POST" })).status).toBe(404);
  });
});
