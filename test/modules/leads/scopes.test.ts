// What each partner may do (docs/partners/scopes.md), route by route, through app.handle: a
// portal and a website on one database (default scopes: each reads its own leads), the
// agency's CRM (every lead, the funnel) and a read-only client (properties only). Every
// expectation about which leads a client sees is checked against the database file read
// here with a connection of the test's own.
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { ConfigFile } from "../../../src/config/schema.ts";
import { client, read } from "../../helpers/app.ts";
import {
  createLead,
  OTHER,
  PARTNER,
  type Receiver,
  startReceiver,
  type WebhookApp,
  webhookApp,
} from "../webhooks/helpers.ts";

const crm = client("crm", { scopes: ["leads:read", "leads:update", "webhooks"] });
const reader = client("reader", { scopes: ["properties:read", "webhooks"] });
const nothing = client("nothing", { scopes: [] });

type Entry = ConfigFile["clients"][number];

/** The suite's clients as configured, with some entries replaced (by id). */
function clientsWith(changes: Record<string, Entry> = {}): Entry[] {
  const entries = [
    client(PARTNER.id, { scopes: undefined }).entry,
    client(OTHER.id, { scopes: undefined }).entry,
    crm.entry,
    reader.entry,
    nothing.entry,
  ];
  return entries.map((entry) => changes[entry.id] ?? entry);
}

/** Runs `body` with some clients configured otherwise, as a reload (SIGHUP) would, then puts the suite's back. */
async function withClients(changes: Record<string, Entry>, body: () => Promise<void>): Promise<void> {
  app.reload({ clients: clientsWith(changes) });
  try {
    await body();
  } finally {
    app.reload({ clients: clientsWith() });
  }
}

let app: WebhookApp;
let db: Database;
const tokens: Record<"portal" | "website" | "crm" | "reader" | "nothing", string> = {
  portal: "",
  website: "",
  crm: "",
  reader: "",
  nothing: "",
};
const leads: Record<"portal" | "website", string[]> = { portal: [], website: [] };
let seededLead = "";

/** The ids of the leads `owner` created, read from the file, newest first as the list sorts them. */
const ownedIds = (owner: string) =>
  (
    db.query("SELECT id FROM leads WHERE created_by = ? ORDER BY created_at DESC, id DESC").values(owner) as [string][]
  ).map((r) => r[0]);
const changeCount = () => (db.query("SELECT count(*) FROM changes").values() as [number][])[0]![0];

beforeAll(async () => {
  app = await webhookApp({ clients: clientsWith() });
  tokens.portal = app.partner;
  tokens.website = app.other;
  tokens.crm = await app.token(crm);
  tokens.reader = await app.token(reader);
  tokens.nothing = await app.token(nothing);
  db = new Database(app.runtime.config.databases.get("main")!, { readonly: true });
  seededLead = (db.query("SELECT id FROM leads WHERE created_by IS NULL LIMIT 1").values() as [string][])[0]![0];
  for (let i = 0; i < 3; i++) {
    leads.portal.push((await createLead(app, tokens.portal)).id);
    app.clock.advance(1000);
    leads.website.push((await createLead(app, tokens.website)).id);
    app.clock.advance(1000);
  }
});

afterAll(() => {
  db?.close();
  app?.close();
});

describe("attribution", () => {
  test("every lead keeps the client that created it; seeded leads have none", async () => {
    expect(ownedIds("partner").sort()).toEqual([...leads.portal].sort());
    expect(ownedIds("other").sort()).toEqual([...leads.website].sort());
    const { body } = await read(await app.get(`/v1/leads/${leads.portal[0]}?fields=id,createdBy`, tokens.crm));
    expect(body.data).toEqual({ id: leads.portal[0], createdBy: "partner" });
    const seeded = await read(await app.get(`/v1/leads/${seededLead}?fields=createdBy`, tokens.crm));
    expect(seeded.body.data).toEqual({ createdBy: null });
  });
});

