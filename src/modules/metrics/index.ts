// GET /metrics: the operator's Prometheus scrape. Outside the guard (no rate limit); in
// production it answers exactly like an unknown path unless the configured token is presented.
import { Elysia } from "elysia";
import { ApiError } from "../../errors.ts";
import type { WorkerMetrics } from "../../metrics/cluster.ts";
import type { MetricsRegistry } from "../../metrics/registry.ts";
import type { Runtime } from "../../runtime.ts";
import { METRICS_ROUTES } from "./openapi.ts";
import { mayScrape, scrapeFacts } from "./service.ts";

/** `cluster`: in a worker of `serve --workers N`, every worker's metrics added up. */
export function metricsModule(runtime: Runtime, metrics: MetricsRegistry, cluster: WorkerMetrics | null = null) {
  return new Elysia({ name: "metrics" }).get(
    METRICS_ROUTES.metrics.path,
    async ({ request }) => {
      const config = runtime.config;
      if (!mayScrape(config, request.headers.get("authorization"))) {
        throw new ApiError("NOT_FOUND", "No route matches this path");
      }
      // A supervisor that cannot answer leaves this worker's own figures, better than none.
      const body = (await cluster?.scrape()) ?? (await metrics.render(scrapeFacts(config)));
      return new Response(body, { headers: { "content-type": metrics.contentType, "cache-control": "no-store" } });
    },
    { detail: METRICS_ROUTES.metrics },
  );
}
