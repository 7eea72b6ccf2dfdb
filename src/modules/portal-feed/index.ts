// GET and HEAD /v1/feeds/vrsync.xml (docs/reference/behaviour-extensions.md §17): the client's listings as a VRSync file, for
// portals that fetch a URL with a bearer token or Basic auth.
import { Elysia } from "elysia";
import type { Logger } from "../../logging.ts";
import type { MetricsRegistry } from "../../metrics/registry.ts";
import { stateOf } from "../../plugins/context.ts";
import { guard } from "../../plugins/guard.ts";
import type { Runtime } from "../../runtime.ts";
import type { BodyLimits } from "./bodies.ts";
import { PortalFeedMetrics } from "./metrics.ts";
import { PORTAL_FEED_ROUTES } from "./openapi.ts";
import { PortalFeed } from "./service.ts";

export function portalFeedModule(
  runtime: Runtime,
  deps: { metrics: MetricsRegistry; logger: Logger; timeLimitMs?: number; bodyLimits?: BodyLimits },
) {
  const feed = new PortalFeed({
    runtime,
    metrics: new PortalFeedMetrics(deps.metrics.registry, () => runtime.config.clients.keys()),
    logger: deps.logger,
    timeLimitMs: deps.timeLimitMs,
    bodyLimits: deps.bodyLimits,
  });
  return new Elysia({ name: "portal-feed" })
    .use(guard(runtime))
    .get(
      PORTAL_FEED_ROUTES.get.path,
      ({ request, client, tenant }) => feed.answer(request, client, tenant, stateOf(request)),
      {
        bearerOrBasic: "feed:read",
        detail: PORTAL_FEED_ROUTES.get,
      },
    )
    .head(
      PORTAL_FEED_ROUTES.head.path,
      ({ request, client, tenant }) => feed.answer(request, client, tenant, stateOf(request)),
      {
        bearerOrBasic: "feed:read",
        detail: PORTAL_FEED_ROUTES.head,
      },
    );
}