describe("lists and their totals carry only readable leads", () => {
  test("a portal lists its own leads, with an exact total; the CRM lists every lead", async () => {
    const own = await read(await app.get("/v1/leads?fields=id,createdBy&limit=100", tokens.portal));
    expect(own.body.data.map((l: any) => l.id)).toEqual(ownedIds("partner"));
    expect(own.body.meta.total).toBe(leads.portal.length);
    expect(new Set(own.body.data.map((l: any) => l.createdBy))).toEqual(new Set(["partner"]));
    const all = await read(await app.get("/v1/leads?fields=id&limit=1", tokens.crm));
    expect(all.body.meta.total).toBe((db.query("SELECT count(*) FROM leads").values() as [number][])[0]![0]);
  });

  test("filters narrow within what the client reads: status, dates, and createdBy naming someone else finds nothing", async () => {
    const byStatus = await read(await app.get("/v1/leads?fields=id&status=NEW_LEAD&limit=100", tokens.portal));
    expect(byStatus.body.meta.total).toBe(leads.portal.length);
    const after = new Date(app.clock.now() - 4500).toISOString();
    const recent = await read(await app.get(`/v1/leads?fields=id&createdAfter=${after}&limit=100`, tokens.website));
    const expected = (
      db
        .query("SELECT id FROM leads WHERE created_by = 'other' AND created_at > ? ORDER BY created_at DESC, id DESC")
        .values(after) as [string][]
    ).map((r) => r[0]);
    expect(recent.body.data.map((l: any) => l.id)).toEqual(expected);
    expect(recent.body.meta.total).toBe(expected.length);
    const poached = await read(await app.get("/v1/leads?fields=id,email&createdBy=other", tokens.portal));
    expect(poached.body).toEqual({ data: [], meta: { page: 1, limit: 20, total: 0, totalPages: 0 } });
    const mine = await read(await app.get("/v1/leads?fields=id&createdBy=partner&limit=100", tokens.portal));
    expect(mine.body.meta.total).toBe(leads.portal.length);
    const crmView = await read(await app.get("/v1/leads?fields=id&createdBy=other&limit=100", tokens.crm));
    expect(crmView.body.data.map((l: any) => l.id)).toEqual(ownedIds("other"));
  });
});

describe("single records", () => {
  test("another partner's lead and a seeded one are 404s exactly like an id that does not exist", async () => {
    const missing = await read(await app.get(`/v1/leads/${crypto.randomUUID()}?fields=id`, tokens.portal));
    expect(missing.status).toBe(404);
    for (const id of [leads.website[0], seededLead]) {
      const other = await read(await app.get(`/v1/leads/${id}?fields=id,name,email,phone`, tokens.portal));
      expect({ status: other.status, body: other.body }).toEqual({ status: 404, body: missing.body });
    }
    expect((await app.get(`/v1/leads/${leads.portal[0]}?fields=id`, tokens.portal)).status).toBe(200);
    expect((await app.get(`/v1/leads/${leads.website[0]}?fields=id`, tokens.crm)).status).toBe(200);
  });
});

describe("the change feed", () => {
  test("lead entries are the client's own leads; head is the last of them", async () => {
    const own = await read(await app.get("/v1/changes?entity=leads&limit=1000", tokens.portal));
    const expected = db
      .query(
        "SELECT sequence, record_id FROM changes WHERE entity = 'leads' AND record_id IN (SELECT id FROM leads WHERE created_by = 'partner') ORDER BY sequence",
      )
      .all() as {
      sequence: number;
      record_id: string;
    }[];
    // Numbered in a stream of its own leads alone: 1, 2, 3… in the order they were written.
    expect(own.body.data.map((c: any) => [c.sequence, c.id])).toEqual(expected.map((c, i) => [i + 1, c.record_id]));
    expect(own.body.meta.head).toBe(expected.length);
    // The CRM's stream numbers every lead entry (nothing is compacted here).
    const all = await read(await app.get("/v1/changes?entity=leads&limit=1", tokens.crm));
    expect(all.body.meta.head).toBe(
      (db.query("SELECT count(*) FROM changes WHERE entity = 'leads'").values() as [number][])[0]![0],
    );
  });

  test("a client without a lead scope gets 403 for lead entries, and properties without properties:read", async () => {
    const leadsFeed = await read(await app.get("/v1/changes?entity=leads", tokens.reader));
    expect({ status: leadsFeed.status, body: leadsFeed.body }).toEqual({
      status: 403,
      body: { error: "Missing scope: leads:read:own", code: "INSUFFICIENT_SCOPE" },
    });
    expect((await app.get("/v1/changes?entity=properties", tokens.reader)).status).toBe(200);
    const properties = await read(await app.get("/v1/changes?entity=properties", tokens.crm));
    expect({ status: properties.status, body: properties.body }).toEqual({
      status: 403,
      body: { error: "Missing scope: properties:read", code: "INSUFFICIENT_SCOPE" },
    });
  });
});

