// The counts of a search: GET /v1/facets/properties, and the place and amenity values of
// GET /v1/values/properties/{city,neighborhood,uf,amenities} (docs/reference/behaviour-partners.md §20).
import { PROPERTY_CATALOG } from "../../catalog/properties.ts";
import type { Reader, RecordView } from "../../catalog/types.ts";
import { fold } from "../../db/fold.ts";
import type { Tenant } from "../../db/tenants.ts";
import { ApiError, type FieldProblem } from "../../errors.ts";
import { type ListFilters, parseFilters } from "../lists/params.ts";
import type { ListingRepo } from "../lists/repo.ts";
import { listingFor } from "../lists/service.ts";
import { emptySearch, isSearching, parsePlaceList, SEARCH_MESSAGES } from "./filters.ts";

/** No filter at all. */
const EVERYTHING: ListFilters = { filters: [], dates: [], search: emptySearch() };

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

/** The counted facets' groups of matching listings: (key, n) under the conditions `{where}` stands for. */
const FACET_SQL: Record<Facet, (where: string) => string> = {
  city: (w) => `SELECT p.city_key AS key, count(*) AS n FROM properties p WHERE ${w} AND p.city_key <> '' GROUP BY 1`,
  neighborhood: (w) =>
    `SELECT p.neighborhood_key AS key, count(*) AS n FROM properties p WHERE ${w} AND p.neighborhood_key <> '' GROUP BY 1`,
  uf: (w) => `SELECT p.uf_key AS key, count(*) AS n FROM properties p WHERE ${w} AND p.uf_key <> '' GROUP BY 1`,
  propertyType: (w) =>
    `SELECT p.property_type AS key, count(*) AS n FROM properties p WHERE ${w} AND p.property_type IS NOT NULL GROUP BY 1`,
  operationType: (w) => `SELECT p.operation_type AS key, count(*) AS n FROM properties p WHERE ${w} GROUP BY 1`,
  bedrooms: (w) =>
    `SELECT CAST(p.bedrooms AS TEXT) AS key, count(*) AS n FROM properties p WHERE ${w} AND p.bedrooms IS NOT NULL GROUP BY 1`,
  amenities: (w) =>
    `SELECT a.key AS key, count(*) AS n FROM property_amenities a JOIN properties p ON p.rowid = a.property WHERE ${w} GROUP BY 1`,
};

/** `bedrooms` as the facets give it: 0, 1, 2, 3 and 4+. */
const bucketOf = (bedrooms: string) => (Number(bedrooms) >= 4 ? "4+" : bedrooms);

/** The `facets` parameter: known names, in the order given, duplicates collapsed. */
function parseFacetNames(raw: string | null, problems: FieldProblem[]): Facet[] {
  const names = [
    ...new Set(
      (raw ?? "")
        .split(",")
        .map((n) => n.trim())
        .filter((n) => n !== ""),
    ),
  ];
  if (names.length === 0) problems.push({ field: "facets", message: "is required" });
  else if (names.some((n) => !(FACETS as readonly string[]).includes(n)))
    problems.push({ field: "facets", message: `must be among: ${FACETS.join(", ")}` });
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
  return JSON.stringify({ data: facetCounts(repo, filters, names, reader.view) });
}

/**
 * The total of the listings matching `filters` as `view` sees them, and the facets `names` under
 * them: from the counters for places and a deal alone, from the few matches' own rows when they
 * are at most a repository's small set (read once), through the indexes otherwise.
 */
export function facetCounts(
  repo: ListingRepo,
  filters: ListFilters,
  names: readonly Facet[],
  view: RecordView,
): { total: number; facets: Record<string, { value: string; count: number }[]> } {
  const places = countedPlaces(filters);
  return repo.snapshot(() => {
    const matches = places === null ? repo.matching(filters, view) : null;
    // Every published listing has a deal: its counters sum to the total.
    const total = matches?.total ?? sumOf(counted(repo, "operationType", places!));
    const facets: Record<string, { value: string; count: number }[]> = {};
    for (const name of names) {
      // The spellings come from the counters; under other filters, the counts from the matching rows.
      const spellings = spellingsOf(counted(repo, name));
      const groups =
        matches === null
          ? merged(counted(repo, name, places!)).map(({ key, count }) => ({ key, n: count }))
          : total === 0
            ? []
            : matches.ids !== null
              ? repo.groupedOf<{ key: string; n: number }>(`facet-${name}`, matches.ids, FACET_SQL[name])
              : repo.grouped<{ key: string; n: number }>(`facet-${name}`, filters, view, FACET_SQL[name]);
      const counts = new Map<string, number>();
      for (const { key, n } of groups) {
        const value = name === "bedrooms" ? bucketOf(key) : (spellings.get(key)?.value ?? key);
        counts.set(value, (counts.get(value) ?? 0) + n);
      }
      facets[name] = [...counts]
        .map(([value, count]) => ({ value, count }))
        .sort(
          (a, b) =>
            b.count - a.count || portuguese.compare(fold(a.value), fold(b.value)) || (a.value < b.value ? -1 : 1),
        )
        .slice(0, MAX_FACET_VALUES);
    }
    return { total, facets };
  });
}

