// A small JSON Schema checker for tests, covering the keywords the generated OpenAPI document
// uses, so real responses can be checked against the published document itself (not only
// against the TypeBox schemas it was generated from).

type Json = Record<string, unknown>;

export const FORMATS: Record<string, RegExp> = {
  uuid: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i,
  "date-time": /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/,
  "idn-email": /^[^\s@]+@[^\s@]+\.[^\s@]+$/u,
};

function typeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

function typeMatches(expected: string, actual: string): boolean {
  return expected === actual || (expected === "number" && actual === "integer");
}

/** Problems of `value` against `schema` (empty when valid); `$ref`s resolve in `document`. */
export function schemaProblems(schema: Json, value: unknown, document: Json, at = "$"): string[] {
  if (typeof schema.$ref === "string") {
    const target = schema.$ref
      .slice(2)
      .split("/")
      .reduce<unknown>((node, key) => (node as Json)[key], document) as Json;
    return schemaProblems(target, value, document, at);
  }
  const problems: string[] = [];
  const actual = typeOf(value);
  if (schema.type !== undefined) {
    const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string];
    if (!types.some((t) => typeMatches(t, actual))) return [`${at}: ${actual} is not ${types.join("|")}`];
  }
  if (
    Array.isArray(schema.anyOf) &&
    !schema.anyOf.some((s) => schemaProblems(s as Json, value, document, at).length === 0)
  ) {
    problems.push(`${at}: matches no anyOf member`);
  }
  if ("const" in schema && value !== schema.const) problems.push(`${at}: is not ${JSON.stringify(schema.const)}`);
  if (Array.isArray(schema.enum) && !schema.enum.includes(value))
    problems.push(`${at}: ${JSON.stringify(value)} not in enum`);
  if (typeof value === "string") {
    if (typeof schema.minLength === "number" && value.length < schema.minLength)
      problems.push(`${at}: shorter than ${schema.minLength}`);
    if (typeof schema.maxLength === "number" && value.length > schema.maxLength)
      problems.push(`${at}: longer than ${schema.maxLength}`);
    const format = FORMATS[schema.format as string];
    if (format && !format.test(value)) problems.push(`${at}: not a ${schema.format}`);
  }
  if (typeof value === "number") {
    if (typeof schema.minimum === "number" && value < schema.minimum) problems.push(`${at}: below ${schema.minimum}`);
    if (typeof schema.maximum === "number" && value > schema.maximum) problems.push(`${at}: above ${schema.maximum}`);
  }
  if (actual === "array" && schema.items) {
    (value as unknown[]).forEach((item, i) =>
      problems.push(...schemaProblems(schema.items as Json, item, document, `${at}[${i}]`)),
    );
  }
  if (actual === "object") {
    const object = value as Json;
    const properties = (schema.properties ?? {}) as Record<string, Json>;
    for (const name of (schema.required ?? []) as string[])
      if (!(name in object)) problems.push(`${at}: missing ${name}`);
    const patterns = Object.entries((schema.patternProperties ?? {}) as Record<string, Json>).map(
      ([p, s]) => [new RegExp(p), s] as const,
    );
    for (const [name, child] of Object.entries(object)) {
      const pattern = patterns.find(([regex]) => regex.test(name));
      if (properties[name]) problems.push(...schemaProblems(properties[name], child, document, `${at}.${name}`));
      else if (pattern) problems.push(...schemaProblems(pattern[1], child, document, `${at}.${name}`));
      else if (schema.additionalProperties === false) problems.push(`${at}: unexpected ${name}`);
      else if (typeof schema.additionalProperties === "object" && schema.additionalProperties !== null) {
        problems.push(...schemaProblems(schema.additionalProperties as Json, child, document, `${at}.${name}`));
      }
    }
  }
  return problems;
}
