// Parameters of the documented operations, from the same catalogue entries and constants the
// routes validate with; each example comes from the sandbox examples.
import type { EntityCatalog } from "../catalog/index.ts";
import { ENTITY_NAMES } from "../catalog/index.ts";
import { DEFAULT_CHANGES_LIMIT, MAX_CHANGES_LIMIT } from "../modules/changes/service.ts";
import { DATE_FILTERS, DEFAULT_LIMIT, MAX_LIMIT, MAX_PAGE, SORTS } from "../modules/listing/params.ts";
import { EXAMPLE_IDEMPOTENCY_KEY } from "./examples.ts";

type Json = Record<string, unknown>;

export interface Parameter {
  name: string;
  in: "query" | "path" | "header";
  required: boolean;
  description: string;
  schema: Json;
  example: unknown;
}

const DATE_DESCRIPTIONS: Record<(typeof DATE_FILTERS)[number]["param"], string> = {
  createdAfter: "Only records created strictly after this instant",
  createdBefore: "Only records created strictly before this instant",
  updatedAfter: "Only records updated strictly after this instant (incremental sync)",
  updatedBefore: "Only records updated strictly before this instant",
};

/** Example instants around the sandbox dataset (created over the two years before 2026-01-01). */
const DATE_EXAMPLES: Record<(typeof DATE_FILTERS)[number]["param"], string> = {
  createdAfter: "2024-01-01T00:00:00Z",
  createdBefore: "2026-01-01T00:00:00Z",
  updatedAfter: "2025-06-01T00:00:00-03:00",
  updatedBefore: "2026-01-01T00:00:00Z",
};

/** Values a query string example sets, e.g. `limit` → "2". */
function queryValue(query: string, name: string): string | null {
  return new URLSearchParams(query).get(name);
}

export function fieldsParameter(catalog: EntityCatalog, example: string): Parameter {
  return {
    name: "fields",
    in: "query",
    required: true,
    description:
      "Comma-separated field names to return (exact, case-sensitive; a group name returns all its sub-fields, " +
      `which cannot be asked for alone). One of: ${catalog.fields.map((f) => `\`${f.name}\``).join(", ")}. ` +
      "Unknown names give 400 INVALID_FIELDS.",
    schema: { type: "string", minLength: 1 },
    example,
  };
}

/**
 * The list parameters of an entity. `query` is the example request; `sample` a record of its
 * answer, whose values become the filters' examples (so the examples find real records).
 */
export function listParameters(catalog: EntityCatalog, query: string, sample: Json): Parameter[] {
  const limit = Number(queryValue(query, "limit") ?? DEFAULT_LIMIT);
  return [
    fieldsParameter(catalog, queryValue(query, "fields")!),
    {
      name: "page",
      in: "query",
      required: false,
      description: "Page number; a page past the end returns `data: []` with the true `meta`",
      schema: { type: "integer", minimum: 1, maximum: MAX_PAGE, default: 1 },
      example: 1,
    },
    {
      name: "limit",
      in: "query",
      required: false,
      description: `Page size, 1 to ${MAX_LIMIT}; out of range is a VALIDATION_ERROR, never clamped`,
      schema: { type: "integer", minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT },
      example: limit,
    },
    ...catalog.filters.map(
      (f): Parameter => ({
        name: f.param,
        in: "query",
        required: false,
        description: `${f.description}: only records with exactly this value`,
        schema: f.values ? { type: "string", enum: [...f.values] } : { type: "string", minLength: 1, maxLength: 200 },
        example: sample[f.param] ?? f.example ?? (f.values ? f.values[0] : undefined),
      }),
    ),
    ...DATE_FILTERS.map(
      (d): Parameter => ({
        name: d.param,
        in: "query",
        required: false,
        description: `${DATE_DESCRIPTIONS[d.param]} (ISO 8601 with \`Z\` or an offset; the bound is exclusive)`,
        schema: { type: "string", format: "date-time" },
        example: DATE_EXAMPLES[d.param],
      }),
    ),
    {
      name: "sort",
      in: "query",
      required: false,
      description:
        "Order of the records; `-` means newest first. Ties are broken by id, so pages never overlap or skip. " +
        "When a date filter is combined with `status` (or, for properties, `operationType`, `propertyType` or `highlight`), " +
        "sort by the filtered date (`updatedAt` with `updatedAfter`/`updatedBefore`, `createdAt` with the created filters): " +
        "every page, however deep, then costs the same on a database of any size.",
      schema: { type: "string", enum: [...SORTS], default: "-createdAt" },
      example: "-createdAt",
    },
  ];
}

export function idParameter(entity: string, example: string): Parameter {
  return { name: "id", in: "path", required: true, description: `Id of the ${entity}`, schema: { type: "string", format: "uuid" }, example };
}

export function changesParameters(query: string): Parameter[] {
  return [
    {
      name: "entity",
      in: "query",
      required: true,
      description: "Which entity's changes to read",
      schema: { type: "string", enum: [...ENTITY_NAMES] },
      example: queryValue(query, "entity"),
    },
    {
      name: "after",
      in: "query",
      required: false,
      description: "Return changes with a sequence greater than this: the `nextAfter` of your previous call",
      schema: { type: "integer", minimum: 0, default: 0 },
      example: Number(queryValue(query, "after") ?? 0),
    },
    {
      name: "limit",
      in: "query",
      required: false,
      description: `Changes per call, 1 to ${MAX_CHANGES_LIMIT}`,
      schema: { type: "integer", minimum: 1, maximum: MAX_CHANGES_LIMIT, default: DEFAULT_CHANGES_LIMIT },
      example: Number(queryValue(query, "limit") ?? DEFAULT_CHANGES_LIMIT),
    },
  ];
}

export const idempotencyKeyParameter: Parameter = {
  name: "Idempotency-Key",
  in: "header",
  required: false,
  description:
    "Makes retries safe: the same key with the same body within 24 h returns the first 201 again " +
    "(with `Idempotent-Replayed: true`) instead of creating another lead; with a different body, 422.",
  schema: { type: "string", minLength: 1, maxLength: 255, pattern: "^[\\x20-\\x7E]{1,255}$" },
  example: EXAMPLE_IDEMPOTENCY_KEY,
};
