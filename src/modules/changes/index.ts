// GET /v1/changes: what changed since a sequence, for partners that keep a copy.
import { Elysia } from "elysia";
import { guard } from "../../plugins/guard.ts";
import { sendJson } from "../../plugins/respond.ts";
import type { Runtime } from "../../runtime.ts";
import { rawQueryOf } from "../listing/service.ts";
import { changesPage } from "./service.ts";
import { settle } from "../../maybe.ts";

export function changesModule(runtime: Runtime) {
  return new Elysia({ name: "changes" })
    .use(guard(runtime))
    .get("/v1/changes", ({ request, tenant, set }) => settle(changesPage(tenant, rawQueryOf(request.url)), (body) => sendJson(set, body)), {
      protected: true,
      detail: { summary: "Read the change feed", tags: ["Sync"] },
    });
}
