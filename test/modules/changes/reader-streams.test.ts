// Every number a partner receives, path by path, is a number of the stream it reads
// (docs/partners/sync-and-webhooks.md, "Sequences"): the properties' own stream for every property
// reader, every lead's stream for `leads:read`, its own leads' stream for `leads:read:own`. The
// test writes a script of changes by several partners and keeps its own count of each stream as
// it goes (from the seeded rows at the start: the seed writes one change per published property
// and per lead), then checks the change feed, webhook payloads, the delivery log and replays
// of each kind of reader against that count.
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { client } from "../../helpers/app.ts";
import { OTHER, PARTNER, type Receiver, startReceiver, type WebhookApp, webhookApp } from "../webhooks/helpers.ts";

/** The agency's CRM: every lead, and the listings. */
const CRM = client("crm", { scopes: ["properties:read", "leads:read", "leads:update", "webhooks"] });
/** Two portals with the default scopes: their own leads only. */
const PORTAL_A = client("portal-a", { scopes: undefined });
const PORTAL_B = client("portal-b", { scopes: undefined });
/** A listings site: no lead at all. */
const LISTER = client("lister", { scopes: ["properties:read", "feed:read", "webhooks"] });
const READERS = ["crm", "portal-a", "portal-b", "lister"] as const;
type Reader = (typeof READERS)[number];

const LEAD = {
  name: "Maria Oliveira",
  email: "maria@example.com",
  phone: "+55 11 98765-4321",
  message: "Quero visitar",
};
const EVENTS = { lead: ["lead.created", "lead.updated"], property: ["property.upserted"] };

/** One event of the script as the test numbers it: its stream numbers, counted here. */
interface Expected {
  type: string;
  id: string;
  /** Number in the entity's stream (properties, or every lead). */
  number: number;
  /** Leads with an owner: the owner, and the number in its stream. */
  owner?: string;
  ownNumber?: number;
}

let app: WebhookApp;
let db: Database;
const tokens = {} as Record<Reader, string>;
const receivers = {} as Record<Reader, Receiver>;
const subscriptions = {} as Record<Reader, { id: string; secret: string }>;
/** Every event of the log, the seeded ones first, in the order written. */
const log: Expected[] = [];
const counts = { properties: 0, leads: 0, own: new Map<string, number>() };
/** How many events of the log the seed wrote. */
let seeded = 0;

function countProperty(id: string): void {
  log.push({ type: "property.upserted", id, number: ++counts.properties });
}

function countLead(type: "lead.created" | "lead.updated", id: string, owner: string | null): void {
  const event: Expected = { type, id, number: ++counts.leads };
  if (owner !== null) {
    const ownNumber = (counts.own.get(owner) ?? 0) + 1;
    counts.own.set(owner, ownNumber);
    Object.assign(event, { owner, ownNumber });
  }
  log.push(event);
}

/** What `reader` should see of the log: each event it may read, with the number of its stream. */
function seenBy(
  reader: Reader,
  entity?: "properties" | "leads",
  events: readonly Expected[] = log,
): { type: string; id: string; sequence: number }[] {
  const seen: { type: string; id: string; sequence: number }[] = [];
  for (const e of events) {
    const isLead = e.type.startsWith("lead.");
    if (entity !== undefined && isLead !== (entity === "leads")) continue;
    if (!isLead) seen.push({ type: e.type, id: e.id, sequence: e.number });
    else if (reader === "crm") seen.push({ type: e.type, id: e.id, sequence: e.number });
    else if (reader !== "lister" && e.owner === reader) seen.push({ type: e.type, id: e.id, sequence: e.ownNumber! });
  }
  return seen;
}

async function createLead(reader: Reader, message: string): Promise<string> {
  const { status, body } = await app.call("POST", "/v1/leads", { ...LEAD, message }, tokens[reader]);
  expect(status).toBe(201);
  countLead("lead.created", body.data.id, reader);
  return body.data.id;
}

function changeProperty(id: string, title: string): void {
  db.run("UPDATE properties SET title = ? WHERE id = ?", [title, id]);
  countProperty(id);
}

async function feed(reader: Reader, entity: "properties" | "leads", after = 0, limit = 1000) {
  const response = await app.get(`/v1/changes?entity=${entity}&after=${after}&limit=${limit}`, tokens[reader]);
  expect(response.status).toBe(200);
  return (await response.json()) as {
    data: { sequence: number; id: string; change: string }[];
    meta: { after: number; nextAfter: number; hasMore: boolean; head: number };
  };
}

