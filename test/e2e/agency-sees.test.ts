// What the agency sees of webhooks and CRM feeds, on the compiled binary
// (docs/operators/console.md#webhook-deliveries, #crm-feeds): a failing local receiver's
// delivery shows each attempt (status, latency, the start of the answer) and its next retry;
// disabled and enabled again, "send again" delivers it. A CRM feed's first run is held by its
// guard; applied by an admin, it runs with the guard lifted, and its rejections show with
// their reasons.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { hashSecret } from "../../src/security/secrets.ts";
import { ownerOnBinary } from "../helpers/admin-session.ts";
import { binaryInNewFolder, freePort, waitHealthy } from "../helpers/binary.ts";

setDefaultTimeout(120_000);

const FIXTURE = join(import.meta.dir, "../fixtures/vrsync/rejections.xml");
let dir: string;
let binary: string;
let proc: ReturnType<typeof Bun.spawn> | null = null;
let url = "";
let bearer = "";
let answer = { status: 500, body: "receiver down: database locked (trace 7731)" };
const received: string[] = [];

const receiver = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  async fetch(request) {
    await request.text();
    received.push(request.headers.get("webhook-id") ?? "");
    return new Response(answer.body, { status: answer.status });
  },
});
const crm = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  fetch: () => new Response(readFileSync(FIXTURE), { headers: { "content-type": "application/xml" } }),
});

beforeAll(async () => {
  ({ dir, binary } = binaryInNewFolder("pa-agency-sees-"));
  const seeded = Bun.spawnSync(
    [binary, "seed", "--out", join(dir, "agency.sqlite"), "--properties", "30", "--leads", "5"],
    { cwd: dir },
  );
  if (seeded.exitCode !== 0) throw new Error(seeded.stderr.toString());
  const config = join(dir, "config.json");
  writeFileSync(
    config,
    JSON.stringify({
      jwtSecret: "a-jwt-secret-long-enough-for-the-agency-test-0123",
      databases: { agency: join(dir, "agency.sqlite") },
      clients: [
        {
          id: "crm-partner",
          apiKey: "pk_live_crm_partner",
          secretHash: hashSecret("sk_live_crm_partner"),
          database: "agency",
          rateLimitPerMinute: 1000,
          scopes: ["properties:read", "leads:create", "leads:read", "webhooks"],
        },
      ],
      webhooks: { allowHttp: true, allowPrivateTargets: true },
      feeds: [{ id: "crm", database: "agency", url: `http://127.0.0.1:${crm.port}/feed.xml`, every: "1h" }],
    }),
  );
  const port = freePort();
  proc = Bun.spawn([binary, "serve", "--config", config, "--port", String(port)], {
    cwd: dir,
    stdout: "ignore",
    stderr: "ignore",
  });
  url = `http://127.0.0.1:${port}`;
  await waitHealthy(url);
  ({ token: bearer } = await ownerOnBinary(binary, dir, config, url));
}, 120_000);
afterAll(() => {
  proc?.kill("SIGKILL");
  receiver.stop(true);
  crm.stop(true);
  rmSync(dir, { recursive: true, force: true });
});