describe("values", () => {
  test("createdBy lists the owners of readable leads; enumerations stay open to every client", async () => {
    expect((await read(await app.get("/v1/values/leads/createdBy", tokens.portal))).body.data.values).toEqual([
      "partner",
    ]);
    const owners = (
      db.query("SELECT DISTINCT created_by FROM leads WHERE created_by IS NOT NULL ORDER BY 1").values() as [string][]
    ).map((r) => r[0]);
    expect((await read(await app.get("/v1/values/leads/createdBy", tokens.crm))).body.data.values).toEqual(owners);
    expect((await app.get("/v1/values/leads/createdBy", tokens.reader)).status).toBe(403);
    expect((await app.get("/v1/values/properties/propertyType", tokens.crm)).status).toBe(403);
    for (const path of ["/v1/values/leads/status", "/v1/values/properties/status", "/v1/fields"]) {
      expect({ path, status: (await app.get(path, tokens.nothing)).status }).toEqual({ path, status: 200 });
    }
  });
});

describe("webhooks carry only readable leads", () => {
  let receivers: Record<"portal" | "website" | "crm", Receiver>;
  const secrets: Record<string, string> = {};

  beforeAll(async () => {
    receivers = { portal: startReceiver(), website: startReceiver(), crm: startReceiver() };
    for (const who of ["portal", "website", "crm"] as const) {
      const { status, body } = await app.call(
        "POST",
        "/v1/webhooks",
        { url: receivers[who].url, events: ["lead.created", "lead.updated"] },
        tokens[who],
      );
      expect(status).toBe(201);
      secrets[who] = body.data.secret;
    }
  });
  afterAll(() => {
    for (const r of Object.values(receivers)) r.stop();
  });

  test("lead.created reaches the partner that sent the lead and the CRM, never the other partner", async () => {
    const fromPortal = (await createLead(app, tokens.portal)).id;
    const fromWebsite = (await createLead(app, tokens.website)).id;
    await app.deliver();
    const ids = (who: "portal" | "website" | "crm") =>
      (receivers[who].verifyAll(secrets[who]!) as any[]).map((p) => p.data.id);
    expect(ids("portal")).toEqual([fromPortal]);
    expect(ids("website")).toEqual([fromWebsite]);
    expect(ids("crm").sort()).toEqual([fromPortal, fromWebsite].sort());
  });

  test("the CRM's PATCH sends lead.updated, signed, to the portal that sent the lead (and the CRM), not the website", async () => {
    for (const r of Object.values(receivers)) r.received.length = 0;
    const id = leads.portal[1]!;
    const patched = await app.call("PATCH", `/v1/leads/${id}`, { status: "VISIT_SCHEDULED" }, tokens.crm);
    expect(patched.status).toBe(200);
    await app.deliver();
    const portalEvents = receivers.portal.verifyAll(secrets.portal!) as any[];
    expect(portalEvents.map((p) => [p.type, p.data.id, p.data.record.status])).toEqual([
      ["lead.updated", id, "VISIT_SCHEDULED"],
    ]);
    expect(portalEvents[0].data.record).toEqual(patched.body.data);
    expect(receivers.website.received).toEqual([]);
    expect((receivers.crm.verifyAll(secrets.crm!) as any[]).map((p) => p.type)).toEqual(["lead.updated"]);
  });

  test("a replay sends again only the leads the subscription's client reads", async () => {
    for (const r of Object.values(receivers)) r.received.length = 0;
    const list = await app.call("GET", "/v1/webhooks", undefined, tokens.website);
    const replay = await app.call("POST", `/v1/webhooks/${list.body.data[0].id}/replay`, { after: 0 }, tokens.website);
    expect(replay.status).toBe(202);
    await app.deliver();
    const replayed = new Set((receivers.website.verifyAll(secrets.website!) as any[]).map((p) => p.data.id));
    expect([...replayed].sort()).toEqual(ownedIds("other").sort());
  });

  test("a client that reads no lead cannot subscribe to lead events; property events need properties:read", async () => {
    const refused = await app.call(
      "POST",
      "/v1/webhooks",
      { url: receivers.crm.url, events: ["property.upserted", "lead.created"] },
      tokens.reader,
    );
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({
      error: "events: lead.created needs scope leads:read:own or leads:read",
      code: "VALIDATION_ERROR",
      details: [{ field: "events", message: "lead.created needs scope leads:read:own or leads:read" }],
    });
    const crmProperties = await app.call(
      "POST",
      "/v1/webhooks",
      { url: receivers.crm.url, events: ["property.removed"] },
      tokens.crm,
    );
    expect(crmProperties.status).toBe(400);
    expect(
      (await app.call("POST", "/v1/webhooks", { url: receivers.crm.url, events: ["property.upserted"] }, tokens.reader))
        .status,
    ).toBe(201);
  });

  test("a retry due after the client lost its lead scope is not sent: it fails with the reason", async () => {
    for (const r of Object.values(receivers)) r.received.length = 0;
    receivers.website.answer(() => new Response("down", { status: 503 }));
    const id = (await createLead(app, tokens.website)).id;
    await app.deliver();
    expect(receivers.website.received.length).toBe(1);
    await withClients({ [OTHER.id]: client(OTHER.id, { scopes: ["leads:create", "webhooks"] }).entry }, async () => {
      receivers.website.answer(() => new Response("ok"));
      app.clock.advance(60_000);
      await app.deliver();
      expect(receivers.website.received.length).toBe(1);
      const stored = db
        .query(
          "SELECT d.state, d.last_error FROM webhook_deliveries d WHERE d.record_id = ? AND d.subscription_id IN (SELECT id FROM webhook_subscriptions WHERE client_id = 'other')",
        )
        .get(id) as any;
      expect(stored).toEqual({
        state: "failed",
        last_error: "not sent again: the record is no longer visible to this client",
      });
    });
  });

  test("scopes taken away at reload apply to subscriptions already made: nothing more is delivered", async () => {
    for (const r of Object.values(receivers)) r.received.length = 0;
    await withClients(
      { [PARTNER.id]: client(PARTNER.id, { scopes: ["leads:create", "webhooks"] }).entry },
      async () => {
        await createLead(app, tokens.portal);
        await app.deliver();
        expect(receivers.portal.received).toEqual([]);
        expect(receivers.crm.received.length).toBe(1);
      },
    );
  });
});

