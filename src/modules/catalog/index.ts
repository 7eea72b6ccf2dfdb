// Routes of the field catalogue: GET /v1/fields and GET /v1/values/{entity}/{field}.
import { Elysia } from "elysia";
import { guard } from "../../plugins/guard.ts";
import { sendJson } from "../../plugins/respond.ts";
import type { Runtime } from "../../runtime.ts";
import { rawQueryOf } from "../lists/service.ts";
import { CATALOG_ROUTES } from "./openapi.ts";
import { FIELDS_BODY, valuesOf } from "./service.ts";

export function catalogModule(runtime: Runtime) {
  return new Elysia({ name: "catalog" })
    .use(guard(runtime))
    .get(CATALOG_ROUTES.fields.path, ({ set }) => sendJson(set, FIELDS_BODY), {
      protected: true,
      detail: CATALOG_ROUTES.fields,
    })
    .get(
      CATALOG_ROUTES.values.path,
      ({ request, params, tenant, client, set }) =>
        sendJson(
          set,
          JSON.stringify({
            data: valuesOf(tenant, client, params.entity, params.field, new URLSearchParams(rawQueryOf(request.url))),
          }),
        ),
      {
        protected: true,
        detail: CATALOG_ROUTES.values,
      },
    );
}
