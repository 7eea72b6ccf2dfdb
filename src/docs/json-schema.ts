// TypeBox schemas as OpenAPI 3.1 schema objects: plain JSON (TypeBox's symbols dropped), with
// unions of literals written as `enum` and unions of bare types as a `type` list, which is how
// API readers and renderers expect to see them.
import type { TSchema } from "@sinclair/typebox";

type Json = Record<string, unknown>;

function isPlainObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `anyOf` of `{ const, type }` members with one type → `{ type, enum }`. */
function literalUnion(members: Json[]): Json | null {
  if (
    members.length === 0 ||
    !members.every((m) => "const" in m && Object.keys(m).every((k) => k === "const" || k === "type"))
  ) {
    return null;
  }
  const types = new Set(members.map((m) => m.type));
  if (types.size !== 1) return null;
  return { type: members[0]!.type, enum: members.map((m) => m.const) };
}

/** `anyOf` of bare `{ type }` members → `{ type: [...] }`. */
function typeUnion(members: Json[]): Json | null {
  if (!members.every((m) => Object.keys(m).length === 1 && typeof m.type === "string")) return null;
  return { type: members.map((m) => m.type) };
}

function simplify(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(simplify);
  if (!isPlainObject(value)) return value;
  const out: Json = {};
  for (const [key, child] of Object.entries(value)) out[key] = simplify(child);
  if (Array.isArray(out.anyOf)) {
    const members = out.anyOf as Json[];
    const merged = literalUnion(members) ?? typeUnion(members);
    if (merged !== null) {
      delete out.anyOf;
      return { ...merged, ...out };
    }
  }
  return out;
}

/** The OpenAPI form of a TypeBox schema. */
export function toOpenApiSchema(schema: TSchema): Json {
  // JSON round trip: TypeBox marks schemas with symbol keys, which are not part of the schema.
  return simplify(JSON.parse(JSON.stringify(schema))) as Json;
}
