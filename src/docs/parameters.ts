// Parameters of the documented operations, from the same catalogue entries and constants the
// routes validate with; each example comes from the sandbox examples.
import type { EntityCatalog } from "../catalog/index.ts";
import { DEFAULT_RADIUS_M, MAX_LIST_VALUES, MAX_RADIUS_M } from "../query/filters.ts";
import { DATE_FILTERS, DEFAULT_LIMIT, MAX_LIMIT, MAX_PAGE, SEARCH_SORTS, SORTS } from "../query/params.ts";
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
export function queryValue(query: string, name: string): string | null {
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
  const sorts = catalog.searchable ? SEARCH_SORTS : SORTS;
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
    ...filterParameters(catalog, sample),
    {
      name: "sort",
      in: "query",
      required: false,
      description:
        "Order of the records; `-` means newest first. Ties are broken by id, so pages never overlap or skip. " +
        "When a date filter is combined with `status` (or, for properties, `operationType`, `propertyType` or `highlight`), " +
        "sort by the filtered date (`updatedAt` with `updatedAfter`/`updatedBefore`, `createdAt` with the created filters): " +
        "every page, however deep, then costs the same on a database of any size." +
        (catalog.searchable
          ? " `price`/`-price` order by the deal's price (`salePrice` for SALE, `rentalPrice` otherwise) and `area`/`-area` by " +
            "`builtArea`, else `totalArea`; listings without the value come last either way."
          : ""),
      schema: { type: "string", enum: [...sorts], default: "-createdAt" },
      example: "-createdAt",
    },
    ...(catalog.searchable ? searchParameters() : []),
  ];
}

/** The equality and date filters of an entity's lists (and of the property facets). */
export function filterParameters(catalog: EntityCatalog, sample: Json): Parameter[] {
  return [
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
  ];
}

export const query = (name: string, description: string, schema: Json, example: unknown): Parameter => ({
  name,
  in: "query",
  required: false,
  description,
  schema,
  example,
});
const list = { type: "string", minLength: 1 };
const placeRule = `comma-separated, at most ${MAX_LIST_VALUES} values; any of them matches; accents and case are ignored, otherwise exact`;
const money = { type: "number", minimum: 0 };
const count = { type: "integer", minimum: 0 };
const flag = { type: "string", enum: ["true", "false"] };

/**
 * The search filters of the property list and facets, with what a website's search page sends
 * (docs/partners/search.md). Each is also a filter of GET /v1/facets/properties.
 */
export function searchParameters(): Parameter[] {
  return [
    query(
      "city",
      `City, ${placeRule} (\`sao paulo\` finds São Paulo; see /v1/values/properties/city)`,
      list,
      "São Paulo",
    ),
    query(
      "neighborhood",
      `Neighbourhood (bairro), ${placeRule} (see /v1/values/properties/neighborhood?city=…)`,
      list,
      "Pinheiros,Vila Madalena",
    ),
    query("uf", `State abbreviation, ${placeRule}`, list, "SP"),
    query(
      "minPrice",
      "Lowest price in BRL, inclusive, on the deal's own price: `salePrice` for SALE, `rentalPrice` for RENT and SEASONAL; a listing without that price never matches a price bound. A number ≥ 0",
      money,
      300000,
    ),
    query("maxPrice", "Highest price in BRL, inclusive, as `minPrice`; not below `minPrice`", money, 1200000),
    query("minBedrooms", "Fewest bedrooms, inclusive; an integer ≥ 0", count, 2),
    query("maxBedrooms", "Most bedrooms, inclusive; an integer ≥ 0, not below `minBedrooms`", count, 3),
    query("minBathrooms", "Fewest bathrooms, inclusive; an integer ≥ 0", count, 2),
    query("minSuites", "Fewest suites, inclusive; an integer ≥ 0", count, 1),
    query("minParkingSpaces", "Fewest parking spaces, inclusive; an integer ≥ 0", count, 1),
    query(
      "minArea",
      "Smallest area in m², inclusive, on `builtArea`, or `totalArea` where `builtArea` is null. A number ≥ 0",
      money,
      60,
    ),
    query("maxArea", "Largest area in m², inclusive, as `minArea`; not below `minArea`", money, 120),
    query(
      "amenities",
      `Amenities (see /v1/values/properties/amenities), comma-separated, at most ${MAX_LIST_VALUES}: the listing has every one; accents and case are ignored`,
      list,
      "Piscina,Academia",
    ),
    query("isFurnished", "Furnished or not", flag, "true"),
    query("acceptsFinancing", "Whether the seller accepts bank financing", flag, "true"),
    query("exclusive", "Whether the agency holds the listing exclusively", flag, "false"),
    query(
      "q",
      "Words, at most 200 characters: each must be found (the last one as a prefix, for search-as-you-type), accents and case ignored, " +
        "in title, description, propertyType, neighbourhood, city, code or amenities. The street is never searched",
      { type: "string", minLength: 1, maxLength: 200 },
      "apartamento varanda gourm",
    ),
    query(
      "bbox",
      "`south,west,north,east` in decimal degrees (south ≤ north, west ≤ east): listings whose shown coordinates are inside the box. " +
        "Partners without `fullAddress` are matched on what they are shown: coordinates at 3 decimals for STREET visibility, and never for NEIGHBORHOOD",
      { type: "string" },
      "-23.58,-46.71,-23.54,-46.67",
    ),
    query(
      "near",
      "`lat,lng` in decimal degrees: listings whose shown coordinates (as for `bbox`) are within `radius` metres, great-circle",
      { type: "string" },
      "-23.5614,-46.6919",
    ),
    query(
      "radius",
      `Metres around \`near\`, 1 to ${MAX_RADIUS_M} (default ${DEFAULT_RADIUS_M}); only with \`near\``,
      { type: "number", minimum: 1, maximum: MAX_RADIUS_M, default: DEFAULT_RADIUS_M },
      1500,
    ),
  ];
}

export function idParameter(entity: string, example: string): Parameter {
  return {
    name: "id",
    in: "path",
    required: true,
    description: `Id of the ${entity}`,
    schema: { type: "string", format: "uuid" },
    example,
  };
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