const byNumber = (a: { sequence: number; type: string }, b: { sequence: number; type: string }) =>
  a.type.localeCompare(b.type) || a.sequence - b.sequence;

/** The payloads a receiver got, verified, as (type, id, sequence), from the `from`th on. */
function delivered(reader: Reader, from = 0): { type: string; id: string; sequence: number }[] {
  return (receivers[reader].verifyAll(subscriptions[reader].secret) as any[])
    .slice(from)
    .map((p) => ({ type: p.type, id: p.data.id, sequence: p.data.sequence }))
    .sort(byNumber);
}

let portalFeedEtag: string | null = null;

beforeAll(async () => {
  app = await webhookApp({
    clients: [PARTNER.entry, OTHER.entry, CRM.entry, PORTAL_A.entry, PORTAL_B.entry, LISTER.entry],
    properties: 12,
    leads: 8,
  });
  db = new Database(app.runtime.config.databases.get("main")!);
  db.run("PRAGMA busy_timeout = 5000");
  // The seeded log: one change per published property and per lead, each in rowid order.
  for (const { id } of db.query("SELECT id FROM properties WHERE is_published = 1 ORDER BY rowid").all() as {
    id: string;
  }[])
    countProperty(id);
  for (const { id } of db.query("SELECT id FROM leads ORDER BY rowid").all() as { id: string }[])
    countLead("lead.created", id, null);
  seeded = log.length;
  tokens.crm = await app.token(CRM);
  tokens["portal-a"] = await app.token(PORTAL_A);
  tokens["portal-b"] = await app.token(PORTAL_B);
  tokens.lister = await app.token(LISTER);
  for (const reader of READERS) {
    receivers[reader] = startReceiver();
    const events = reader === "lister" ? EVENTS.property : [...EVENTS.lead, ...EVENTS.property];
    const { status, body } = await app.call(
      "POST",
      "/v1/webhooks",
      { url: receivers[reader].url, events },
      tokens[reader],
    );
    expect(status).toBe(201);
    subscriptions[reader] = body.data;
  }

  // The script: portals' leads interleaved, listings changed by another process, the CRM
  // working a portal's lead (a lead.updated in that portal's stream too).
  const property = log[0]!.id;
  const a1 = await createLead("portal-a", "A 1");
  const etag = async () => (await app.get("/v1/feeds/vrsync.xml", tokens["portal-a"])).headers.get("etag");
  portalFeedEtag = await etag();
  await createLead("portal-b", "B 1");
  await createLead("portal-b", "B 2");
  // Another portal's leads move nothing of A's portal feed.
  expect(await etag()).toBe(portalFeedEtag);
  changeProperty(property, "Apartamento reformado");
  await createLead("portal-a", "A 2");
  const patched = await app.call("PATCH", `/v1/leads/${a1}`, { status: "IN_SERVICE" }, tokens.crm);
  expect(patched.status).toBe(200);
  countLead("lead.updated", a1, "portal-a");
  await createLead("portal-b", "B 3");
  changeProperty(property, "Apartamento reformado, 2 vagas");
  await app.deliver();
}, 60_000);

afterAll(() => {
  db.close();
  app.close();
  for (const reader of READERS) receivers[reader].stop();
});

describe("the change feed", () => {
  test("a portal's lead entries are numbered 1, 2, 3 in its own stream, whatever others wrote between", async () => {
    for (const reader of ["portal-a", "portal-b"] as const) {
      const expected = seenBy(reader, "leads");
      expect(expected.map((e) => e.sequence)).toEqual([1, 2, 3]);
      const { data, meta } = await feed(reader, "leads");
      expect(data.map((c) => [c.id, c.sequence])).toEqual(expected.map((e) => [e.id, e.sequence]));
      expect(meta).toEqual({ after: 0, nextAfter: 3, hasMore: false, head: 3 });
    }
  });

  test("leads:read sees every lead numbered in the stream of all leads", async () => {
    const expected = seenBy("crm", "leads");
    const { data, meta } = await feed("crm", "leads");
    expect(data.map((c) => [c.id, c.sequence])).toEqual(expected.map((e) => [e.id, e.sequence]));
    expect(meta.head).toBe(counts.leads);
  });

  test("every property reader sees the same property stream, lead writes leaving no gap in it", async () => {
    const expected = seenBy("lister", "properties").map((e) => [e.id, e.sequence]);
    expect(expected.map(([, n]) => n)).toEqual(expected.map((_, i) => i + 1));
    for (const reader of READERS) {
      const { data, meta } = await feed(reader, "properties");
      expect(data.map((c) => [c.id, c.sequence])).toEqual(expected);
      expect(meta.head).toBe(counts.properties);
    }
  });

  test("pages walk a portal's stream by its own numbers: nextAfter, hasMore and head", async () => {
    const first = await feed("portal-a", "leads", 0, 2);
    expect(first.data.map((c) => c.sequence)).toEqual([1, 2]);
    expect(first.meta).toEqual({ after: 0, nextAfter: 2, hasMore: true, head: 3 });
    const second = await feed("portal-a", "leads", first.meta.nextAfter, 2);
    expect(second.data.map((c) => c.sequence)).toEqual([3]);
    expect(second.meta).toEqual({ after: 2, nextAfter: 3, hasMore: false, head: 3 });
    const past = await feed("portal-a", "leads", 3, 2);
    expect(past.meta).toEqual({ after: 3, nextAfter: 3, hasMore: false, head: 3 });
  });
});

