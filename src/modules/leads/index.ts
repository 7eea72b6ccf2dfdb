// Routes of leads: the list, single records, creation, and the funnel (PATCH).
import { Elysia } from "elysia";
import { LEAD_CATALOG } from "../../catalog/leads.ts";
import { readJsonObject } from "../../plugins/body.ts";
import { guard } from "../../plugins/guard.ts";
import { sendJson } from "../../plugins/respond.ts";
import { allFieldsOf, listOf, rawQueryOf, readerOf } from "../../query/lists.ts";
import type { Runtime } from "../../runtime.ts";
import { parseIdempotencyKey, validateLeadInput, validateLeadPatch } from "./model.ts";
import { LEAD_ROUTES } from "./openapi.ts";
import { createLead, updateLead } from "./service.ts";

const ALL_LEAD_FIELDS = allFieldsOf(LEAD_CATALOG);

export function leadsModule(runtime: Runtime) {
  return new Elysia({ name: "leads" })
    .use(guard(runtime))
    .get(
      LEAD_ROUTES.list.path,
      // From the page cache here, else made by the list engine's page() in a reader thread and kept.
      ({ request, tenant, client, set }) => {
        const rawQuery = rawQueryOf(request.url);
        const reader = readerOf(client);
        const found = listOf(tenant, LEAD_CATALOG).lookup(rawQuery, reader);
        if ("body" in found) return sendJson(set, found.body);
        return runtime.reads.run(client.id, tenant, { kind: "leads", rawQuery, reader }).then((body) => {
          found.keep(body);
          return sendJson(set, body);
        });
      },
      {
        protected: "leads:read:own",
        detail: LEAD_ROUTES.list,
      },
    )
    .get(
      LEAD_ROUTES.get.path,
      ({ request, params, tenant, client, set }) =>
        sendJson(set, listOf(tenant, LEAD_CATALOG).record(params.id, rawQueryOf(request.url), readerOf(client))),
      { protected: "leads:read:own", detail: LEAD_ROUTES.get },
    )
    .post(
      LEAD_ROUTES.create.path,
      async ({ request, tenant, client, set }) => {
        const idempotencyKey = parseIdempotencyKey(request.headers.get("idempotency-key"));
        const input = validateLeadInput(await readJsonObject(request));
        const created = await createLead(
          tenant,
          client.id,
          input,
          idempotencyKey,
          runtime.clock,
          runtime.idempotencyLocks,
        );
        if (created.replayed) set.headers["idempotent-replayed"] = "true";
        return sendJson(set, created.body, 201);
      },
      { protected: "leads:create", parse: "none", detail: LEAD_ROUTES.create },
    )
    .patch(
      LEAD_ROUTES.update.path,
      async ({ request, params, tenant, client, set }) => {
        const patch = validateLeadPatch(await readJsonObject(request));
        const reader = readerOf(client);
        const list = listOf(tenant, LEAD_CATALOG);
        const body = await updateLead(tenant, reader.leads, params.id, patch, runtime.clock, (id) =>
          list.recordWritten(id, ALL_LEAD_FIELDS, reader),
        );
        return sendJson(set, body);
      },
      {
        protected: "leads:update",
        parse: "none",
        detail: LEAD_ROUTES.update,
      },
    );
}
