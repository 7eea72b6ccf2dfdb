// createApp(deps): the global plugins first (context, errors), then each feature module.
import { Elysia } from "elysia";
import { feedMetricsRegistry } from "./agency/crm-feeds/metrics.ts";
import type { DocumentedRoute } from "./docs/openapi.ts";
import type { Logger } from "./logging.ts";
import { WorkerMetrics } from "./metrics/cluster.ts";
import { MetricsRegistry } from "./metrics/registry.ts";
import { adminModule } from "./modules/admin/index.ts";
import { authModule } from "./modules/auth/index.ts";
import { catalogModule } from "./modules/catalog/index.ts";
import { changesModule } from "./modules/changes/index.ts";
import { consoleModule } from "./modules/console/index.ts";
import { docsModule } from "./modules/docs/index.ts";
import { healthModule } from "./modules/health/index.ts";
import { inboundModule } from "./modules/inbound/index.ts";
import { leadsModule } from "./modules/leads/index.ts";
import { metricsModule } from "./modules/metrics/index.ts";
import { mayScrape, scrapeFacts } from "./modules/metrics/service.ts";
import type { BodyLimits } from "./modules/portal-feed/bodies.ts";
import { portalFeedModule } from "./modules/portal-feed/index.ts";
import { propertiesModule } from "./modules/properties/index.ts";
import { searchModule } from "./modules/search/index.ts";
import { webhooksModule } from "./modules/webhooks/index.ts";
import { createServerWebhooks, type ServerWebhooks } from "./modules/webhooks/service.ts";
import { type PeerAddress, requestContext, serverPeerAddress } from "./plugins/context.ts";
import { errorHandler } from "./plugins/errors.ts";
import type { Runtime } from "./runtime.ts";

export interface AppDeps {
  runtime: Runtime;
  logger: Logger;
  /** Where the TCP peer address comes from; tests pass their own. */
  peerAddress?: PeerAddress;
  /**
   * The server's metrics (GET /metrics); absent: a new registry; null: a new registry that
   * records no request metrics (`--no-metrics`).
   */
  metrics?: MetricsRegistry | null;
  /** True in a worker of `serve --workers N`, whose scrapes answer for all the workers. */
  worker?: boolean;
  /** The webhook worker and its metrics; absent: a worker that is never started (tests drive it by hand). */
  webhooks?: ServerWebhooks;
  /** How long a reader may take over a portal feed body (default 30 minutes); tests shorten it. */
  portalFeedTimeLimitMs?: number;
  /** How many portal feed bodies stream at once, and wait (default: modules/portal-feed/bodies.ts); tests lower them. */
  portalFeedBodies?: BodyLimits;
}

/** Path patterns with their methods, for 405 answers; built from the app's own routes. */
function methodTable(routes: readonly { method: string; path: string }[]) {
  const table = new Map<string, { path: string; pattern: RegExp; methods: string[] }>();
  for (const { method, path } of routes) {
    if (path === "*" || method === "ALL") continue;
    let entry = table.get(path);
    if (entry === undefined) {
      entry = { path, pattern: new RegExp(`^${path.replace(/:[^/]+/g, "[^/]+")}/?$`), methods: [] };
      table.set(path, entry);
    }
    if (!entry.methods.includes(method)) entry.methods.push(method);
  }
  return [...table.values()];
}

export function createApp(deps: AppDeps) {
  const { runtime, logger } = deps;
  const metrics = deps.metrics ?? new MetricsRegistry({ requests: deps.metrics !== null });
  const webhooks = deps.webhooks ?? createServerWebhooks(runtime, { logger });
  // Metrics off (benchmarks) is every counter off, webhooks' too.
  if (deps.metrics !== null) metrics.include(webhooks.metrics.registry);
  // Scrape-time facts, like the database sizes: read from the databases whichever process ran the feeds.
  const feeds = feedMetricsRegistry({
    feeds: () => runtime.config.feeds,
    open: (path) => runtime.tenants.get(path)?.read ?? null,
    now: () => runtime.clock.now(),
  });
  metrics.include(feeds, () => runtime.config.feeds.length > 0);
  metrics.include(runtime.redisMetrics.registry, () => runtime.config.redis !== null);
  // One of `serve --workers N`: a scrape here answers for every worker (src/metrics/cluster.ts).
  const cluster = deps.worker === true ? new WorkerMetrics(() => metrics.snapshot(scrapeFacts(runtime.config))) : null;
  let methods: ReturnType<typeof methodTable> | null = null;
  // Elysia finds a request's path by searching for the first "/" from the 12th character of
  // its URL (`handler.standardHostname`, on by default), assuming "http://" and a host of at
  // least 4 characters. Bun builds the URL from the Host header, so with `Host: a` the search
  // skipped the path's own first slash: GET /health/ was routed as "/" and answered 405 by the
  // method table, while a longer host got 200. Searching from the 8th character (just past
  // "http://"; this server speaks plain HTTP, TLS ends at the proxy) gives every host the same
  // route; a trailing slash is the same route as without it, as the method table says too.
  const app = new Elysia({ name: "partner-api", handler: { standardHostname: false } })
    .use(
      requestContext({
        runtime,
        logger,
        peerAddress: deps.peerAddress ?? serverPeerAddress,
        requests: metrics.requests,
      }),
    )
    .use(
      errorHandler({
        logger,
        allowedMethods: (path, request) => {
          methods ??= methodTable(app.routes);
          const route = methods.find((m) => m.pattern.test(path));
          // A hidden /metrics must not reveal itself through a 405 either.
          if (route?.path === "/metrics" && !mayScrape(runtime.config, request.headers.get("authorization"))) return [];
          return route?.methods ?? [];
        },
      }),
    )
    .use(healthModule(runtime, runtime.clock.now()))
    .use(authModule(runtime))
    .use(catalogModule(runtime))
    .use(propertiesModule(runtime))
    .use(searchModule(runtime))
    .use(leadsModule(runtime))
    .use(inboundModule(runtime, { metrics, logger }))
    .use(changesModule(runtime))
    .use(
      portalFeedModule(runtime, {
        metrics,
        logger,
        timeLimitMs: deps.portalFeedTimeLimitMs,
        bodyLimits: deps.portalFeedBodies,
      }),
    )
    .use(webhooksModule(runtime, webhooks))
    .use(docsModule(runtime, (): readonly DocumentedRoute[] => app.routes))
    .use(metricsModule(runtime, metrics, cluster))
    // The agency's side (docs/operators/console.md): its own prefix, guard and document.
    .use(adminModule(runtime))
    .use(consoleModule(runtime));
  return app;
}
