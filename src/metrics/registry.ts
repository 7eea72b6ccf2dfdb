// The partner-api's operator metrics (CONTRACT §12), kept in memory and updated once per
// finished request: requests by route and status, latency by route, 429s by client,
// authentication failures by code, leads created. Scrape-time facts (database sizes) are
// passed to render(). Labels come only from route templates, configured client ids and the
// closed error-code table, and every label set is capped.
import { BoundedMap } from "./bounded.ts";
import { Exposition } from "./exposition.ts";
import { Histogram } from "./histogram.ts";

/** The route label of requests no route matched (404s, 405s): never the raw path. */
export const UNMATCHED_ROUTE = "unmatched";
/** The client label of 429s refused before any client was known (the per-IP auth bucket). */
export const NO_CLIENT = "(unauthenticated)";

/** Codes of CONTRACT §4 that mean "these credentials or this token were refused". */
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

const PREFIX = "partner_api_";

class RouteSeries {
  readonly statuses = new Map<number, number>();
  readonly latency = new Histogram();
}

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
  /** route template → method → series; both levels capped. */
  private readonly routes = new BoundedMap(MAX_ROUTE_SERIES, () => new BoundedMap(KNOWN_METHODS.size + 1, () => new RouteSeries()));
  private readonly rateLimited = new BoundedMap(MAX_CLIENT_SERIES, () => ({ count: 0 }));
  private readonly authFailures = new Map<string, number>(AUTH_FAILURE_CODES.map((code) => [code, 0]));
  private leadsCreated = 0;

  /**
   * Records one finished request. Runs on every request, so it takes plain arguments (no
   * object to allocate) and only touches existing map entries once warm.
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
    series.statuses.set(status, (series.statuses.get(status) ?? 0) + 1);
    series.latency.observe(durationMs / 1000);

    if (status === 429) this.rateLimited.get(clientId ?? NO_CLIENT).count++;
    if (errorCode !== undefined) {
      const failures = this.authFailures.get(errorCode);
      if (failures !== undefined) this.authFailures.set(errorCode, failures + 1);
    }
    if (status === 201 && !replayed && routeLabel === LEAD_CREATION.route && method === LEAD_CREATION.method) {
      this.leadsCreated++;
    }
  }

  /** The whole scrape in Prometheus text format. */
  render(facts: ScrapeFacts): string {
    const out = new Exposition();
    const routes = this.routes.sorted().flatMap(([route, methods]) =>
      methods.sorted().map(([method, series]) => ({ route, method, series })),
    );

    out.family(`${PREFIX}http_requests_total`, "counter", "Requests answered, by route template, method and status.");
    for (const { route, method, series } of routes) {
      for (const [status, count] of [...series.statuses].sort(([a], [b]) => a - b)) {
        out.sample(`${PREFIX}http_requests_total`, [["route", route], ["method", method], ["status", String(status)]], count);
      }
    }

    const latency = `${PREFIX}http_request_duration_seconds`;
    out.family(latency, "histogram", "Time from receiving a request to finishing its response, by route template and method.");
    for (const { route, method, series } of routes) {
      for (const [le, count] of series.latency.cumulative()) {
        out.sample(`${latency}_bucket`, [["route", route], ["method", method], ["le", le === Infinity ? "+Inf" : String(le)]], count);
      }
      out.sample(`${latency}_sum`, [["route", route], ["method", method]], series.latency.sum);
      out.sample(`${latency}_count`, [["route", route], ["method", method]], series.latency.count);
    }

    out.family(`${PREFIX}rate_limited_total`, "counter", `429 answers by configured client id; ${NO_CLIENT} when refused before authentication.`);
    for (const [client, { count }] of this.rateLimited.sorted()) {
      out.sample(`${PREFIX}rate_limited_total`, [["client", client]], count);
    }

    out.family(`${PREFIX}auth_failures_total`, "counter", "Refused credentials or tokens, by error code.");
    for (const [code, count] of this.authFailures) out.sample(`${PREFIX}auth_failures_total`, [["code", code]], count);

    out.family(`${PREFIX}leads_created_total`, "counter", "Leads created by POST /v1/leads (idempotent replays excluded).");
    out.sample(`${PREFIX}leads_created_total`, [], this.leadsCreated);

    return writeFacts(out, facts).toString();
  }
}

function writeFacts(out: Exposition, facts: ScrapeFacts): Exposition {
  out.family(`${PREFIX}database_size_bytes`, "gauge", "Size on disk of each configured database file and its write-ahead log, read at scrape time.");
  for (const { database, file, bytes } of facts.databases) {
    out.sample(`${PREFIX}database_size_bytes`, [["database", database], ["file", file]], bytes);
  }
  out.family(`${PREFIX}build_info`, "gauge", "Always 1; labels name the running version and environment.");
  out.sample(`${PREFIX}build_info`, [["version", facts.version], ["environment", facts.environment]], 1);
  return out;
}

/** The scrape when request metrics are off: only what is read at scrape time, no counter at a false zero. */
export function renderFactsOnly(facts: ScrapeFacts): string {
  return writeFacts(new Exposition(), facts).toString();
}
