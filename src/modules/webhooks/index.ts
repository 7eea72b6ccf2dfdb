// Routes of partners' webhook subscriptions (docs/reference/behaviour-extensions.md §13): every one behind the guard, so
// rate-limited and scoped to the calling client like every protected route.
import { Elysia } from "elysia";
import { readJsonObject } from "../../plugins/body.ts";
import { guard } from "../../plugins/guard.ts";
import { sendJson } from "../../plugins/respond.ts";
import { rawQueryOf } from "../../query/lists.ts";
import type { Runtime } from "../../runtime.ts";
import { readsEntity } from "../../security/scopes.ts";
import { parseLogQuery, validateReplayInput, validateSubscriptionInput, validateSubscriptionPatch } from "./model.ts";
import { WEBHOOK_ROUTES } from "./openapi.ts";
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

export function webhooksModule(runtime: Runtime, webhooks: ServerWebhooks) {
  const service = { runtime, worker: webhooks.worker };
  const query = (url: string) => new URLSearchParams(rawQueryOf(url));
  return new Elysia({ name: "webhooks" })
    .use(guard(runtime))
    .post(
      WEBHOOK_ROUTES.create.path,
      async ({ request, tenant, client, set }) => {
        const input = validateSubscriptionInput(await readJsonObject(request), runtime.config.webhooks, (entity) =>
          readsEntity(client, entity),
        );
        return sendJson(set, await createSubscription(service, tenant, client.id, input), 201);
      },
      { protected: "webhooks", parse: "none", detail: WEBHOOK_ROUTES.create },
    )
    .get(
      WEBHOOK_ROUTES.list.path,
      ({ request, tenant, client, set }) =>
        sendJson(set, listSubscriptions(tenant, client.id, parseLogQuery(query(request.url), false))),
      {
        protected: "webhooks",
        detail: WEBHOOK_ROUTES.list,
      },
    )
    .get(
      WEBHOOK_ROUTES.get.path,
      ({ params, tenant, client, set }) => sendJson(set, getSubscription(tenant, client.id, params.id)),
      {
        protected: "webhooks",
        detail: WEBHOOK_ROUTES.get,
      },
    )
    .patch(
      WEBHOOK_ROUTES.update.path,
      async ({ request, params, tenant, client, set }) => {
        const patch = validateSubscriptionPatch(await readJsonObject(request), runtime.config.webhooks, (entity) =>
          readsEntity(client, entity),
        );
        return sendJson(set, await updateSubscription(service, tenant, client.id, params.id, patch));
      },
      { protected: "webhooks", parse: "none", detail: WEBHOOK_ROUTES.update },
    )
    .delete(
      WEBHOOK_ROUTES.delete.path,
      async ({ params, tenant, client, set }) => {
        await deleteSubscription(tenant, client.id, params.id);
        set.status = 204;
      },
      { protected: "webhooks", detail: WEBHOOK_ROUTES.delete },
    )
    .post(
      WEBHOOK_ROUTES.rotateSecret.path,
      async ({ params, tenant, client, set }) =>
        sendJson(set, await rotateSecret(service, tenant, client.id, params.id)),
      {
        protected: "webhooks",
        parse: "none",
        detail: WEBHOOK_ROUTES.rotateSecret,
      },
    )
    .post(
      WEBHOOK_ROUTES.test.path,
      async ({ params, tenant, client, set }) =>
        sendJson(set, await sendTestEvent(service, tenant, client.id, params.id)),
      { protected: "webhooks", parse: "none", detail: WEBHOOK_ROUTES.test },
    )
    .get(
      WEBHOOK_ROUTES.deliveries.path,
      ({ request, params, tenant, client, set }) =>
        sendJson(set, deliveryLog(tenant, client.id, params.id, parseLogQuery(query(request.url), true))),
      { protected: "webhooks", detail: WEBHOOK_ROUTES.deliveries },
    )
    .post(
      WEBHOOK_ROUTES.replay.path,
      async ({ request, params, tenant, client, set }) => {
        const { after } = validateReplayInput(await readJsonObject(request));
        return sendJson(set, await replay(service, tenant, client.id, params.id, after), 202);
      },
      {
        protected: "webhooks",
        parse: "none",
        detail: WEBHOOK_ROUTES.replay,
      },
    );
}
