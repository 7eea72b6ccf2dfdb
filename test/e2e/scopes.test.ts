// Scopes and lead ownership (docs/partners/scopes.md) in the compiled binary, as an agency runs
// it: a portal, a website, the agency's CRM and a read-only client on one database. Route by
// route, no lead's contact details reach a client that may not read it; the CRM's PATCH
// reaches the portal's subscription, signed; a missing scope answers 403 on every route.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Webhook } from "standardwebhooks";
import { hashSecret } from "../../src/security/secrets.ts";
import { binaryInNewFolder, type RunningBinary, startBinary } from "../helpers/binary.ts";

type Who = "portal" | "website" | "crm" | "reader";
const SCOPES: Record<Who, string[] | undefined> = {
  portal: undefined, // the defaults: a portal or a website
  website: undefined,
  crm: ["leads:read", "leads:update", "webhooks"],
  reader: ["properties:read"],
};
const credentials = (who: Who) => ({ key: `pk_live_${who}_key0`, secret: `sk_live_${who}_secret` });

let dir: string;
let binary: string;
let server: RunningBinary;
const tokens = {} as Record<Who, string>;
/** Each partner's leads carry contact details of their own, so any leak shows in a body's text. */
const contact = (who: "portal" | "website", i: number) => ({
  name: `${who} contact ${i}`,
  email: `${who}.contact${i}@example.com`,
  phone: `+55 11 9${who === "portal" ? "1111" : "2222"}-000${i}`,
  message: "Quero visitar",
});
const created: Record<"portal" | "website", string[]> = { portal: [], website: [] };
const receivers: Record<
  "portal" | "website",
  { server: ReturnType<typeof Bun.serve>; bodies: { body: string; headers: Record<string, string> }[] }
> = {} as never;
const secrets: Record<string, string> = {};

function config(scopes: Record<Who, string[] | undefined>) {
  return {
    environment: "production",
    jwtSecret: "e2e-secret-that-is-long-enough-0123456789",
    databases: { agency: "agency.sqlite" },
    webhooks: { allowHttp: true, allowPrivateTargets: true },
    clients: (Object.keys(scopes) as Who[]).map((who) => ({
      id: who,
      apiKey: credentials(who).key,
      secretHash: hashSecret(credentials(who).secret),
      database: "agency",
      rateLimitPerMinute: 10_000,
      ...(scopes[who] === undefined ? {} : { scopes: scopes[who] }),
    })),
  };
}

async function call(who: Who, method: string, path: string, body?: unknown): Promise<{ status: number; text: string }> {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${tokens[who]}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, text: await response.text() };
}

/** Waits (bounded) until `check` holds: the server's webhook worker delivers on its own schedule. */
async function eventually(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 300 && !check(); i++) await Bun.sleep(50);
  if (!check()) throw new Error(`still not: ${what}`);
}

beforeAll(async () => {
  ({ dir, binary } = binaryInNewFolder("pa-scopes-"));
  expect(
    Bun.spawnSync([binary, "seed", "--out", join(dir, "agency.sqlite"), "--properties", "50", "--leads", "40"], {
      cwd: dir,
    }).exitCode,
  ).toBe(0);
  writeFileSync(join(dir, "config.json"), JSON.stringify(config(SCOPES)));
  server = await startBinary(binary, ["serve", "--config", "config.json"], dir);
  for (const who of Object.keys(SCOPES) as Who[]) {
    const response = await fetch(`${server.url}/v1/auth/token`, {
      method: "POST",
      headers: { "x-api-key": credentials(who).key, "x-api-secret": credentials(who).secret },
    });
    tokens[who] = ((await response.json()) as { data: { token: string } }).data.token;
  }
  for (const who of ["portal", "website"] as const) {
    const bodies: { body: string; headers: Record<string, string> }[] = [];
    const receiver = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch: async (request) => {
        bodies.push({ body: await request.text(), headers: Object.fromEntries(request.headers) });
        return new Response(null, { status: 204 });
      },
    });
    receivers[who] = { server: receiver, bodies };
    const subscribed = await call(who, "POST", "/v1/webhooks", {
      url: `http://127.0.0.1:${receiver.port}/hook`,
      events: ["lead.created", "lead.updated"],
    });
    expect(subscribed.status).toBe(201);
    secrets[who] = JSON.parse(subscribed.text).data.secret;
  }
  for (let i = 0; i < 3; i++) {
    for (const who of ["portal", "website"] as const) {
      const response = await call(who, "POST", "/v1/leads", contact(who, i));
      expect(response.status).toBe(201);
      created[who].push(JSON.parse(response.text).data.id);
    }
  }
}, 120_000);

