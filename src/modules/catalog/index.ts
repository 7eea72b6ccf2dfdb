// Routes of the field catalogue: GET /v1/fields and GET /v1/values/{entity}/{field}.
import { Elysia } from "elysia";
import { guard } from "../../plugins/guard.ts";
import { sendJson } from "../../plugins/respond.ts";
import { rawQueryOf } from "../../query/lists.ts";
import type { Runtime } from "../../runtime.ts";
import { CATALOG_ROUTES } from "./openapi.ts";
import { FIELDS_BODY, SEARCH_VALUE_FIELDS, valuesOf } from "./service.ts";

export function catalogModule(runtime: Runtime) {
  return new Elysia({ name: "catalog" })
    .use(guard(runtime))
    .get(CATALOG_ROUTES.fields.path, ({ set }) => sendJson(set, FIELDS_BODY), {
      protected: true,
      detail: CATALOG_ROUTES.fields,
    })
    .get(
      CATALOG_ROUTES.values.path,
      ({ request, params, tenant, client, set }) => {
        const rawQuery = rawQueryOf(request.url);
        // The values read from every listing (places, amenities): valuesOf in a reader thread.
        if (params.entity === "properties" && (SEARCH_VALUE_FIELDS as readonly string[]).includes(params.field)) {
          const job = {
            kind: "values",
            field: params.field,
            rawQuery,
            client: { id: client.id, scopes: client.scopes },
          } as const;
          return runtime.reads.run(client.id, tenant, job).then((body) => sendJson(set, body));
        }
        const data = valuesOf(tenant, client, params.entity, params.field, new URLSearchParams(rawQuery));
        return sendJson(set, JSON.stringify({ data }));
      },
      {
        protected: true,
        detail: CATALOG_ROUTES.values,
      },
    );
}
