// Prometheus text exposition format 0.0.4: metric families with HELP and TYPE lines, samples
// with escaped label values, numbers as Prometheus parses them.

export const PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

export type MetricType = "counter" | "gauge" | "histogram";

/** Label pairs in output order; values are escaped on output, names must already be valid. */
export type Labels = readonly (readonly [name: string, value: string])[];

function escapeLabelValue(value: string): string {
  return value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
}

function escapeHelp(text: string): string {
  return text.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");
}

export function formatValue(value: number): string {
  if (value === Infinity) return "+Inf";
  if (value === -Infinity) return "-Inf";
  if (Number.isNaN(value)) return "NaN";
  return String(value);
}

/** Builds one exposition: declare a family, then write its samples. */
export class Exposition {
  private readonly lines: string[] = [];
  private readonly declared = new Set<string>();

  family(name: string, type: MetricType, help: string): this {
    // A family declared twice would make the whole scrape invalid for Prometheus.
    if (this.declared.has(name)) throw new Error(`metric family ${name} declared twice`);
    this.declared.add(name);
    this.lines.push(`# HELP ${name} ${escapeHelp(help)}`, `# TYPE ${name} ${type}`);
    return this;
  }

  sample(name: string, labels: Labels, value: number): this {
    const rendered = labels.length === 0 ? "" : `{${labels.map(([k, v]) => `${k}="${escapeLabelValue(v)}"`).join(",")}}`;
    this.lines.push(`${name}${rendered} ${formatValue(value)}`);
    return this;
  }

  toString(): string {
    return this.lines.join("\n") + "\n";
  }
}
