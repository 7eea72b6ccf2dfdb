// Routes of partners' webhook subscriptions (docs/reference/behaviour-extensions.md §13): every one behind the guard, so
// rate-limited and scoped to the calling client like every protected route.
import { Elysia } from "elysia";
import { readJsonObject } from "../../plugins/body.ts";
import { guard } from "../../plugins/guard.ts";
import { sendJson } from "../../plugins/respond.ts";
import type { Runtime } from "../../runtime.ts";
import { readsEntity } from "../../security/scopes.ts";
import { rawQueryOf } from "../listing/service.ts";
import { parseLogQuery, validateReplayInput, validateSubscriptionInput, validateSubscriptionPatch } from "./model.ts";
import {
  createSubscription,
  deleteSubscription,
  deliveryLog,
  getSubscription,
  listSubscriptions,
  replay,
  rotateSecret,
  type ServerWebhooks,
  sendTestEvent,
  updateSubscription,
} from "./service.ts";

const TAGS = ["Webhooks"];

export function webhooksModule(runtime: Runtime, webhooks: ServerWebhooks) {
  const service = { runtime, worker: webhooks.worker };
  const query = (url: string) => new URLSearchParams(rawQueryOf(url));
  return new Elysia({ name: "webhooks" })
    .use(guard(runtime))
    .post(
      "/v1/webhooks",
      async ({ request, tenant, client, set }) => {
        const input = validateSubscriptionInput(await readJsonObject(request), runtime.config.webhooks, (entity) =>
          readsEntity(client, entity),
        );
        return sendJson(set, await createSubscription(service, tenant, client.id, input), 201);
      },
      { protected: "webhooks", parse: "none", detail: { summary: "Subscribe to webhooks", tags: TAGS } },
    )
    .get(
      "/v1/webhooks",
      ({ request, tenant, client, set }) =>
        sendJson(set, listSubscriptions(tenant, client.id, parseLogQuery(query(request.url), false))),
      {
        protected: "webhooks",
        detail: { summary: "List your webhook subscriptions", tags: TAGS },
      },
    )
    .get(
      "/v1/webhooks/:id",
      ({ params, tenant, client, set }) => sendJson(set, getSubscription(tenant, client.id, params.id)),
      {
        protected: "webhooks",
        detail: { summary: "Get a webhook subscription", tags: TAGS },
      },
    )
    .patch(
      "/v1/webhooks/:id",
      async ({ request, params, tenant, client, set }) => {
        const patch = validateSubscriptionPatch(await readJsonObject(request), runtime.config.webhooks, (entity) =>
          readsEntity(client, entity),
        );
        return sendJson(set, await updateSubscription(service, tenant, client.id, params.id, patch));
      },
      { protected: "webhooks", parse: "none", detail: { summary: "Change a webhook subscription", tags: TAGS } },
    )
    .delete(
      "/v1/webhooks/:id",
      async ({ params, tenant, client, set }) => {
        await deleteSubscription(tenant, client.id, params.id);
        set.status = 204;
      },
      { protected: "webhooks", detail: { summary: "Delete a webhook subscription", tags: TAGS } },
    )
    .post(
      "/v1/webhooks/:id/rotate-secret",
      async ({ params, tenant, client, set }) =>
        sendJson(set, await rotateSecret(service, tenant, client.id, params.id)),
      {
        protected: "webhooks",
        parse: "none",
        detail: { summary: "Rotate a subscription's signing secret", tags: TAGS },
      },
    )
    .post(
      "/v1/webhooks/:id/test",
      async ({ params, tenant, client, set }) =>
        sendJson(set, await sendTestEvent(service, tenant, client.id, params.id)),
      { protected: "webhooks", parse: "none", detail: { summary: "Send a test event", tags: TAGS } },
    )
    .get(
      "/v1/webhooks/:id/deliveries",
      ({ request, params, tenant, client, set }) =>
        sendJson(set, deliveryLog(tenant, client.id, params.id, parseLogQuery(query(request.url), true))),
      { protected: "webhooks", detail: { summary: "Read a subscription's delivery log", tags: TAGS } },
    )
    .post(
      "/v1/webhooks/:id/replay",
      async ({ request, params, tenant, client, set }) => {
        const { after } = validateReplayInput(await readJsonObject(request));
        return sendJson(set, await replay(service, tenant, client.id, params.id, after), 202);
      },
      {
        protected: "webhooks",
        parse: "none",
        detail: { summary: "Deliver again every event after a sequence", tags: TAGS },
      },
    );
}
