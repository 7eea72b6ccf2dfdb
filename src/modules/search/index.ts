// Route of the search counts: GET /v1/facets/properties.
import { Elysia } from "elysia";
import { guard } from "../../plugins/guard.ts";
import { sendJson } from "../../plugins/respond.ts";
import type { Runtime } from "../../runtime.ts";
import { rawQueryOf, readerOf } from "../lists/service.ts";
import { SEARCH_ROUTES } from "./openapi.ts";
import { facetsOf } from "./service.ts";

export function searchModule(runtime: Runtime) {
  return new Elysia({ name: "search" })
    .use(guard(runtime))
    .get(
      SEARCH_ROUTES.facets.path,
      ({ request, tenant, client, set }) => sendJson(set, facetsOf(tenant, rawQueryOf(request.url), readerOf(client))),
      {
        protected: "properties:read",
        detail: SEARCH_ROUTES.facets,
      },
    );
}