afterAll(async () => {
  await server?.stop();
  for (const r of Object.values(receivers)) r.server.stop(true);
  rmSync(dir, { recursive: true, force: true });
});

/** Text that would show another partner's lead: its ids and contact details. */
const traces = (who: "portal" | "website") => [
  ...created[who],
  ...[0, 1, 2].flatMap((i) => [contact(who, i).email, contact(who, i).phone]),
];

describe("no lead's contact details reach a client that may not read it", () => {
  test("a config naming an unknown scope does not start: exit 2, naming it", () => {
    writeFileSync(join(dir, "bad.json"), JSON.stringify(config({ ...SCOPES, crm: ["leads:read", "leads:delete"] })));
    const result = Bun.spawnSync([binary, "serve", "--config", "bad.json"], {
      cwd: dir,
      stdout: "pipe",
      stderr: "pipe",
    });
    expect(result.exitCode).toBe(2);
    expect(result.stderr.toString()).toContain('unknown scope "leads:delete"');
  });

  test("lists, totals, single records, the change feed and values: the portal never sees the website's leads, nor the website the portal's", async () => {
    for (const [who, other] of [
      ["portal", "website"],
      ["website", "portal"],
    ] as const) {
      const list = await call(who, "GET", "/v1/leads?fields=id,name,email,phone,createdBy&limit=100");
      expect(list.status).toBe(200);
      const page = JSON.parse(list.text);
      expect(page.data.map((l: any) => l.id).sort()).toEqual([...created[who]].sort());
      expect(page.meta.total).toBe(created[who].length);
      const changes = await call(who, "GET", "/v1/changes?entity=leads&limit=1000");
      expect(
        JSON.parse(changes.text)
          .data.map((c: any) => c.id)
          .sort(),
      ).toEqual([...created[who]].sort());
      const values = await call(who, "GET", "/v1/values/leads/createdBy");
      expect(JSON.parse(values.text).data.values).toEqual([who]);
      for (const id of created[other]) {
        const single = await call(who, "GET", `/v1/leads/${id}?fields=id,name,email,phone`);
        expect({ id, status: single.status }).toEqual({ id, status: 404 });
        for (const text of [single.text]) for (const trace of traces(other)) expect(text).not.toContain(trace);
      }
      for (const text of [list.text, changes.text, values.text])
        for (const trace of traces(other)) expect(text).not.toContain(trace);
    }
  });

  test("the CRM reads every lead; the read-only client none", async () => {
    const all = JSON.parse((await call("crm", "GET", "/v1/leads?fields=id&limit=1")).text);
    expect(all.meta.total).toBe(40 + 6);
    for (const path of [
      "/v1/leads?fields=id",
      `/v1/leads/${created.portal[0]}?fields=id`,
      "/v1/changes?entity=leads",
      "/v1/values/leads/createdBy",
    ]) {
      const refused = await call("reader", "GET", path);
      expect({ path, status: refused.status, body: JSON.parse(refused.text) }).toEqual({
        path,
        status: 403,
        body: { error: "Missing scope: leads:read:own", code: "INSUFFICIENT_SCOPE" },
      });
    }
  });

  test("webhooks: each partner is sent its own leads only, signed", async () => {
    await eventually(
      () => receivers.portal.bodies.length >= 3 && receivers.website.bodies.length >= 3,
      "three lead.created each",
    );
    for (const who of ["portal", "website"] as const) {
      const verified = receivers[who].bodies.map((b) => new Webhook(secrets[who]!).verify(b.body, b.headers) as any);
      expect(verified.map((p) => p.data.id).sort()).toEqual([...created[who]].sort());
      for (const b of receivers[who].bodies)
        for (const trace of traces(who === "portal" ? "website" : "portal")) expect(b.body).not.toContain(trace);
    }
  });

  test("the CRM's PATCH reaches the portal's subscription, signed, and not the website's", async () => {
    receivers.portal.bodies.length = 0;
    receivers.website.bodies.length = 0;
    const id = created.portal[0]!;
    const patched = await call("crm", "PATCH", `/v1/leads/${id}`, { status: "VISIT_SCHEDULED", priority: "HIGH" });
    expect(patched.status).toBe(200);
    expect(JSON.parse(patched.text).data).toMatchObject({
      id,
      status: "VISIT_SCHEDULED",
      priority: "HIGH",
      createdBy: "portal",
    });
    await eventually(() => receivers.portal.bodies.length >= 1, "the portal's lead.updated");
    const event = new Webhook(secrets.portal!).verify(
      receivers.portal.bodies[0]!.body,
      receivers.portal.bodies[0]!.headers,
    ) as any;
    expect([event.type, event.data.id, event.data.record.status, event.data.record.priority]).toEqual([
      "lead.updated",
      id,
      "VISIT_SCHEDULED",
      "HIGH",
    ]);
    // The website is told of nothing: a lead of its own created now arrives, and alone.
    const own = await call("website", "POST", "/v1/leads", contact("website", 9));
    await eventually(() => receivers.website.bodies.length >= 1, "the website's own lead");
    expect(receivers.website.bodies.map((b) => JSON.parse(b.body).data.id)).toEqual([JSON.parse(own.text).data.id]);
  });

  test("a replay sends again only what the subscription's client reads", async () => {
    receivers.website.bodies.length = 0;
    const subscription = JSON.parse((await call("website", "GET", "/v1/webhooks")).text).data[0];
    expect((await call("website", "POST", `/v1/webhooks/${subscription.id}/replay`, { after: 0 })).status).toBe(202);
    const own = JSON.parse((await call("website", "GET", "/v1/leads?fields=id&limit=100")).text).data.map(
      (l: any) => l.id,
    );
    await eventually(
      () => new Set(receivers.website.bodies.map((b) => JSON.parse(b.body).data.id)).size >= own.length,
      "the replay",
    );
    expect([...new Set(receivers.website.bodies.map((b) => JSON.parse(b.body).data.id))].sort()).toEqual(
      [...own].sort(),
    );
  });

  test("a missing scope answers 403 on every route it guards", async () => {
    const id = crypto.randomUUID();
    const cases: [Who, string, string, string, unknown?][] = [
      ["crm", "GET", "/v1/properties?fields=id", "properties:read"],
      ["crm", "GET", `/v1/properties/${id}?fields=id`, "properties:read"],
      ["crm", "GET", "/v1/values/properties/status".replace("status", "propertyType"), "properties:read"],
      ["crm", "GET", "/v1/changes?entity=properties", "properties:read"],
      ["crm", "GET", "/v1/feeds/vrsync.xml", "feed:read"],
      ["crm", "POST", "/v1/leads", "leads:create", contact("portal", 5)],
      ["portal", "PATCH", `/v1/leads/${created.portal[1]}`, "leads:update", { status: "LOST" }],
      ["reader", "GET", "/v1/leads?fields=id", "leads:read:own"],
      ["reader", "GET", "/v1/webhooks", "webhooks"],
      ["reader", "POST", "/v1/webhooks", "webhooks", { url: "http://127.0.0.1:9/x", events: ["webhook.test"] }],
    ];
    for (const [who, method, path, scope, body] of cases) {
      const answer = await call(who, method, path, body);
      expect({ who, path, status: answer.status, body: JSON.parse(answer.text) }).toEqual({
        who,
        path,
        status: 403,
        body: { error: `Missing scope: ${scope}`, code: "INSUFFICIENT_SCOPE" },
      });
    }
    const lead = JSON.parse((await call("crm", "GET", `/v1/leads/${created.portal[1]}?fields=status`)).text).data;
    expect(lead.status).toBe("NEW_LEAD");
  });
});
