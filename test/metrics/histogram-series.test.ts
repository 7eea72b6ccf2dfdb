// histogramSeries updates prom-client's own entry of a label set in place: whatever it is fed,
// prom-client must render exactly what its own observe would have. This is the guard on the
// prom-client internals it relies on: an upgrade that changes them fails here.
import { describe, expect, test } from "bun:test";
import { Histogram, Registry } from "prom-client";
import { LATENCY_BUCKETS_SECONDS } from "../../src/metrics/buckets.ts";
import { histogramSeries } from "../../src/metrics/histogram-series.ts";

function twin() {
  const config = {
    name: "t_seconds",
    help: "t",
    labelNames: ["route", "method"] as const,
    buckets: LATENCY_BUCKETS_SECONDS,
  };
  const viaPromClient = new Histogram({ ...config, registers: [new Registry()] });
  const viaSeries = new Histogram({ ...config, registers: [new Registry()] });
  return { viaPromClient, viaSeries };
}

// On a bound, between bounds, below the first, above the last, zero.
const VALUES = [0, 0.0001, 0.0005, 0.0007, 0.001, 0.003, 0.025, 0.3, 1, 4.9, 5, 7.5, 120];

describe("histogramSeries", () => {
  test("renders exactly as prom-client's own observe, series by series", async () => {
    const { viaPromClient, viaSeries } = twin();
    const series = [
      histogramSeries(viaSeries, { route: "/a", method: "GET" }),
      histogramSeries(viaSeries, { route: "/b", method: "POST" }),
    ];
    VALUES.forEach((value, i) => {
      viaPromClient.labels(i % 2 === 0 ? "/a" : "/b", i % 2 === 0 ? "GET" : "POST").observe(value);
      series[i % 2]!.observe(value);
    });
    expect(await viaSeries.get()).toEqual(await viaPromClient.get());
  });

  test("a series nothing was observed on is rendered with zeros", async () => {
    const { viaPromClient, viaSeries } = twin();
    histogramSeries(viaSeries, { route: "/idle", method: "GET" });
    viaPromClient.zero({ route: "/idle", method: "GET" });
    expect(await viaSeries.get()).toEqual(await viaPromClient.get());
    const values = (await viaSeries.get()).values;
    expect(values.find((v) => v.metricName === "t_seconds_count")?.value).toBe(0);
  });
});
