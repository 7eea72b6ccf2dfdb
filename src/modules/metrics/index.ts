// GET /metrics: the operator's Prometheus scrape. Outside the guard (no rate limit); in
// production it answers exactly like an unknown path unless the configured token is presented.
import { Elysia } from "elysia";
import { ApiError } from "../../errors.ts";
import type { MetricsRegistry } from "../../metrics/registry.ts";
import type { Runtime } from "../../runtime.ts";
import { VERSION } from "../../version.ts";
import { databaseSizes, mayScrape } from "./service.ts";

export function metricsModule(runtime: Runtime, metrics: MetricsRegistry) {
  return new Elysia({ name: "metrics" }).get(
    "/metrics",
    async ({ request }) => {
      const config = runtime.config;
      if (!mayScrape(config, request.headers.get("authorization"))) {
        throw new ApiError("NOT_FOUND", "No route matches this path");
      }
      const facts = { version: VERSION, environment: config.environment, databases: databaseSizes(config.databases) };
      const body = await metrics.render(facts);
      return new Response(body, { headers: { "content-type": metrics.contentType, "cache-control": "no-store" } });
    },
    { detail: { summary: "Prometheus metrics", tags: ["Operations"] } },
  );
}
