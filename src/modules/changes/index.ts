// GET /v1/changes: what changed since a sequence, for partners that keep a copy.
import { Elysia } from "elysia";
import { guard } from "../../plugins/guard.ts";
import { sendJson } from "../../plugins/respond.ts";
import { rawQueryOf, readerOf } from "../../query/lists.ts";
import type { Runtime } from "../../runtime.ts";
import { requireScope } from "../../security/scopes.ts";
import { CHANGES_ROUTES } from "./openapi.ts";
import { changesLookup, parseChangesQuery } from "./service.ts";

export function changesModule(runtime: Runtime) {
  return new Elysia({ name: "changes" }).use(guard(runtime)).get(
    CHANGES_ROUTES.changes.path,
    ({ request, tenant, client, set }) => {
      const rawQuery = rawQueryOf(request.url);
      const query = parseChangesQuery(new URLSearchParams(rawQuery));
      // The entity's own read scope: property entries need properties:read, lead entries a lead scope.
      requireScope(client, query.entity === "leads" ? "leads:read:own" : "properties:read");
      const reader = readerOf(client);
      const found = changesLookup(tenant, rawQuery, query, reader);
      if ("body" in found) return sendJson(set, found.body);
      // changesPage in a reader thread; what the page shows is on disk before it leaves or is
      // kept (the thread's tenant never waits: see Tenant.onDisk).
      return runtime.reads.run(client.id, tenant, { kind: "changes", rawQuery, reader }).then(async (body) => {
        await tenant.allOnDisk();
        found.keep(body);
        return sendJson(set, body);
      });
    },
    { protected: true, detail: CHANGES_ROUTES.changes },
  );
}
