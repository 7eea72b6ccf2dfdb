// POST /v1/webhooks/{id}/test takes one of its subscription's delivery slots, like every
// delivery (src/modules/webhooks/slots.ts): against a receiver that never answers, at most 16 test
// attempts are under way at once; a call that finds no slot free within its wait is answered
// 503 with Retry-After and sends nothing; another subscription's test is not held up.
import { afterAll, describe, expect, test } from "bun:test";
import { PER_SUBSCRIPTION } from "../../../src/modules/webhooks/slots.ts";
import { startReceiver, webhookApp } from "./helpers.ts";

const hanging = startReceiver(() => new Promise<Response>(() => {}));
const healthy = startReceiver();
afterAll(() => {
  hanging.stop();
  healthy.stop();
});

describe("test events share their subscription's slots", () => {
  test(`${PER_SUBSCRIPTION} at once to a receiver that hangs; the next ones 503 with Retry-After; another client's test answers meanwhile`, async () => {
    const app = await webhookApp({ timeoutMs: 3_000, testSlotWaitMs: 100 });
    try {
      const sub = (await app.call("POST", "/v1/webhooks", { url: hanging.url, events: ["lead.created"] })).body.data;
      const other = (await app.call("POST", "/v1/webhooks", { url: healthy.url, events: ["lead.created"] }, app.other))
        .body.data;
      const calls = Array.from({ length: PER_SUBSCRIPTION + 4 }, () => app.call("POST", `/v1/webhooks/${sub.id}/test`));
      const meanwhile = await app.call("POST", `/v1/webhooks/${other.id}/test`, undefined, app.other);
      expect(meanwhile.body.data).toMatchObject({ type: "webhook.test", state: "succeeded", lastStatus: 200 });
      const answers = await Promise.all(calls);
      const busy = answers.filter((a) => a.status === 503);
      expect(busy).toHaveLength(4);
      for (const answer of busy) {
        expect(answer.headers.get("retry-after")).toBe("10");
        expect(answer.body).toMatchObject({ code: "SERVICE_UNAVAILABLE" });
      }
      const sent = answers.filter((a) => a.status === 200);
      expect(sent).toHaveLength(PER_SUBSCRIPTION);
      for (const answer of sent)
        expect(answer.body.data).toMatchObject({ state: "failed", lastError: "no answer within 3 s" });
      expect(hanging.received).toHaveLength(PER_SUBSCRIPTION);
      // Only what was sent is in the log.
      expect((await app.call("GET", `/v1/webhooks/${sub.id}/deliveries?limit=100`)).body.meta.total).toBe(
        PER_SUBSCRIPTION,
      );
      // Slots free again: the next test is sent.
      hanging.answer(() => new Response(null, { status: 204 }));
      expect((await app.call("POST", `/v1/webhooks/${sub.id}/test`)).body.data).toMatchObject({
        state: "succeeded",
        lastStatus: 204,
      });
    } finally {
      app.close();
    }
  }, 30_000);
});
