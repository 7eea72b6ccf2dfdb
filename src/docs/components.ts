// Moves every titled schema of the paths into components.schemas and refers to it by $ref, so
// each model (PropertyRecord, Lead, PageMeta…) is written once and shows up by name.

type Json = Record<string, unknown>;

// Example values are data, not schemas: a property's `title` there is not a schema title.
const DATA_KEYS = new Set(["example", "examples"]);

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function hoistNamedSchemas<T>(tree: T): { tree: T; schemas: Record<string, Json> } {
  const schemas: Record<string, Json> = {};
  const canonical = new Map<string, string>();

  const walk = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(walk);
    if (!isObject(value)) return value;
    const out: Json = {};
    for (const [key, child] of Object.entries(value)) out[key] = DATA_KEYS.has(key) ? child : walk(child);
    if (typeof out.title === "string" && typeof out.type === "string") {
      const name = out.title;
      const text = JSON.stringify(out);
      const seen = canonical.get(name);
      // Two different schemas under one name would silently document the wrong one.
      if (seen !== undefined && seen !== text) throw new Error(`two different schemas are titled ${name}`);
      canonical.set(name, text);
      schemas[name] = out;
      return { $ref: `#/components/schemas/${name}` };
    }
    return out;
  };

  const tree2 = walk(tree) as T;
  return { tree: tree2, schemas: Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => a.localeCompare(b))) };
}
