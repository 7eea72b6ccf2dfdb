// What an operator needs to see of the shared state (docs/reference/behaviour-extensions.md §15): whether this process's
// limits are in Redis right now, and how often it fell back to its own memory.
import { Counter, Gauge, Registry } from "prom-client";

export class RedisMetrics {
  readonly registry = new Registry();
  private readonly fallbacks: Counter;

  /** `available`: whether Redis answers now (read at scrape time). */
  constructor(available: () => boolean) {
    new Gauge({
      name: "partner_api_redis_available",
      help: "1 while the rate limits and idempotency locks are shared in Redis; 0 while this process uses its own memory because Redis does not answer.",
      registers: [this.registry],
      // Across the workers of one server: 0 as soon as one of them has fallen back.
      aggregator: "min",
      collect() {
        this.set(available() ? 1 : 0);
      },
    });
    this.fallbacks = new Counter({
      name: "partner_api_redis_fallbacks_total",
      help: "Times this process fell back to in-memory limits because Redis did not answer in time.",
      registers: [this.registry],
    });
  }

  fellBack(): void {
    this.fallbacks.inc();
  }
}
