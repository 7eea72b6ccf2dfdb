// Routes of published properties: the list and single records.
import { Elysia } from "elysia";
import { PROPERTY_CATALOG } from "../../catalog/properties.ts";
import { guard } from "../../plugins/guard.ts";
import { sendJson } from "../../plugins/respond.ts";
import type { Runtime } from "../../runtime.ts";
import { listingFor, rawQueryOf, readerOf } from "../listing/service.ts";

export function propertiesModule(runtime: Runtime) {
  return new Elysia({ name: "properties" })
    .use(guard(runtime))
    .get(
      "/v1/properties",
      ({ request, tenant, client, set }) =>
        sendJson(set, listingFor(tenant, PROPERTY_CATALOG).page(rawQueryOf(request.url), readerOf(client))),
      {
        protected: "properties:read",
        detail: { summary: "List published properties", tags: ["Properties"] },
      },
    )
    .get(
      "/v1/properties/:id",
      ({ request, params, tenant, client, set }) =>
        sendJson(
          set,
          listingFor(tenant, PROPERTY_CATALOG).record(params.id, rawQueryOf(request.url), readerOf(client)),
        ),
      { protected: "properties:read", detail: { summary: "Get one published property", tags: ["Properties"] } },
    );
}
