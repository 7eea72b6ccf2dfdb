// The documentation of GET /metrics, passed on the route as its `detail`.

import { route, text } from "../../docs/operation.ts";
import { errorResponses } from "../../docs/responses.ts";
import { metricsExample } from "../../metrics/example.ts";

export const METRICS_ROUTES = {
  metrics: route("get", "/metrics", "Operations", ({ version }) => ({
    operationId: "getMetrics",
    summary: "Prometheus metrics",
    description:
      "Operator metrics in Prometheus text format: requests by route and status, latency by route, 429s by " +
      "client, authentication failures by code, leads created, database and WAL sizes, group commits and the page " +
      "cache, and the process (memory, CPU, open files, event-loop lag, garbage collections). Open in the sandbox; in " +
      "production it exists only when the config sets `metrics.token`, and needs `Authorization: Bearer <that token>` " +
      "(otherwise 404, exactly like an unknown path).",
    access: "metrics",
    parameters: [],
    responses: {
      "200": text("text/plain", "The scrape", metricsExample(version)),
      ...errorResponses(["NOT_FOUND", "INTERNAL_ERROR"], "plain", { NOT_FOUND: "No route matches this path" }),
    },
  })),
};
