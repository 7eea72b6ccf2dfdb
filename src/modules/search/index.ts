// Route of the search counts: GET /v1/facets/properties.
import { Elysia } from "elysia";
import { guard } from "../../plugins/guard.ts";
import { sendJson } from "../../plugins/respond.ts";
import { rawQueryOf, readerOf } from "../../query/lists.ts";
import type { Runtime } from "../../runtime.ts";
import { SEARCH_ROUTES } from "./openapi.ts";

export function searchModule(runtime: Runtime) {
  return new Elysia({ name: "search" }).use(guard(runtime)).get(
    SEARCH_ROUTES.facets.path,
    // facetsOf (service.ts), in a reader thread (src/reads/reader-thread.ts).
    ({ request, tenant, client, set }) =>
      runtime.reads
        .run(client.id, tenant, { kind: "facets", rawQuery: rawQueryOf(request.url), reader: readerOf(client) })
        .then((body) => sendJson(set, body)),
    {
      protected: "properties:read",
      detail: SEARCH_ROUTES.facets,
    },
  );
}
