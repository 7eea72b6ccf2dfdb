// Issue 49: a partner that reads only its own leads (`leads:read:own`, a portal) must learn
// nothing of other partners' lead writes from any number it receives. A differential test: portal
// A creates the same leads in two runs, once alone and once with portal B creating leads between
// them; every number A receives must be the same in both runs. The log is numbered per stream a
// reader sees (docs/partners/sync-and-webhooks.md, "Sequences"); before that the change feed's
// sequences were global, so A's entries had gaps as wide as B's writes between them, and replay
// answered the global head. test/modules/changes/reader-streams.test.ts checks each path's numbers.
import { describe, expect, test } from "bun:test";
import { client } from "../../helpers/app.ts";
import { OTHER, PARTNER, startReceiver, webhookApp } from "../webhooks/helpers.ts";

const portalA = client("portal-a", { scopes: undefined });
const portalB = client("portal-b", { scopes: undefined });
const LEAD = {
  name: "Maria Oliveira",
  email: "maria@example.com",
  phone: "+55 11 98765-4321",
  message: "Quero visitar",
};

/**
 * Every number portal A receives: its lead and property feeds (entries, cursors, head), its
 * webhook deliveries (payloads and the delivery log) and a replay's range, taken after the
 * worker has dispatched everything.
 */
async function numbersSeenByA(bWrites: boolean): Promise<unknown> {
  const receiver = startReceiver();
  const t = await webhookApp({
    clients: [PARTNER.entry, OTHER.entry, portalA.entry, portalB.entry],
    properties: 20,
    leads: 10,
  });
  try {
    const a = await t.token(portalA);
    const b = await t.token(portalB);
    const hook = await t.call("POST", "/v1/webhooks", { url: receiver.url, events: ["lead.created"] }, a);
    expect(hook.status).toBe(201);
    for (let i = 0; i < 3; i++) {
      expect((await t.call("POST", "/v1/leads", { ...LEAD, message: `A ${i}` }, a)).status).toBe(201);
      if (bWrites)
        for (let j = 0; j < 4; j++)
          expect((await t.call("POST", "/v1/leads", { ...LEAD, message: `B ${i}.${j}` }, b)).status).toBe(201);
    }
    await t.deliver();
    const feed = async (entity: string) => {
      const { body } = await t.call("GET", `/v1/changes?entity=${entity}&after=0&limit=1000`, undefined, a);
      return { sequences: body.data.map((c: { sequence: number }) => c.sequence), meta: body.meta };
    };
    const payloads = (receiver.verifyAll(hook.body.data.secret) as { data: { sequence: number } }[])
      .map((p) => p.data.sequence)
      .sort((x, y) => x - y);
    const log = await t.call("GET", `/v1/webhooks/${hook.body.data.id}/deliveries`, undefined, a);
    const logged = log.body.data.map((d: { sequence: number }) => d.sequence).sort((x: number, y: number) => x - y);
    const replay = await t.call("POST", `/v1/webhooks/${hook.body.data.id}/replay`, { after: 0 }, a);
    return {
      leads: await feed("leads"),
      properties: await feed("properties"),
      webhooks: { payloads, logged, total: log.body.meta.total },
      replay: replay.body.data,
    };
  } finally {
    t.close();
    receiver.stop();
  }
}

describe("numbers a portal receives", () => {
  test("are the same whether or not another portal created leads meanwhile", async () => {
    const alone = await numbersSeenByA(false);
    expect(alone).toMatchObject({ webhooks: { payloads: [1, 2, 3], total: 3 }, replay: { after: 0, until: 3 } });
    expect(await numbersSeenByA(true)).toEqual(alone);
  }, 60_000);
});
