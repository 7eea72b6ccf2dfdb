// The portal feed's metrics (docs/reference/behaviour-extensions.md §17), on the server's registry: answers by client and
// outcome, listings left out, bytes sent. Client labels are configured ids, so bounded; every
// configured client is reported from zero, so a rate or an increase over it exists before its
// portal's first fetch.
import { Counter, type Registry } from "prom-client";

/** How an answer of the feed ended. */
export const FEED_OUTCOMES = ["full", "not_modified", "head", "hung_up", "too_slow", "failed", "busy"] as const;
export type FeedOutcome = (typeof FEED_OUTCOMES)[number];

export class PortalFeedMetrics {
  private readonly answers: Counter<"client" | "outcome">;
  private readonly skipped: Counter<"client">;
  private readonly bytes: Counter<"client">;

  /** `clients`: the configured client ids, read at each scrape. */
  constructor(registry: Registry, clients: () => Iterable<string>) {
    const registers = [registry];
    const zeros = () => {
      for (const client of clients()) {
        for (const outcome of FEED_OUTCOMES) this.answers.labels(client, outcome).inc(0);
        this.skipped.labels(client).inc(0);
        this.bytes.labels(client).inc(0);
      }
    };
    this.answers = new Counter({
      name: "partner_api_portal_feed_answers_total",
      help:
        "Answers of GET/HEAD /v1/feeds/vrsync.xml by client and outcome: full (the body sent whole), not_modified (304), head, " +
        "hung_up (the reader went away mid-body), too_slow (cut at the time limit), failed (our failure mid-body), " +
        "busy (503: too many bodies streaming and waiting already).",
      labelNames: ["client", "outcome"],
      registers,
      collect: zeros,
    });
    this.skipped = new Counter({
      name: "partner_api_portal_feed_skipped_listings_total",
      help: "Listings of a client's selection left out of a feed served because VRSync cannot carry them (the X-Feed-Skipped of each 200 to a GET, summed).",
      labelNames: ["client"],
      registers,
    });
    this.bytes = new Counter({
      name: "partner_api_portal_feed_bytes_total",
      help: "Body bytes of portal feeds sent (gzipped when the reader took gzip).",
      labelNames: ["client"],
      registers,
    });
  }

  answered(client: string, outcome: FeedOutcome): void {
    this.answers.labels(client, outcome).inc();
  }

  /** A GET answered 200: its listings left out, counted when the feed starts. */
  served(client: string, skipped: number): void {
    this.skipped.labels(client).inc(skipped);
  }

  sent(client: string, bytes: number): void {
    this.bytes.labels(client).inc(bytes);
  }
}
