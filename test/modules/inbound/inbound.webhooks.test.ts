// A portal's lead is the client's like one made by POST /v1/leads: its lead.created reaches the
// client's own subscription (the portal learns its lead arrived) and the CRM's, and no other.
import { afterEach, expect, test } from "bun:test";
import { GRUPOZAP_EXAMPLE } from "../../../src/modules/inbound/model.ts";
import { client } from "../../helpers/app.ts";
import { OTHER, PARTNER, type Receiver, startReceiver, type WebhookApp, webhookApp } from "../webhooks/helpers.ts";
import { crm, ZAP_AUTH, zap } from "./helpers.ts";

/** Another portal, with the default scopes: it reads only its own leads. */
const website = client("website", { scopes: undefined });
let app: WebhookApp;
let receivers: Receiver[] = [];
afterEach(() => {
  app?.close();
  for (const receiver of receivers) receiver.stop();
  receivers = [];
});

test("lead.created goes to the portal client's and the CRM's subscriptions, carrying createdBy", async () => {
  app = await webhookApp({ clients: [PARTNER.entry, OTHER.entry, zap.entry, crm.entry, website.entry] });
  const subscribe = async (who: typeof zap | typeof website) => {
    const receiver = startReceiver();
    receivers.push(receiver);
    const sub = await app.call(
      "POST",
      "/v1/webhooks",
      { url: receiver.url, events: ["lead.created"] },
      await app.token(who),
    );
    expect(sub.status).toBe(201);
    return { receiver, secret: sub.body.data.secret as string };
  };
  const portal = await subscribe(zap);
  const agency = await subscribe(crm);
  const bystander = await subscribe(website);
  const posted = await app.request("/v1/inbound/zap", {
    method: "POST",
    headers: { authorization: ZAP_AUTH },
    body: JSON.stringify(GRUPOZAP_EXAMPLE),
  });
  expect(posted.status).toBe(201);
  const { data } = (await posted.json()) as { data: { id: string } };
  await app.deliver();
  for (const { receiver, secret } of [portal, agency]) {
    const events = receiver.verifyAll(secret) as {
      type: string;
      data: { record: { id: string; createdBy: string; source: string; priority: string } };
    }[];
    expect(
      events.map((e) => [
        e.type,
        e.data.record.id,
        e.data.record.createdBy,
        e.data.record.source,
        e.data.record.priority,
      ]),
    ).toEqual([["lead.created", data.id, "zap", "PORTAL_OLX", "HIGH"]]);
  }
  expect(bystander.receiver.received).toEqual([]);
});
