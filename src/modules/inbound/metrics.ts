// The inbound endpoint's metrics (docs/operators/portal-leads.md): portal lead posts by client
// and outcome. Client labels are the configured ids that take portal leads, each reported from
// zero; a post to any other id (unknown, or a client without `inbound`) counts under one
// shared label, so what callers put in the URL never makes a series.
import { Counter, type Registry } from "prom-client";

/** How a post ended: a lead made, one already made, refused, not authenticated, our failure. */
export const INBOUND_OUTCOMES = ["created", "duplicate", "refused", "unauthorised", "failed"] as const;
export type InboundOutcome = (typeof INBOUND_OUTCOMES)[number];

/** The client label of posts to an id that takes no portal leads. */
export const NOT_AN_INBOUND_CLIENT = "(unknown)";

export class InboundMetrics {
  private readonly posts: Counter<"client" | "outcome">;
  /** Children looked up once: prom-client's labels() validates and hashes on every call. */
  private readonly children = new Map<string, { inc(): void }>();

  /** `clients`: the configured ids that take portal leads, read at each scrape. */
  constructor(
    registry: Registry,
    private readonly clients: () => Iterable<string>,
  ) {
    this.posts = new Counter({
      name: "partner_api_inbound_posts_total",
      help:
        "Portal lead posts to POST /v1/inbound/{clientId} by client and outcome: created (201), duplicate (200, the portal's lead id " +
        "was already taken), refused (not a lead, too large, client disabled, rate limited), unauthorised (401: wrong credentials, or an id " +
        `that takes no portal leads, counted as client "${NOT_AN_INBOUND_CLIENT}"), failed (5xx).`,
      labelNames: ["client", "outcome"],
      registers: [registry],
      collect: () => {
        for (const client of this.clients())
          for (const outcome of INBOUND_OUTCOMES) this.posts.labels(client, outcome).inc(0);
        this.posts.labels(NOT_AN_INBOUND_CLIENT, "unauthorised").inc(0);
      },
    });
  }

  /** `client`: an id that takes portal leads, else NOT_AN_INBOUND_CLIENT (the caller decides, from the config). */
  posted(client: string, outcome: InboundOutcome): void {
    const key = `${client}\0${outcome}`;
    let child = this.children.get(key);
    if (child === undefined) {
      child = this.posts.labels(client, outcome);
      this.children.set(key, child);
    }
    child.inc();
  }
}