/** A search the facet counters answer: states, cities and a deal, each given or not (empty: any). */
interface CountedPlaces {
  uf: string[];
  city: string[];
  operation: string[];
}
const ANYWHERE: CountedPlaces = { uf: [], city: [], operation: [] };

/** The counters' dimensions of `filters`, or null when it has a filter they do not count by. */
function countedPlaces(filters: ListFilters): CountedPlaces | null {
  if (filters.dates.length > 0 || filters.filters.some((f) => f.spec.param !== "operationType")) return null;
  const { uf, city, ...rest } = filters.search;
  if (isSearching({ ...emptySearch(), ...rest })) return null;
  return { uf, city, operation: filters.filters.map((f) => f.value) };
}

/**
 * The facet counters' rows of one facet (listings with a value; none when counts fell to 0),
 * summed over the states, cities and deals of `places`.
 */
function counted(repo: ListingRepo, facet: string, places: CountedPlaces = ANYWHERE): Group[] {
  const dims = (["uf", "city", "operation"] as const).filter((d) => places[d].length > 0);
  const where = dims.map((d) => ` AND ${d} IN (${places[d].map(() => "?").join(", ")})`).join("");
  return repo.grouped<Group>(
    `facet-counts|${dims.map((d) => `${d}${places[d].length}`).join(",")}`,
    EVERYTHING,
    "stored",
    () =>
      `SELECT key, value, sum(n) AS n FROM property_facet_counts WHERE facet = ?${where} GROUP BY key, value HAVING sum(n) > 0`,
    [facet, ...dims.flatMap((d) => places[d])],
  );
}

const sumOf = (groups: readonly Group[]) => groups.reduce((sum, g) => sum + g.n, 0);

/** Per key, its most frequent spelling and the listings that have it under any spelling. */
function spellingsOf(groups: readonly Group[]): Map<string, { key: string; value: string; count: number }> {
  return new Map(merged(groups).map((entry) => [entry.key, entry]));
}

/**
 * Distinct places or amenities among published listings, one per folded spelling (its most
 * frequent), in Portuguese alphabetical order ignoring accents and case. `neighborhood` takes
 * `city` (the list filter's form) to narrow it.
 */
export function searchValuesOf(
  tenant: Tenant,
  field: "city" | "neighborhood" | "uf" | "amenities",
  params: URLSearchParams,
): string[] {
  const repo = listingFor(tenant, PROPERTY_CATALOG).repo;
  let groups: Group[];
  const raw = params.getAll("city");
  if (field === "neighborhood" && raw.length > 0) {
    if (raw.length > 1) throw ApiError.validation([{ field: "city", message: "must be given once" }]);
    const cities = parsePlaceList(raw[0]!);
    if (cities === null) throw ApiError.validation([{ field: "city", message: SEARCH_MESSAGES.list }]);
    const filters: ListFilters = { filters: [], dates: [], search: { ...emptySearch(), city: cities } };
    // The neighbourhoods of those cities (their own index), spelled as the counters spell them.
    const keys = new Set(
      repo
        .grouped<{ key: string }>(
          "values-neighborhood",
          filters,
          "stored",
          (w) => `SELECT DISTINCT p.neighborhood_key AS key FROM properties p WHERE ${w} AND p.neighborhood_key <> ''`,
        )
        .map((g) => g.key),
    );
    groups = counted(repo, "neighborhood").filter((g) => keys.has(g.key));
  } else {
    groups = counted(repo, field);
  }
  return merged(groups)
    .sort((a, b) => portuguese.compare(a.key, b.key))
    .map((entry) => entry.value);
}
