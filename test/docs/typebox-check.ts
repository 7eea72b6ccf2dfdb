// The published document's JSON Schemas checked by TypeBox's own validator (Value.Errors), not
// by a checker of our own: TypeBox keys each check on a node's kind symbol and then reads the
// node's standard keywords, so each node only needs the kind its keywords describe.
import { FormatRegistry, Kind, type TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { FORMATS } from "./validate.ts";

type Json = Record<string, any>;

for (const [name, regex] of Object.entries(FORMATS))
  if (!FormatRegistry.Has(name)) FormatRegistry.Set(name, (value) => regex.test(value));

const KINDS: Record<string, string> = {
  object: "Object",
  array: "Array",
  string: "String",
  integer: "Integer",
  number: "Number",
  boolean: "Boolean",
  null: "Null",
};

const withKind = (node: Json, kind: string) => ({ ...node, [Kind]: kind }) as unknown as TSchema;

/** `node` with TypeBox's kind on it and on every schema below it. */
function kinded(node: Json): TSchema {
  if (typeof node.$ref === "string") return withKind(node, "Ref");
  if (Array.isArray(node.enum))
    return withKind({ anyOf: node.enum.map((value: unknown) => kinded({ const: value })) }, "Union");
  if ("const" in node) return withKind(node, "Literal");
  if (Array.isArray(node.anyOf)) return withKind({ ...node, anyOf: node.anyOf.map(kinded) }, "Union");
  if (Array.isArray(node.type)) {
    const { type, ...rest } = node;
    return withKind({ anyOf: (type as string[]).map((one) => kinded({ ...rest, type: one })) }, "Union");
  }
  if (node.type === undefined) return withKind(node, "Unknown");
  const kind = KINDS[node.type as string];
  if (kind === undefined) throw new Error(`no TypeBox kind for JSON Schema type ${node.type}`);
  const out: Json = { ...node };
  if (node.properties)
    out.properties = Object.fromEntries(
      Object.entries(node.properties as Json).map(([name, child]) => [name, kinded(child)]),
    );
  if (node.items) out.items = kinded(node.items);
  if (typeof node.additionalProperties === "object") out.additionalProperties = kinded(node.additionalProperties);
  return withKind(out, kind);
}

/** What TypeBox finds wrong with `value` under `schema` of `document` (its `$ref`s into components/schemas resolved); empty when valid. */
export function typeboxProblems(schema: Json, value: unknown, document: Json): string[] {
  const references = Object.entries((document.components?.schemas ?? {}) as Json).map(([name, s]) =>
    kinded({ ...s, $id: `#/components/schemas/${name}` }),
  );
  return [...Value.Errors(kinded(schema), references, value)].map((error) => `${error.path || "/"}: ${error.message}`);
}
