// A strict reader of the Prometheus text format for tests: every line must be blank, a HELP, a
// TYPE or a sample of a declared family, or it throws.

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(?:,|$)/y;
const SUFFIXES = ["_bucket", "_sum", "_count"];

function unescape(value: string): string {
  return value.replace(/\\(.)/g, (_, c: string) => (c === "n" ? "\n" : c));
}

function parseNumber(text: string): number {
  if (text === "+Inf") return Infinity;
  if (text.toLowerCase() === "nan") return NaN; // prom-client writes "Nan", which Prometheus reads
  if (text === "-Inf") return -Infinity;
  const value = Number(text);
  if (text === "" || (Number.isNaN(value) && text !== "NaN")) throw new Error(`bad value ${text}`);
  return value;
}

export function parseExposition(text: string): Sample[] {
  if (!text.endsWith("\n")) throw new Error("exposition must end with a newline");
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  for (const line of text.slice(0, -1).split("\n")) {
    if (line === "" || line.startsWith("# HELP ")) continue;
    if (line.startsWith("# TYPE ")) {
      const [, , name, type] = line.split(" ");
      if (types.has(name!)) throw new Error(`TYPE twice for ${name}`);
      types.set(name!, type!);
      continue;
    }
    const match = SAMPLE.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const [, name, rawLabels = "", value] = match;
    const family = types.has(name!)
      ? name!
      : SUFFIXES.map((s) => (name!.endsWith(s) ? name!.slice(0, -s.length) : "")).find(
          (f) => types.get(f) === "histogram",
        );
    if (!family) throw new Error(`sample of an undeclared family: ${line}`);
    const labels: Record<string, string> = {};
    LABEL.lastIndex = 0;
    while (LABEL.lastIndex < rawLabels.length) {
      const label = LABEL.exec(rawLabels);
      if (!label) throw new Error(`bad labels: ${rawLabels}`);
      labels[label[1]!] = unescape(label[2]!);
    }
    samples.push({ name: name!, labels, value: parseNumber(value!) });
  }
  return samples;
}

/** The value of the sample with exactly these labels, if present. */
export function sampleValue(samples: Sample[], name: string, labels: Record<string, string>): number | undefined {
  const wanted = JSON.stringify(Object.entries(labels).sort());
  return samples.find((s) => s.name === name && JSON.stringify(Object.entries(s.labels).sort()) === wanted)?.value;
}

/** Each declared family's TYPE, by name. */
export function familyTypes(text: string): Map<string, string> {
  const types = new Map<string, string>();
  for (const line of text.split("\n")) {
    if (line.startsWith("# TYPE ")) {
      const [, , name, type] = line.split(" ");
      types.set(name!, type!);
    }
  }
  return types;
}
