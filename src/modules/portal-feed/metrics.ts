// The portal feed's metrics (CONTRACT §17), on the server's registry: answers by client and
// outcome, listings left out, bytes sent. Client labels are configured ids, so bounded.
import { Counter, type Registry } from "prom-client";

/** How an answer of the feed ended. */
export type FeedOutcome = "full" | "not_modified" | "head" | "hung_up" | "too_slow" | "failed";

export class PortalFeedMetrics {
  private readonly answers: Counter<"client" | "outcome">;
  private readonly skipped: Counter<"client">;
  private readonly bytes: Counter<"client">;

  constructor(registry: Registry) {
    const registers = [registry];
    this.answers = new Counter({
      name: "partner_api_portal_feed_answers_total",
      help:
        "Answers of GET/HEAD /v1/feeds/vrsync.xml by client and outcome: full (the body sent whole), not_modified (304), head, " +
        "hung_up (the reader went away mid-body), too_slow (cut at the time limit), failed (our failure mid-body).",
      labelNames: ["client", "outcome"],
      registers,
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
