// The server's metrics, on prom-client: one MetricsRegistry per running server, rendered by
// GET /metrics together with the process-wide metrics (src/metrics/process.ts: memory, CPU,
// file descriptors, event-loop lag, garbage collections, storage).
//
// ADDING METRICS (webhooks, feed runs, the Redis fallback, the portal feed…): this is the place.
// Create them in your feature's own file on `metrics.registry`, and take the server's
// MetricsRegistry from createApp (AppDeps.metrics; build one with `new MetricsRegistry()` where
// the server is assembled and hand the same object to your worker):
//
//   const deliveries = new Counter({
//     name: "partner_api_webhook_deliveries_total",   // always partner_api_*, base units (_seconds, _bytes), counters end in _total
//     help: "Webhook deliveries by event type and outcome.",
//     labelNames: ["event", "outcome"],                 // bounded values only: never ids, URLs or anything a caller sends
//     registers: [metrics.registry],
//   });
//
// A feature whose objects are made before the server's MetricsRegistry (the webhook worker is
// made in src/cli/server.ts, then handed to createApp) keeps a prom-client Registry of its own
// and the app includes it: `metrics.include(webhooks.metrics.registry)` (src/app.ts); with a
// condition when its families only mean something sometimes (the feeds', while any is configured).
//
// On a hot path, keep the child (`const ok = deliveries.labels("lead.created", "succeeded")`)
// rather than passing labels on every call. A value read at scrape time belongs in the metric's
// `collect()`. Then add the family to deploy/grafana/partner-api.json and, when it warrants
// waking someone, to deploy/prometheus/alerts.yml: test/metrics/prometheus.test.ts checks
// every family of the scrape is ingested by a real Prometheus, and every dashboard and alert
// expression against it. Under `serve --workers N` the workers' metrics are added up at each
// scrape (src/metrics/cluster.ts): give a gauge the `aggregator` that adds it up right ("max"
// for a fact every worker reads from the database, "min", "first"…; counters are summed).
import { Gauge, Registry } from "prom-client";
import { processRegistry, startProcessMetrics } from "./process.ts";
import { RequestMetrics } from "./requests.ts";
// The storage families are registered when the storage code loads them; loaded here too, so
// every scrape declares them from the start, zeros included.
import "./storage.ts";

export interface DatabaseSize {
  /** The database's name in the config. */
  database: string;
  file: "main" | "wal";
  bytes: number;
}

export interface ScrapeFacts {
  version: string;
  environment: string;
  databases: readonly DatabaseSize[];
}

export class MetricsRegistry {
  /** This server's prom-client registry: register a feature's metrics here (see above). */
  readonly registry = new Registry();
  /** Null when request metrics are off (`--no-metrics`): no request family at a false zero. */
  readonly requests: RequestMetrics | null;
  /** Registries of features (see above), merged into each scrape while their condition holds. */
  private readonly included: { registry: Registry; when: () => boolean }[] = [];
  private readonly databaseSize: Gauge;
  private readonly buildInfo: Gauge;

  constructor(options: { requests?: boolean } = {}) {
    startProcessMetrics();
    this.requests = options.requests === false ? null : new RequestMetrics(this.registry);
    this.databaseSize = new Gauge({
      name: "partner_api_database_size_bytes",
      help: "Size on disk of each configured database file and its write-ahead log (file=wal), read at scrape time.",
      labelNames: ["database", "file"],
      registers: [this.registry],
      // Workers of one server read the same files: counted once, not once per worker.
      aggregator: "max",
    });
    this.buildInfo = new Gauge({
      name: "partner_api_build_info",
      help: "Always 1; labels name the running version and environment.",
      labelNames: ["version", "environment"],
      registers: [this.registry],
      aggregator: "first",
    });
  }

  include(registry: Registry, when: () => boolean = () => true): void {
    this.included.push({ registry, when });
  }

  /** The whole scrape in Prometheus text format: this server's metrics and the process's. */
  async render(facts: ScrapeFacts): Promise<string> {
    return await this.scrape(facts).metrics();
  }

  /** The same, as prom-client's JSON: what a worker hands its supervisor (src/metrics/cluster.ts). */
  async snapshot(facts: ScrapeFacts) {
    return await this.scrape(facts).getMetricsAsJSON();
  }

  private scrape(facts: ScrapeFacts): Registry {
    // Set whole at each scrape: a database removed from the config leaves no stale series.
    this.databaseSize.reset();
    for (const { database, file, bytes } of facts.databases) this.databaseSize.set({ database, file }, bytes);
    this.buildInfo.reset();
    this.buildInfo.set({ version: facts.version, environment: facts.environment }, 1);
    const included = this.included.filter(({ when }) => when()).map(({ registry }) => registry);
    return Registry.merge([processRegistry, this.registry, ...included]);
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
