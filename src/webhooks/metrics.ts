// Webhook metrics for /metrics (CONTRACT §13): attempts by event type and outcome, deliveries
// finished by event type and state, attempt latency, and, read at scrape time, the age of the
// oldest pending delivery per database. Label values come from closed sets only.
import type { Exposition } from "../metrics/exposition.ts";
import { Histogram } from "../metrics/histogram.ts";
import { EVENT_TYPES, type EventType } from "./events.ts";

export const ATTEMPT_OUTCOMES = ["success", "http_error", "timeout", "network_error", "target_refused"] as const;
export type AttemptOutcome = (typeof ATTEMPT_OUTCOMES)[number];
export const FINAL_STATES = ["succeeded", "failed"] as const;
export type FinalState = (typeof FINAL_STATES)[number];

/** Receivers answer in milliseconds to seconds; the attempt timeout is 10 s. */
const ATTEMPT_BUCKETS_SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

const PREFIX = "partner_api_webhook_";

function grid<K extends string>(keys: readonly K[]): Map<EventType, Map<K, number>> {
  return new Map(EVENT_TYPES.map((type) => [type, new Map(keys.map((k) => [k, 0]))]));
}

export interface PendingAge {
  database: string;
  /** Seconds since the oldest pending delivery was made; 0 when none is pending. */
  seconds: number;
}

export class WebhookMetrics {
  private readonly attempts = grid(ATTEMPT_OUTCOMES);
  private readonly finished = grid(FINAL_STATES);
  private readonly latency = new Map(EVENT_TYPES.map((type) => [type, new Histogram(ATTEMPT_BUCKETS_SECONDS)]));

  attempt(type: EventType, outcome: AttemptOutcome, durationMs: number): void {
    const counts = this.attempts.get(type)!;
    counts.set(outcome, counts.get(outcome)! + 1);
    this.latency.get(type)!.observe(durationMs / 1000);
  }

  delivered(type: EventType, state: FinalState): void {
    const counts = this.finished.get(type)!;
    counts.set(state, counts.get(state)! + 1);
  }

  /** Writes the families into a scrape; `pending` is read at scrape time. */
  write(out: Exposition, pending: readonly PendingAge[]): void {
    out.family(`${PREFIX}attempts_total`, "counter", "Webhook delivery attempts, by event type and outcome.");
    for (const [type, counts] of this.attempts) {
      for (const [outcome, n] of counts) out.sample(`${PREFIX}attempts_total`, [["event", type], ["outcome", outcome]], n);
    }
    out.family(`${PREFIX}deliveries_total`, "counter", "Webhook deliveries finished, by event type and final state (failed: no retry left, or the subscription was disabled).");
    for (const [type, counts] of this.finished) {
      for (const [state, n] of counts) out.sample(`${PREFIX}deliveries_total`, [["event", type], ["state", state]], n);
    }
    const latency = `${PREFIX}attempt_duration_seconds`;
    out.family(latency, "histogram", "Time from the start of a webhook attempt to its outcome, by event type.");
    for (const [type, histogram] of this.latency) {
      for (const [le, count] of histogram.cumulative()) {
        out.sample(`${latency}_bucket`, [["event", type], ["le", le === Infinity ? "+Inf" : String(le)]], count);
      }
      out.sample(`${latency}_sum`, [["event", type]], histogram.sum);
      out.sample(`${latency}_count`, [["event", type]], histogram.count);
    }
    out.family(`${PREFIX}oldest_pending_seconds`, "gauge", "Age of the oldest webhook delivery not yet finished, per database (0 when none).");
    for (const { database, seconds } of pending) out.sample(`${PREFIX}oldest_pending_seconds`, [["database", database]], seconds);
  }
}