async function admin(method: string, path: string, body?: unknown) {
  const r = await fetch(`${url}/admin/v1${path}`, {
    method,
    headers: {
      authorization: `Bearer ${bearer}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: r.status, body: (await r.json()) as any };
}

async function until<T>(what: string, check: () => Promise<T | null | undefined | false>, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(150);
  }
}

test("a failing receiver's delivery shows each attempt; sent again, it is delivered", async () => {
  const issued = await fetch(`${url}/v1/auth/token`, {
    method: "POST",
    headers: { "x-api-key": "pk_live_crm_partner", "x-api-secret": "sk_live_crm_partner" },
  });
  const token = ((await issued.json()) as { data: { token: string } }).data.token;
  const partner = (path: string, body: unknown) =>
    fetch(`${url}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  const made = await partner("/v1/webhooks", {
    url: `http://127.0.0.1:${receiver.port}/hook`,
    events: ["lead.created"],
  });
  expect(made.status).toBe(201);
  const subscriptionId = ((await made.json()) as { data: { id: string } }).data.id;
  const startedAt = new Date(Date.now() - 1000).toISOString();
  const lead = await partner("/v1/leads", {
    name: "Rita Souza",
    email: "rita@example.com",
    phone: "+55 21 99876-5432",
    message: "Visita",
  });
  expect(lead.status).toBe(201);

  // The first attempt: a 500, its latency, the start of the answer, and the next retry.
  const first = await until("the first attempt", async () => {
    const { body } = await admin("GET", `/webhooks/subscriptions/${subscriptionId}/deliveries`);
    const delivery = body.data?.deliveries?.[0];
    return delivery?.attempts?.length === 1 && delivery.nextAttemptAt !== null ? delivery : null;
  });
  expect(first).toMatchObject({ type: "lead.created", state: "pending", lastStatus: 500 });
  expect(first.attempts[0]).toMatchObject({ status: 500, answer: "receiver down: database locked (trace 7731)" });
  expect(first.attempts[0].latencyMs).toBeGreaterThan(0);
  expect(Date.parse(first.nextAttemptAt)).toBeGreaterThan(Date.parse(first.attempts[0].at));

  const list = await admin("GET", "/webhooks/subscriptions");
  expect(list.body.data).toHaveLength(1);
  expect(list.body.data[0]).toMatchObject({ id: subscriptionId, client: "crm-partner", enabled: true });
  expect(list.body.data[0].deliveries.pending).toBe(1);

  // Disabled: what waited fails at once; a failed delivery of a disabled subscription is not sent again.
  const disabled = await admin("PATCH", `/webhooks/subscriptions/${subscriptionId}`, { enabled: false });
  expect(disabled.status).toBe(200);
  expect(disabled.body.data.enabled).toBe(false);
  const failed = await admin("GET", `/webhooks/subscriptions/${subscriptionId}/deliveries?state=failed`);
  expect(failed.body.data.deliveries.map((d: { id: string }) => d.id)).toEqual([first.id]);
  expect((await admin("POST", `/webhooks/deliveries/${first.id}/send-again`)).status).toBe(409);

  // Enabled again, the receiver well: send again every failed one since before the lead.
  expect((await admin("PATCH", `/webhooks/subscriptions/${subscriptionId}`, { enabled: true })).status).toBe(200);
  answer = { status: 200, body: '{"ok":true}' };
  const again = await admin("POST", `/webhooks/subscriptions/${subscriptionId}/send-again`, { since: startedAt });
  expect(again.body.data).toEqual({ subscriptionId, sentAgain: 1 });
  const delivered = await until("the delivery sent again", async () => {
    const { body } = await admin("GET", `/webhooks/subscriptions/${subscriptionId}/deliveries`);
    const delivery = body.data.deliveries[0];
    return delivery.state === "succeeded" && delivery.attempts.length === 2 ? delivery : null;
  });
  expect(delivered.attempts.map((a: { status: number }) => a.status)).toEqual([500, 200]);
  expect(delivered.attempts[1].answer).toBe('{"ok":true}');
  expect(delivered.nextAttemptAt).toBeNull();
  expect(received.filter((id) => id === first.id)).toHaveLength(2);
  // Sending again what succeeded is refused.
  expect((await admin("POST", `/webhooks/deliveries/${first.id}/send-again`)).status).toBe(409);
});

test("a feed run held by its guard, applied by an admin, shows its rejections with their reasons", async () => {
  const guarded = await until("the guarded first run", async () => {
    const { body } = await admin("GET", "/feeds/crm/runs");
    return body.data?.find((r: { outcome: string }) => r.outcome === "guarded");
  });
  expect(guarded.error).toContain("maxUnpublishRatio");
  const feeds = await admin("GET", "/feeds");
  expect(feeds.body.data[0]).toMatchObject({ id: "crm", database: "agency", mode: "full" });
  expect(feeds.body.data[0].lastRun.outcome).toBe("guarded");

  const applied = await admin("POST", `/feeds/runs/${guarded.id}/apply`);
  expect(applied.status).toBe(200);
  expect(applied.body.data.run.decision).toMatchObject({ action: "applied", by: expect.stringMatching(/^token:/) });
  const run = await until("the applied run", async () => {
    const { body } = await admin("GET", "/feeds/crm/runs");
    return body.data.find((r: { outcome: string }) => r.outcome === "success");
  });
  expect(run.counts).toMatchObject({ created: 6, rejected: 3 });
  expect(run.rejections).toHaveLength(3);
  expect(run.rejections.find((r: { code: string | null }) => r.code === "TT-1").reason).toMatch(/^line \d+/);
  expect(run.warnings).toMatchObject({ OUT_OF_RANGE: 1, FOREIGN_CURRENCY: 1 });
  // Decided once only; a run that was not guarded is not decided at all.
  expect((await admin("POST", `/feeds/runs/${guarded.id}/drop`)).status).toBe(409);
  expect((await admin("POST", `/feeds/runs/${run.id}/drop`)).status).toBe(409);
  // Run now: accepted, and a run appears.
  const before = (await admin("GET", "/feeds/crm/runs")).body.meta.total;
  expect((await admin("POST", "/feeds/crm/run")).status).toBe(202);
  await until("the run asked for", async () => (await admin("GET", "/feeds/crm/runs")).body.meta.total > before);
});
