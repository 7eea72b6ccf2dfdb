// Small SQL builders for catalogue entries: JSON values out of 0/1 booleans and column groups.
import type { RecordView } from "./types.ts";

/** A 0/1 column as a JSON boolean. */
export function jsonBool(column: string): string {
  return `CASE WHEN ${column} THEN json('true') ELSE json('false') END`;
}

/** A JSON object of named SQL expressions, keys in the given order. */
export function jsonObject(entries: Record<string, string>): string {
  return `json_object(${Object.entries(entries)
    .map(([key, sql]) => `'${key}', ${sql}`)
    .join(", ")})`;
}

/** The SQL of a JSON object holding the given catalogue fields, keys in the given order, as `view` sees them. */
export function projection(
  fields: readonly { name: string; sql: string; partnerSql?: string }[],
  view: RecordView,
): string {
  return jsonObject(
    Object.fromEntries(fields.map((f) => [f.name, view === "partner" ? (f.partnerSql ?? f.sql) : f.sql])),
  );
}
