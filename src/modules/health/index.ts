// GET /health: liveness plus a read check of every configured database (docs/reference/behaviour.md §10).
import { Elysia } from "elysia";
import { sendJson } from "../../plugins/respond.ts";
import type { Runtime } from "../../runtime.ts";
import { VERSION } from "../../version.ts";
import { HEALTH_ROUTES } from "./openapi.ts";

/** True when every configured database opens and answers a trivial read. */
function databasesReadable(runtime: Runtime): boolean {
  for (const path of runtime.config.databases.values()) {
    const tenant = runtime.tenants.get(path);
    if (tenant === null) return false;
    try {
      tenant.read.query("SELECT 1 FROM properties LIMIT 1").get();
    } catch {
      return false;
    }
  }
  return true;
}

export function healthModule(runtime: Runtime, startedAt: number) {
  return new Elysia({ name: "health" }).get(
    HEALTH_ROUTES.health.path,
    ({ set }) => {
      const ok = databasesReadable(runtime);
      const body = {
        status: ok ? "ok" : "degraded",
        version: VERSION,
        environment: runtime.config.environment,
        uptimeSeconds: Math.floor((runtime.clock.now() - startedAt) / 1000),
      };
      set.headers["cache-control"] = "no-store";
      return sendJson(set, JSON.stringify(body), ok ? 200 : 503);
    },
    { detail: HEALTH_ROUTES.health },
  );
}
