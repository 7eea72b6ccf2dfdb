// Routes of published properties: the list and single records.
import { Elysia } from "elysia";
import { PROPERTY_CATALOG } from "../../catalog/properties.ts";
import { guard } from "../../plugins/guard.ts";
import { sendJson } from "../../plugins/respond.ts";
import type { Runtime } from "../../runtime.ts";
import { listingFor, rawQueryOf, readerOf } from "../lists/service.ts";
import { PROPERTY_ROUTES } from "./openapi.ts";

export function propertiesModule(runtime: Runtime) {
  return new Elysia({ name: "properties" })
    .use(guard(runtime))
    .get(
      PROPERTY_ROUTES.list.path,
      ({ request, tenant, client, set }) =>
        sendJson(set, listingFor(tenant, PROPERTY_CATALOG).page(rawQueryOf(request.url), readerOf(client))),
      {
        protected: "properties:read",
        detail: PROPERTY_ROUTES.list,
      },
    )
    .get(
      PROPERTY_ROUTES.get.path,
      ({ request, params, tenant, client, set }) =>
        sendJson(
          set,
          listingFor(tenant, PROPERTY_CATALOG).record(params.id, rawQueryOf(request.url), readerOf(client)),
        ),
      { protected: "properties:read", detail: PROPERTY_ROUTES.get },
    );
}
