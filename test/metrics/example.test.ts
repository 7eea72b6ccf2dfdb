// The GET /metrics example of the OpenAPI document is written out by hand: it must show only
// families the server really renders, with their real type, help and label names.
import { expect, test } from "bun:test";
import { metricsExample } from "../../src/metrics/example.ts";
import { MetricsRegistry } from "../../src/metrics/registry.ts";
import { familyTypes, parseExposition } from "./parse.ts";

function helps(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split("\n")) {
    const match = /^# HELP (\S+) (.*)$/.exec(line);
    if (match) out.set(match[1]!, match[2]!);
  }
  return out;
}

const labelNames = (labels: Record<string, string>) => Object.keys(labels).sort().join(",");

test("every family, type, help text and label set of the example is what the registry renders", async () => {
  const registry = new MetricsRegistry();
  const requests = registry.requests!;
  requests.observe("/v1/properties", "GET", 200, 1.8, "portal-x", undefined, false);
  requests.observe("/v1/properties", "GET", 429, 0.1, "portal-x", "RATE_LIMIT_EXCEEDED", false);
  requests.observe("/v1/leads", "POST", 201, 4.2, "portal-x", undefined, false);
  const real = await registry.render({
    version: "9.9.9",
    environment: "production",
    databases: [{ database: "agency", file: "main", bytes: 1 }],
  });
  const example = metricsExample("9.9.9");

  const realTypes = familyTypes(real);
  const realHelps = helps(real);
  for (const [name, type] of familyTypes(example)) {
    expect({ name, type: realTypes.get(name) }).toEqual({ name, type });
    expect({ name, help: realHelps.get(name) }).toEqual({ name, help: helps(example).get(name) });
  }
  const realSamples = parseExposition(real);
  for (const sample of parseExposition(example)) {
    const shapes = new Set(realSamples.filter((s) => s.name === sample.name).map((s) => labelNames(s.labels)));
    expect({ name: sample.name, labels: shapes.has(labelNames(sample.labels)) }).toEqual({
      name: sample.name,
      labels: true,
    });
  }
  expect(example).toContain('partner_api_build_info{version="9.9.9",environment="production"} 1');
});
