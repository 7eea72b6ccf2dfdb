// Webhook metrics for /metrics (docs/reference/behaviour-extensions.md §13): attempts by event type and outcome, deliveries
// finished by event type and state, attempt latency, and, read at scrape time, the age of the
// oldest pending delivery or undispatched event per database. Label values come from closed
// sets only. The families live in a registry of their own (the worker is made before the
// server's MetricsRegistry), which the server's scrape includes (src/app.ts).
import { Counter, Gauge, Histogram, Registry } from "prom-client";
import { EVENT_TYPES, type EventType } from "./events.ts";

export const ATTEMPT_OUTCOMES = ["success", "http_error", "timeout", "network_error", "target_refused"] as const;
export type AttemptOutcome = (typeof ATTEMPT_OUTCOMES)[number];
export const FINAL_STATES = ["succeeded", "failed"] as const;
export type FinalState = (typeof FINAL_STATES)[number];

/** Receivers answer in milliseconds to seconds; the attempt timeout is 10 s. */
const ATTEMPT_BUCKETS_SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

const PREFIX = "partner_api_webhook_";

export interface PendingAge {
  database: string;
  /** Seconds since the oldest pending delivery was made; 0 when none is pending. */
  seconds: number;
}

export class WebhookMetrics {
  readonly registry = new Registry();
  private readonly attempts: Counter<"event" | "outcome">;
  private readonly finished: Counter<"event" | "state">;
  private readonly latency: Histogram<"event">;
  // Each labelled series looked up once: prom-client hashes the labels at every labels() call,
  // which showed in the profile of a worker recording thousands of attempts a second.
  private readonly attemptSeries = new Map<string, Counter.Internal>();
  private readonly finishedSeries = new Map<string, Counter.Internal>();
  private readonly latencySeries = new Map<string, Histogram.Internal<"event">>();

  /** `pending` is read at each scrape. */
  constructor(pending: () => readonly PendingAge[]) {
    const registers = [this.registry];
    this.attempts = new Counter({
      name: `${PREFIX}attempts_total`,
      help: "Webhook delivery attempts, by event type and outcome.",
      labelNames: ["event", "outcome"],
      registers,
    });
    this.finished = new Counter({
      name: `${PREFIX}deliveries_total`,
      help: "Webhook deliveries finished, by event type and final state (failed: no retry left, or the subscription was disabled).",
      labelNames: ["event", "state"],
      registers,
    });
    this.latency = new Histogram({
      name: `${PREFIX}attempt_duration_seconds`,
      help: "Time from the start of a webhook attempt to its outcome, by event type.",
      labelNames: ["event"],
      buckets: ATTEMPT_BUCKETS_SECONDS,
      registers,
    });
    // Every event type and outcome from zero, so rates over them exist before the first attempt.
    for (const event of EVENT_TYPES) {
      for (const outcome of ATTEMPT_OUTCOMES)
        this.attemptSeries.set(`${event} ${outcome}`, this.attempts.labels(event, outcome));
      for (const state of FINAL_STATES)
        this.finishedSeries.set(`${event} ${state}`, this.finished.labels(event, state));
    }
    for (const series of [...this.attemptSeries.values(), ...this.finishedSeries.values()]) series.inc(0);
    for (const event of EVENT_TYPES) {
      this.latency.zero({ event });
      this.latencySeries.set(event, this.latency.labels(event));
    }
    new Gauge({
      name: `${PREFIX}oldest_pending_seconds`,
      help: "Age of the oldest webhook delivery not yet finished, or of the oldest event not yet turned into deliveries, per database (0 when none).",
      labelNames: ["database"],
      registers,
      aggregator: "max",
      collect() {
        this.reset();
        for (const { database, seconds } of pending()) this.set({ database }, seconds);
      },
    });
  }

  attempt(type: EventType, outcome: AttemptOutcome, durationMs: number): void {
    this.attemptSeries.get(`${type} ${outcome}`)!.inc();
    this.latencySeries.get(type)!.observe(durationMs / 1000);
  }

  delivered(type: EventType, state: FinalState): void {
    this.finishedSeries.get(`${type} ${state}`)!.inc();
  }
}
