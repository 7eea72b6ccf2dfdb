// Stand-in for `k6/metrics`: custom metrics record their values for the summary.
import { recordMetric, registerMetric } from "./recorder.ts";

function metricClass(type: "counter" | "gauge" | "rate" | "trend") {
  return class {
    constructor(
      readonly name: string,
      readonly isTime = false,
    ) {
      // Registered when created (init context), so a threshold on a metric that never received
      // a value is still known to name a real metric.
      registerMetric(name, type);
    }

    add(value: number | boolean, _tags?: Record<string, string>): void {
      recordMetric(this.name, Number(value));
    }
  };
}

export const Counter = metricClass("counter");
export const Gauge = metricClass("gauge");
export const Rate = metricClass("rate");
export const Trend = metricClass("trend");

export default { Counter, Gauge, Rate, Trend };
