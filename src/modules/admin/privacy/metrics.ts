// The anonymization counts in /metrics (docs/operators/personal-data.md): leads anonymized per
// database, on a person's request or by retention. Database labels are the config's names.
import { Counter, Registry } from "prom-client";
import type { Runtime } from "../../../runtime.ts";

export type AnonymizationReason = "request" | "retention";

export class PrivacyMetrics {
  readonly registry = new Registry();
  private readonly leads: Counter<"database" | "reason">;

  constructor(databases: () => Iterable<string>) {
    this.leads = new Counter({
      name: "partner_api_leads_anonymized_total",
      help: "Leads anonymized, by database and reason: request (a person's, through the admin API or the console) or retention (the config's retention period).",
      labelNames: ["database", "reason"],
      registers: [this.registry],
      collect: () => {
        for (const database of databases())
          for (const reason of ["request", "retention"]) this.leads.labels(database, reason).inc(0);
      },
    });
  }

  anonymized(database: string, reason: AnonymizationReason, n: number): void {
    if (n > 0) this.leads.labels(database, reason).inc(n);
  }
}

const perRuntime = new WeakMap<Runtime, PrivacyMetrics>();

/** The server's privacy metrics: one per runtime, shared by the routes and retention. */
export function privacyMetricsOf(runtime: Runtime): PrivacyMetrics {
  let metrics = perRuntime.get(runtime);
  if (metrics === undefined) {
    metrics = new PrivacyMetrics(() => runtime.config.databases.keys());
    perRuntime.set(runtime, metrics);
  }
  return metrics;
}
