// The request metrics of docs/reference/behaviour-extensions.md §12: requests by route template, method and status, latency
// by route and method, 429s by client, authentication failures by code, leads created.
// Recorded once per finished request (plugins/context.ts). Labels come only from route
// templates, configured client ids and the closed error-code table, and every label set is
// capped. Each series is looked up once and kept, so a warm request finds it in two map reads
// and allocates nothing; prom-client renders them.
import { Counter, Histogram, type Registry } from "prom-client";
import { BoundedMap } from "./bounded.ts";
import { LATENCY_BUCKETS_SECONDS } from "./buckets.ts";
import { type HistogramSeries, histogramSeries } from "./histogram-series.ts";

/** The route label of requests no route matched (404s, 405s): never the raw path. */
export const UNMATCHED_ROUTE = "unmatched";
/** The client label of 429s refused before any client was known (the per-IP auth bucket). */
export const NO_CLIENT = "(unauthenticated)";
/**
 * The status recorded when the client hung up before its request was read (nginx's "client
 * closed request"): no response reached anyone, and it is not the server's error, so it must
 * never count among the 5xx an operator is alerted on.
 */
export const CLIENT_CLOSED_REQUEST = 499;

/** Codes of docs/reference/behaviour.md §4 that mean "these credentials or this token were refused". */
export const AUTH_FAILURE_CODES = [
  "MISSING_CREDENTIALS",
  "INVALID_API_KEY",
  "INVALID_API_SECRET",
  "INVALID_TOKEN",
  "API_DISABLED",
  "IP_BLOCKED",
  "NO_DATABASE",
] as const;

const LEAD_CREATION = { method: "POST", route: "/v1/leads" };
const KNOWN_METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

// Far above the app's route table and any real client list; only a bug could reach them.
const MAX_ROUTE_SERIES = 100;
const MAX_CLIENT_SERIES = 1000;

type CounterChild = ReturnType<Counter["labels"]>;

/** Requests of one route, method and status: counted here, handed to prom-client when scraped. */
interface StatusCount {
  count: number;
  /** What the prom-client child has been told so far. */
  reported: number;
  child: CounterChild;
}

/** One route and method: its latency series, and its count per status (made on first use). */
class RouteSeries {
  readonly statuses = new Map<number, StatusCount>();
  readonly latency: HistogramSeries;

  constructor(
    private readonly requests: Counter,
    latency: Histogram<"route" | "method">,
    private readonly route: string,
    private readonly method: string,
  ) {
    this.latency = histogramSeries(latency, { route, method });
  }

  count(status: number): void {
    const counted = this.statuses.get(status);
    if (counted !== undefined) counted.count++;
    else
      this.statuses.set(status, {
        count: 1,
        reported: 0,
        child: this.requests.labels(this.route, this.method, String(status)),
      });
  }
}

export class RequestMetrics {
  private readonly requests: Counter;
  private readonly latency: Histogram<"route" | "method">;
  private readonly rateLimited: Counter;
  private readonly authFailures = new Map<string, CounterChild>();
  private readonly leadsCreated: Counter;
  /** route template → method → its children; both levels capped. */
  private readonly routes: BoundedMap<BoundedMap<RouteSeries>>;
  private readonly rateLimitedClients: BoundedMap<CounterChild>;

  constructor(registry: Registry) {
    const registers = [registry];
    const series = () => this.allSeries();
    // The one counter every request touches. prom-client hashes a child's labels on each call
    // (half of what the metrics cost a request, measured), so requests are counted in plain
    // numbers and handed over when scraped.
    this.requests = new Counter({
      name: "partner_api_http_requests_total",
      help: `Requests answered, by route template, method and status (${CLIENT_CLOSED_REQUEST}: the client hung up before its request was read).`,
      labelNames: ["route", "method", "status"],
      registers,
      collect() {
        for (const route of series()) {
          for (const counted of route.statuses.values()) {
            if (counted.count > counted.reported) counted.child.inc(counted.count - counted.reported);
            counted.reported = counted.count;
          }
        }
      },
    });
    this.latency = new Histogram({
      name: "partner_api_http_request_duration_seconds",
      help: "Time from receiving a request to finishing its response, by route template and method.",
      labelNames: ["route", "method"],
      buckets: LATENCY_BUCKETS_SECONDS,
      registers,
    });
    this.rateLimited = new Counter({
      name: "partner_api_rate_limited_total",
      help: `429 answers by configured client id; ${NO_CLIENT} when refused before authentication.`,
      labelNames: ["client"],
      registers,
    });
    const authFailures = new Counter({
      name: "partner_api_auth_failures_total",
      help: "Refused credentials or tokens, by error code.",
      labelNames: ["code"],
      registers,
    });
    // Every code is reported from zero, so a rate over it exists before the first failure.
    for (const code of AUTH_FAILURE_CODES) {
      const child = authFailures.labels(code);
      child.inc(0);
      this.authFailures.set(code, child);
    }
    this.leadsCreated = new Counter({
      name: "partner_api_leads_created_total",
      help: "Leads created by POST /v1/leads (idempotent replays excluded).",
      registers,
    });
    this.routes = new BoundedMap(
      MAX_ROUTE_SERIES,
      (route) =>
        new BoundedMap(KNOWN_METHODS.size + 1, (method) => new RouteSeries(this.requests, this.latency, route, method)),
    );
    this.rateLimitedClients = new BoundedMap(MAX_CLIENT_SERIES, (client) => this.rateLimited.labels(client));
  }

  /** Every route and method seen so far. */
  private *allSeries(): Generator<RouteSeries> {
    for (const methods of this.routes.values()) yield* methods.values();
  }

  /**
   * Records one finished request. Runs on every request, so it takes plain arguments (no
   * object to allocate) and only touches existing children once warm.
   * @param route the matched route template, or null when no route matched
   * @param clientId a configured client id, when the request was attributed to one
   * @param errorCode the contract error code of an error response
   * @param replayed true when a 201 was an idempotent replay rather than a new lead
   */
  observe(
    route: string | null,
    method: string,
    status: number,
    durationMs: number,
    clientId: string | undefined,
    errorCode: string | undefined,
    replayed: boolean,
  ): void {
    const routeLabel = route ?? UNMATCHED_ROUTE;
    const series = this.routes.get(routeLabel).get(KNOWN_METHODS.has(method) ? method : "OTHER");
    series.count(status);
    series.latency.observe(durationMs / 1000);

    if (status === 429) this.rateLimitedClients.get(clientId ?? NO_CLIENT).inc();
    if (errorCode !== undefined) this.authFailures.get(errorCode)?.inc();
    if (status === 201 && !replayed && routeLabel === LEAD_CREATION.route && method === LEAD_CREATION.method) {
      this.leadsCreated.inc();
    }
  }
}
