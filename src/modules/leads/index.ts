// Routes of leads: the list, single records and creation.
import { Elysia } from "elysia";
import { LEAD_CATALOG } from "../../catalog/leads.ts";
import { readJsonObject } from "../../plugins/body.ts";
import { guard } from "../../plugins/guard.ts";
import { sendJson } from "../../plugins/respond.ts";
import type { Runtime } from "../../runtime.ts";
import { listingFor, rawQueryOf } from "../listing/service.ts";
import { parseIdempotencyKey, validateLeadInput } from "./model.ts";
import { createLead } from "./service.ts";

export function leadsModule(runtime: Runtime) {
  return new Elysia({ name: "leads" })
    .use(guard(runtime))
    .get("/v1/leads", ({ request, tenant, set }) => sendJson(set, listingFor(tenant, LEAD_CATALOG).page(rawQueryOf(request.url))), {
      protected: true,
      detail: { summary: "List leads", tags: ["Leads"] },
    })
    .get(
      "/v1/leads/:id",
      ({ request, params, tenant, set }) => sendJson(set, listingFor(tenant, LEAD_CATALOG).record(params.id, rawQueryOf(request.url))),
      { protected: true, detail: { summary: "Get one lead", tags: ["Leads"] } },
    )
    .post(
      "/v1/leads",
      async ({ request, tenant, client, set }) => {
        const idempotencyKey = parseIdempotencyKey(request.headers.get("idempotency-key"));
        const input = validateLeadInput(await readJsonObject(request));
        const created = await createLead(tenant, client.id, input, idempotencyKey, runtime.clock, runtime.idempotencyLocks);
        if (created.replayed) set.headers["idempotent-replayed"] = "true";
        return sendJson(set, created.body, 201);
      },
      { protected: true, parse: "none", detail: { summary: "Create a lead", tags: ["Leads"] } },
    );
}
