// Routes of leads: the list, single records, creation, and the funnel (PATCH).
import { Elysia } from "elysia";
import { LEAD_CATALOG } from "../../catalog/leads.ts";
import { readJsonObject } from "../../plugins/body.ts";
import { guard } from "../../plugins/guard.ts";
import { sendJson } from "../../plugins/respond.ts";
import type { Runtime } from "../../runtime.ts";
import { allFieldsOf, listingFor, rawQueryOf, readerOf } from "../listing/service.ts";
import { parseIdempotencyKey, validateLeadInput, validateLeadPatch } from "./model.ts";
import { createLead, updateLead } from "./service.ts";

const ALL_LEAD_FIELDS = allFieldsOf(LEAD_CATALOG);

export function leadsModule(runtime: Runtime) {
  return new Elysia({ name: "leads" })
    .use(guard(runtime))
    .get(
      "/v1/leads",
      ({ request, tenant, client, set }) =>
        sendJson(set, listingFor(tenant, LEAD_CATALOG).page(rawQueryOf(request.url), readerOf(client))),
      {
        protected: "leads:read:own",
        detail: { summary: "List leads", tags: ["Leads"] },
      },
    )
    .get(
      "/v1/leads/:id",
      ({ request, params, tenant, client, set }) =>
        sendJson(set, listingFor(tenant, LEAD_CATALOG).record(params.id, rawQueryOf(request.url), readerOf(client))),
      { protected: "leads:read:own", detail: { summary: "Get one lead", tags: ["Leads"] } },
    )
    .post(
      "/v1/leads",
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
      { protected: "leads:create", parse: "none", detail: { summary: "Create a lead", tags: ["Leads"] } },
    )
    .patch(
      "/v1/leads/:id",
      async ({ request, params, tenant, client, set }) => {
        const patch = validateLeadPatch(await readJsonObject(request));
        const reader = readerOf(client);
        await updateLead(tenant, reader.leads, params.id, patch, runtime.clock);
        return sendJson(set, listingFor(tenant, LEAD_CATALOG).recordWith(params.id, ALL_LEAD_FIELDS, reader));
      },
      {
        protected: "leads:update",
        parse: "none",
        detail: { summary: "Move a lead along the funnel", tags: ["Leads"] },
      },
    );
}