describe("PATCH /v1/leads/{id}: the funnel", () => {
  const patch = (id: string, body: unknown, token = tokens.crm) => app.call("PATCH", `/v1/leads/${id}`, body, token);

  test("moves status and priority, answers the lead with every field, moves updatedAt, and logs the change", async () => {
    const id = leads.website[2]!;
    const before = changeCount();
    app.clock.advance(60_000);
    const { status, body } = await patch(id, { status: "LOST", priority: "LOW" });
    expect(status).toBe(200);
    const stored = db.query("SELECT status, priority, updated_at, created_by FROM leads WHERE id = ?").get(id) as any;
    expect(stored).toEqual({
      status: "LOST",
      priority: "LOW",
      updated_at: new Date(app.clock.now()).toISOString(),
      created_by: "other",
    });
    const full = await read(await app.get(`/v1/leads/${id}?fields=${Object.keys(body.data).join(",")}`, tokens.crm));
    expect(body.data).toEqual(full.body.data);
    expect(Object.keys(body.data)).toContain("createdBy");
    expect(changeCount()).toBe(before + 1);
    // A lost lead can be reopened.
    expect((await patch(id, { status: "IN_SERVICE" })).body.data.status).toBe("IN_SERVICE");
  });

  test("100 PATCHes at once: each answers the lead as that request left it, and the last one written stays", async () => {
    // A seeded lead no other test looks at (the CRM reads every lead).
    const id = (
      db.query("SELECT id FROM leads WHERE created_by IS NULL ORDER BY id LIMIT 1 OFFSET 7").values() as [string][]
    )[0]![0];
    const statuses = [
      "NEW_LEAD",
      "IN_SERVICE",
      "VISIT_SCHEDULED",
      "VISIT_COMPLETED",
      "PROPOSAL_MADE",
      "CONVERTED",
      "LOST",
    ];
    const priorities = ["LOW", "MEDIUM", "HIGH", "URGENT"];
    const sent = Array.from({ length: 100 }, (_, i) => ({
      status: statuses[i % statuses.length]!,
      priority: priorities[i % priorities.length]!,
    }));
    // Sent together, they share group-commit batches: each writes in turn inside one transaction.
    const answers = await Promise.all(sent.map((body) => patch(id, body)));
    const shown = answers.map((a) => ({ status: a.body.data?.status, priority: a.body.data?.priority }));
    expect({ statuses: answers.map((a) => a.status).filter((s) => s !== 200), shown }).toEqual({
      statuses: [],
      shown: sent,
    });
    const stored = db.query("SELECT status, priority FROM leads WHERE id = ?").get(id);
    expect(sent).toContainEqual(stored as { status: string; priority: string });
  });

  test("the same values again: 200, nothing written, no change", async () => {
    const id = leads.website[2]!;
    const current = (await read(await app.get(`/v1/leads/${id}?fields=status,priority,updatedAt`, tokens.crm))).body
      .data;
    const before = changeCount();
    app.clock.advance(60_000);
    const again = await patch(id, { status: current.status, priority: current.priority });
    expect(again.status).toBe(200);
    expect(again.body.data.updatedAt).toBe(current.updatedAt);
    expect(changeCount()).toBe(before);
  });

  test("bad input answers in the contract's shape and writes nothing", async () => {
    const id = leads.portal[0]!;
    const before = changeCount();
    const cases: [unknown, string][] = [
      [{ name: "x", status: "LOST" }, "name: cannot be changed"],
      [{ email: "x@example.com", phone: "1" }, "email: cannot be changed; phone: cannot be changed"],
      [
        { status: "WON" },
        "status: must be one of: NEW_LEAD, IN_SERVICE, VISIT_SCHEDULED, VISIT_COMPLETED, PROPOSAL_MADE, CONVERTED, LOST",
      ],
      [{ priority: 3 }, "priority: must be one of: LOW, MEDIUM, HIGH, URGENT"],
      [{}, "body: must give status or priority"],
    ];
    for (const [body, error] of cases) {
      const answer = await patch(id, body);
      expect({ body, status: answer.status, error: answer.body.error, code: answer.body.code }).toEqual({
        body,
        status: 400,
        error,
        code: "VALIDATION_ERROR",
      });
    }
    const empty = await app.request(`/v1/leads/${id}`, {
      method: "PATCH",
      headers: { authorization: `Bearer ${tokens.crm}`, "content-type": "application/json" },
    });
    expect(await empty.json()).toEqual({ error: "Request body is required", code: "MISSING_BODY" });
    const form = await app.request(`/v1/leads/${id}`, {
      method: "PATCH",
      headers: { authorization: `Bearer ${tokens.crm}`, "content-type": "text/plain" },
      body: "status=LOST",
    });
    expect(form.status).toBe(415);
    expect(changeCount()).toBe(before);
  });

  test("an id the client cannot read is a 404, and nothing is written", async () => {
    const before = changeCount();
    // A portal with leads:update still moves only its own leads.
    const updater = client(PARTNER.id, { scopes: ["leads:read:own", "leads:update"] });
    await withClients({ [PARTNER.id]: updater.entry }, async () => {
      const token = await app.token(updater);
      for (const id of [leads.website[0]!, seededLead, crypto.randomUUID(), "not-a-uuid"]) {
        const answer = await patch(id, { status: "CONVERTED" }, token);
        expect({ id, status: answer.status, body: answer.body }).toEqual({
          id,
          status: 404,
          body: { error: "No lead with this id", code: "NOT_FOUND" },
        });
      }
      expect((await patch(leads.portal[2]!, { priority: "URGENT" }, token)).status).toBe(200);
    });
    expect(changeCount()).toBe(before + 1);
    expect((db.query("SELECT status FROM leads WHERE id = ?").get(leads.website[0]!) as any).status).toBe("NEW_LEAD");
  });
});