describe("webhooks", () => {
  test("each delivery's data.sequence is the event's number in its client's stream", () => {
    for (const reader of READERS) {
      // What was written after the subscriptions: the script's events.
      const expected = seenBy(reader, undefined, log.slice(seeded));
      expect(expected.length).toBeGreaterThan(0);
      expect(delivered(reader)).toEqual(expected.sort(byNumber));
    }
  });

  test("the delivery log shows the same numbers as the payloads", async () => {
    for (const reader of READERS) {
      const { status, body } = await app.call(
        "GET",
        `/v1/webhooks/${subscriptions[reader].id}/deliveries?limit=100`,
        undefined,
        tokens[reader],
      );
      expect(status).toBe(200);
      const logged = (body.data as { type: string; sequence: number }[])
        .map((d) => ({ type: d.type, sequence: d.sequence }))
        .sort(byNumber);
      expect(logged).toEqual(delivered(reader).map(({ type, sequence }) => ({ type, sequence })));
    }
  });

  test("a portal's replay: its own leads after `after` in its stream, properties after it in theirs; until is its head", async () => {
    const before = receivers["portal-a"].received.length;
    const replay = await app.call(
      "POST",
      `/v1/webhooks/${subscriptions["portal-a"].id}/replay`,
      { after: 1 },
      tokens["portal-a"],
    );
    expect(replay.status).toBe(202);
    expect(replay.body.data).toEqual({ after: 1, until: Math.max(counts.properties, 3) });
    await app.deliver();
    const expected = seenBy("portal-a").filter((e) => e.sequence > 1);
    expect(delivered("portal-a", before)).toEqual(expected.sort(byNumber));
  });

  test("the CRM's replay: every lead numbered after `after`, properties likewise in their stream", async () => {
    const before = receivers.crm.received.length;
    const after = 10;
    const replay = await app.call("POST", `/v1/webhooks/${subscriptions.crm.id}/replay`, { after }, tokens.crm);
    expect(replay.body.data).toEqual({ after, until: Math.max(counts.properties, counts.leads) });
    await app.deliver();
    const expected = seenBy("crm").filter((e) => e.sequence > after);
    expect(expected.some((e) => e.type.startsWith("lead."))).toBe(true);
    expect(expected.some((e) => e.type.startsWith("property."))).toBe(true);
    expect(delivered("crm", before)).toEqual(expected.sort(byNumber));
  });

  test("a listings site's replay numbers only properties", async () => {
    const before = receivers.lister.received.length;
    const replay = await app.call(
      "POST",
      `/v1/webhooks/${subscriptions.lister.id}/replay`,
      { after: counts.properties - 1 },
      tokens.lister,
    );
    expect(replay.body.data).toEqual({ after: counts.properties - 1, until: counts.properties });
    await app.deliver();
    expect(delivered("lister", before)).toEqual([
      { type: "property.upserted", id: log[0]!.id, sequence: counts.properties },
    ]);
  });

  test("a replay after the head sends nothing and answers the head", async () => {
    const before = receivers["portal-b"].received.length;
    const replay = await app.call(
      "POST",
      `/v1/webhooks/${subscriptions["portal-b"].id}/replay`,
      { after: 1_000_000 },
      tokens["portal-b"],
    );
    expect(replay.body.data).toEqual({ after: 1_000_000, until: counts.properties });
    await app.deliver();
    expect(receivers["portal-b"].received.length).toBe(before);
  });
});
