// GET /metrics: the operator's Prometheus scrape. Outside the guard (no rate limit); in
// production it answers exactly like an unknown path unless the configured token is presented.
import { Elysia } from "elysia";
import { ApiError } from "../../errors.ts";
import { PROMETHEUS_CONTENT_TYPE } from "../../metrics/exposition.ts";
import { renderFactsOnly, type MetricsRegistry } from "../../metrics/registry.ts";
import type { Runtime } from "../../runtime.ts";
import { VERSION } from "../../version.ts";
import { databaseSizes, mayScrape } from "./service.ts";

/**
 * With `registry` null (metrics off), the scrape reports only the scrape-time facts. `more`
 * adds families kept elsewhere (webhooks), each a piece of exposition text.
 */
export function metricsModule(runtime: Runtime, registry: MetricsRegistry | null, more: readonly (() => string)[] = []) {
  return new Elysia({ name: "metrics" }).get(
    "/metrics",
    ({ request }) => {
      const config = runtime.config;
      if (!mayScrape(config, request.headers.get("authorization"))) {
        throw new ApiError("NOT_FOUND", "No route matches this path");
      }
      const facts = { version: VERSION, environment: config.environment, databases: databaseSizes(config.databases) };
      const body = (registry === null ? renderFactsOnly(facts) : registry.render(facts)) + more.map((render) => render()).join("");
      return new Response(body, { headers: { "content-type": PROMETHEUS_CONTENT_TYPE, "cache-control": "no-store" } });
    },
    { detail: { summary: "Prometheus metrics", tags: ["Operations"] } },
  );
}