describe("refusals: 403 INSUFFICIENT_SCOPE after the guard, counted in the window", () => {
  const ROUTES: [string, string, string, unknown?][] = [
    ["GET", "/v1/properties?fields=id", "properties:read"],
    ["GET", `/v1/properties/${crypto.randomUUID()}?fields=id`, "properties:read"],
    ["GET", "/v1/values/properties/propertyType", "properties:read"],
    ["GET", "/v1/leads?fields=id", "leads:read:own"],
    ["GET", `/v1/leads/${crypto.randomUUID()}?fields=id`, "leads:read:own"],
    ["GET", "/v1/values/leads/createdBy", "leads:read:own"],
    ["GET", "/v1/changes?entity=leads", "leads:read:own"],
    ["GET", "/v1/changes?entity=properties", "properties:read"],
    ["POST", "/v1/leads", "leads:create", { name: "a", email: "a@example.com", phone: "1", message: "m" }],
    ["PATCH", `/v1/leads/${crypto.randomUUID()}`, "leads:update", { status: "LOST" }],
    ["GET", "/v1/feeds/vrsync.xml", "feed:read"],
    ["HEAD", "/v1/feeds/vrsync.xml", "feed:read"],
    ["GET", "/v1/webhooks", "webhooks"],
    ["POST", "/v1/webhooks", "webhooks", { url: "http://127.0.0.1:9/x", events: ["webhook.test"] }],
    ["GET", `/v1/webhooks/${crypto.randomUUID()}`, "webhooks"],
    ["PATCH", `/v1/webhooks/${crypto.randomUUID()}`, "webhooks", { enabled: false }],
    ["DELETE", `/v1/webhooks/${crypto.randomUUID()}`, "webhooks"],
    ["POST", `/v1/webhooks/${crypto.randomUUID()}/rotate-secret`, "webhooks"],
    ["POST", `/v1/webhooks/${crypto.randomUUID()}/test`, "webhooks"],
    ["GET", `/v1/webhooks/${crypto.randomUUID()}/deliveries`, "webhooks"],
    ["POST", `/v1/webhooks/${crypto.randomUUID()}/replay`, "webhooks", { after: 0 }],
  ];

  test("a client without a route's scope gets 403 Missing scope: <scope>, and the answer takes a place in its window", async () => {
    const leadsBefore = (db.query("SELECT count(*) FROM leads").values() as [number][])[0]![0];
    let remaining = Number((await app.get("/v1/fields", tokens.nothing)).headers.get("x-ratelimit-remaining"));
    for (const [method, path, scope, body] of ROUTES) {
      const response = await app.request(path, {
        method,
        headers: {
          authorization: `Bearer ${tokens.nothing}`,
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const answer = method === "HEAD" ? null : await response.json();
      expect({ method, path, status: response.status }).toEqual({ method, path, status: 403 });
      if (answer !== null) expect(answer).toEqual({ error: `Missing scope: ${scope}`, code: "INSUFFICIENT_SCOPE" });
      remaining -= 1;
      expect({ path, remaining: Number(response.headers.get("x-ratelimit-remaining")) }).toEqual({ path, remaining });
    }
    expect((db.query("SELECT count(*) FROM leads").values() as [number][])[0]![0]).toBe(leadsBefore);
  });

  test("the guard answers first: no token is a 401 on a scoped route whatever the scopes", async () => {
    const response = await read(await app.request("/v1/leads?fields=id"));
    expect({ status: response.status, code: response.body.code }).toEqual({ status: 401, code: "INVALID_TOKEN" });
  });

  test("scopes given at reload apply to tokens already issued", async () => {
    expect((await app.get("/v1/leads?fields=id", tokens.reader)).status).toBe(403);
    await withClients({ reader: { ...reader.entry, scopes: ["leads:read"] } }, async () => {
      const all = await read(await app.get("/v1/leads?fields=id&limit=1", tokens.reader));
      expect(all.body.meta.total).toBe((db.query("SELECT count(*) FROM leads").values() as [number][])[0]![0]);
      expect((await app.get("/v1/properties?fields=id", tokens.reader)).status).toBe(403);
    });
  });
});
