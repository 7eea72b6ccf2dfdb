// The counts of a search: GET /v1/facets/properties, and the place and amenity values of
// GET /v1/values/properties/{city,neighborhood,uf,amenities} (docs/reference/behaviour-partners.md §20).
import { PROPERTY_CATALOG } from "../../catalog/properties.ts";
import type { Reader } from "../../catalog/types.ts";
import type { Tenant } from "../../db/tenants.ts";
import { ApiError, type FieldProblem } from "../../errors.ts";
import { parseFilters, type ListFilters } from "../listing/params.ts";
import { listingFor } from "../listing/service.ts";
import { emptySearch, parsePlaceList, SEARCH_MESSAGES } from "./filters.ts";

export const FACETS = ["city", "neighborhood", "uf", "propertyType", "operationType", "bedrooms", "amenities"] as const;
export type Facet = (typeof FACETS)[number];
export const MAX_FACET_VALUES = 50;

/** Portuguese alphabetical order; compared on folded keys, so accents and case never matter. */
const portuguese = new Intl.Collator("pt-BR");

type Group = { key: string; value: string; n: number };

/**
 * One entry per key: the count of all its spellings, shown as its most frequent spelling (ties:
 * the first in code-point order), so "Sao Paulo" and "São Paulo" from two feeds count as one.
 */
function merged(groups: readonly Group[]): { key: string; value: string; count: number }[] {
  const byKey = new Map<string, { key: string; value: string; count: number; best: number }>();
  for (const { key, value, n } of groups) {
    const entry = byKey.get(key);
    if (entry === undefined) byKey.set(key, { key, value, count: n, best: n });
    else {
      entry.count += n;
      if (n > entry.best || (n === entry.best && value < entry.value)) Object.assign(entry, { value, best: n });
    }
  }
  return [...byKey.values()].map(({ key, value, count }) => ({ key, value, count }));
}

/** The SQL of each facet: groups of (key, value, n) under the conditions `{where}` stands for. */
const FACET_SQL: Record<Facet, (where: string) => string> = {
  city: (w) => `SELECT p.city_key AS key, p.city AS value, count(*) AS n FROM properties p WHERE ${w} AND p.city_key <> '' GROUP BY 1, 2`,
  neighborhood: (w) =>
    `SELECT p.neighborhood_key AS key, p.neighborhood AS value, count(*) AS n FROM properties p WHERE ${w} AND p.neighborhood_key <> '' GROUP BY 1, 2`,
  uf: (w) => `SELECT p.uf_key AS key, p.uf AS value, count(*) AS n FROM properties p WHERE ${w} AND p.uf_key <> '' GROUP BY 1, 2`,
  propertyType: (w) => `SELECT p.property_type AS key, p.property_type AS value, count(*) AS n FROM properties p WHERE ${w} AND p.property_type IS NOT NULL GROUP BY 1`,
  operationType: (w) => `SELECT p.operation_type AS key, p.operation_type AS value, count(*) AS n FROM properties p WHERE ${w} GROUP BY 1`,
  bedrooms: (w) =>
    "SELECT CASE WHEN p.bedrooms >= 4 THEN '4+' ELSE CAST(p.bedrooms AS TEXT) END AS key, " +
    `'' AS value, count(*) AS n FROM properties p WHERE ${w} AND p.bedrooms IS NOT NULL GROUP BY 1`,
  amenities: (w) =>
    "SELECT a.key AS key, a.value AS value, count(*) AS n FROM property_amenities a JOIN properties p ON p.rowid = a.property " +
    `WHERE ${w} GROUP BY 1, 2`,
};

/** The `facets` parameter: known names, in the order given, duplicates collapsed. */
function parseFacetNames(raw: string | null, problems: FieldProblem[]): Facet[] {
  const names = [...new Set((raw ?? "").split(",").map((n) => n.trim()).filter((n) => n !== ""))];
  if (names.length === 0) problems.push({ field: "facets", message: "is required" });
  else if (names.some((n) => !(FACETS as readonly string[]).includes(n))) problems.push({ field: "facets", message: `must be among: ${FACETS.join(", ")}` });
  return names as Facet[];
}

/**
 * `{ data: { total, facets } }` of GET /v1/facets/properties: the listings matching every filter
 * given, as `reader` sees them, and under those the counts of each facet's values, most
 * frequent first (ties in alphabetical order), at most MAX_FACET_VALUES of them.
 */
export function facetsOf(tenant: Tenant, rawQuery: string, reader: Reader): string {
  const params = new URLSearchParams(rawQuery);
  const problems: FieldProblem[] = [];
  const facetParams = params.getAll("facets");
  if (facetParams.length > 1) problems.push({ field: "facets", message: "must be given once" });
  const names = parseFacetNames(facetParams[0] ?? null, problems);
  const filters = parseFilters(PROPERTY_CATALOG, params, problems);
  if (problems.length > 0) throw ApiError.validation(problems);

  const repo = listingFor(tenant, PROPERTY_CATALOG).repo;
  return repo.snapshot(() => {
    const total = repo.count(filters, reader.view);
    const facets: Record<string, { value: string; count: number }[]> = {};
    for (const name of names) {
      const groups = total === 0 ? [] : repo.grouped<Group>(`facet-${name}`, filters, reader.view, FACET_SQL[name]);
      const entries = name === "bedrooms" ? groups.map((g) => ({ key: g.key, value: g.key, count: g.n })) : merged(groups);
      entries.sort((a, b) => b.count - a.count || portuguese.compare(a.key, b.key));
      facets[name] = entries.slice(0, MAX_FACET_VALUES).map(({ value, count }) => ({ value, count }));
    }
    return JSON.stringify({ data: { total, facets } });
  });
}

/**
 * Distinct places or amenities among published listings, one per folded spelling (its most
 * frequent), in Portuguese alphabetical order ignoring accents and case. `neighborhood` takes
 * `city` (the list filter's form) to narrow it.
 */
export function searchValuesOf(tenant: Tenant, field: "city" | "neighborhood" | "uf" | "amenities", params: URLSearchParams): string[] {
  const filters: ListFilters = { filters: [], dates: [], search: emptySearch() };
  if (field === "neighborhood") {
    const raw = params.getAll("city");
    if (raw.length > 1) throw ApiError.validation([{ field: "city", message: "must be given once" }]);
    if (raw.length === 1) {
      const cities = parsePlaceList(raw[0]!);
      if (cities === null) throw ApiError.validation([{ field: "city", message: SEARCH_MESSAGES.list }]);
      filters.search.city = cities;
    }
  }
  const repo = listingFor(tenant, PROPERTY_CATALOG).repo;
  // Amenities are read from their own table, which holds published listings only.
  const groups =
    field === "amenities"
      ? repo.grouped<Group>("values-amenities", filters, "stored", () => "SELECT key, value, count(*) AS n FROM property_amenities GROUP BY 1, 2")
      : repo.grouped<Group>(`values-${field}`, filters, "stored", FACET_SQL[field]);
  return merged(groups)
    .sort((a, b) => portuguese.compare(a.key, b.key))
    .map((entry) => entry.value);
}
