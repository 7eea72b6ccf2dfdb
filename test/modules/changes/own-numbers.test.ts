// Issue 49: a partner that reads only its own leads (`leads:read:own`, a portal) must learn
// nothing of other partners' lead writes from any number it receives. A differential test: portal
// A creates the same leads in two runs, once alone and once with portal B creating leads between
// them; every number A receives must be the same in both runs. The log is numbered per stream a
// reader sees (docs/partners/sync-and-webhooks.md, "Sequences"); before that the change feed's
// sequences were global, so A's entries had gaps as wide as B's writes between them, and replay
// answered the global head. test/modules/changes/reader-streams.test.ts checks each path's numbers.
import { describe, expect, test } from "bun:test";
import { client, createTestApp, read } from "../../helpers/app.ts";

const portalA = client("portal-a", { scopes: undefined });
const portalB = client("portal-b", { scopes: undefined });
const LEAD = {
  name: "Maria Oliveira",
  email: "maria@example.com",
  phone: "+55 11 98765-4321",
  message: "Quero visitar",
};

/** Every number portal A receives: its lead and property feeds (entries, cursors, head) and a replay's range. */
async function numbersSeenByA(bWrites: boolean): Promise<unknown> {
  const t = createTestApp({
    clients: [portalA.entry, portalB.entry],
    properties: 20,
    leads: 10,
    webhookTargets: { allowHttp: true, allowPrivateTargets: true },
  });
  try {
    const a = await t.token(portalA);
    const b = await t.token(portalB);
    const post = (bearer: string, path: string, body: unknown) =>
      t.request(path, {
        method: "POST",
        headers: { authorization: `Bearer ${bearer}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const hook = await read(
      await post(a, "/v1/webhooks", { url: "http://127.0.0.1:9/hook", events: ["lead.created"] }),
    );
    for (let i = 0; i < 3; i++) {
      expect((await post(a, "/v1/leads", { ...LEAD, message: `A ${i}` })).status).toBe(201);
      if (bWrites)
        for (let j = 0; j < 4; j++)
          expect((await post(b, "/v1/leads", { ...LEAD, message: `B ${i}.${j}` })).status).toBe(201);
    }
    const feed = async (entity: string) => {
      const { body } = await read(await t.get(`/v1/changes?entity=${entity}&after=0&limit=1000`, a));
      return { sequences: body.data.map((c: { sequence: number }) => c.sequence), meta: body.meta };
    };
    const replay = await read(await post(a, `/v1/webhooks/${hook.body.data.id}/replay`, { after: 0 }));
    return { leads: await feed("leads"), properties: await feed("properties"), replay: replay.body.data };
  } finally {
    t.close();
  }
}

describe("numbers a portal receives", () => {
  test("are the same whether or not another portal created leads meanwhile", async () => {
    expect(await numbersSeenByA(true)).toEqual(await numbersSeenByA(false));
  });
});
