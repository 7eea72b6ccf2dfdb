// The counts of a search: GET /v1/facets/properties, and the place and amenity values of
// GET /v1/values/properties/{city,neighborhood,uf,amenities} (docs/reference/behaviour-partners.md §20),
// both read from the listing index (listing-index.ts).
import { PROPERTY_CATALOG } from "../catalog/properties.ts";
import type { Reader, RecordView } from "../catalog/types.ts";
import { fold } from "../db/fold.ts";
import type { Tenant } from "../db/tenants.ts";
import { ApiError, type FieldProblem } from "../errors.ts";
import { emptySearch, parsePlaceList, SEARCH_MESSAGES } from "./filters.ts";
import { listOf } from "./lists.ts";
import { type ListFilters, parseFilters } from "./params.ts";
import { type Deadline, FACETS, type Facet, facetOf } from "./scan.ts";
import { searchEngineOf } from "./search-engine.ts";

export { FACETS, type Facet } from "./scan.ts";
export const MAX_FACET_VALUES = 50;

/** Portuguese alphabetical order; compared on folded keys, so accents and case never matter. */
const portuguese = new Intl.Collator("pt-BR");

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
export function facetsOf(tenant: Tenant, rawQuery: string, reader: Reader, deadline?: Deadline): string {
  const params = new URLSearchParams(rawQuery);
  const problems: FieldProblem[] = [];
  const facetParams = params.getAll("facets");
  if (facetParams.length > 1) problems.push({ field: "facets", message: "must be given once" });
  const names = parseFacetNames(facetParams[0] ?? null, problems);
  const filters = parseFilters(PROPERTY_CATALOG, params, problems);
  if (problems.length > 0) throw ApiError.validation(problems);
  return JSON.stringify({ data: facetCounts(tenant, filters, names, reader.view, deadline) });
}

/** The total of the listings matching `filters` as `view` sees them, and the facets `names` under them. */
export function facetCounts(
  tenant: Tenant,
  filters: ListFilters,
  names: readonly Facet[],
  view: RecordView,
  deadline?: Deadline,
): { total: number; facets: Record<string, { value: string; count: number }[]> } {
  const repo = listOf(tenant, PROPERTY_CATALOG).repo;
  return repo.snapshot(() => {
    const { index, matches } = searchEngineOf(tenant).matches(filters, view, deadline);
    const facets: Record<string, { value: string; count: number }[]> = {};
    for (const name of names) {
      facets[name] = [...facetOf(index, matches, name, deadline)]
        .map(([value, count]) => ({ value, count }))
        .sort(
          (a, b) =>
            b.count - a.count || portuguese.compare(fold(a.value), fold(b.value)) || (a.value < b.value ? -1 : 1),
        )
        .slice(0, MAX_FACET_VALUES);
    }
    return { total: matches.count, facets };
  });
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
  deadline?: Deadline,
): string[] {
  const raw = params.getAll("city");
  let cities: string[] = [];
  if (field === "neighborhood" && raw.length > 0) {
    if (raw.length > 1) throw ApiError.validation([{ field: "city", message: "must be given once" }]);
    const parsed = parsePlaceList(raw[0]!);
    if (parsed === null) throw ApiError.validation([{ field: "city", message: SEARCH_MESSAGES.list }]);
    cities = parsed;
  }
  const repo = listOf(tenant, PROPERTY_CATALOG).repo;
  const keyed = repo.snapshot(() => {
    const engine = searchEngineOf(tenant);
    // Under cities, the neighbourhoods of those cities' listings; else every value held.
    const { index, matches } =
      cities.length > 0
        ? engine.matches({ filters: [], dates: [], search: { ...emptySearch(), city: cities } }, "stored", deadline)
        : { index: engine.current(), matches: null };
    const dictionary = field === "amenities" ? index.amenityKeys : index.places;
    const shown = field === "amenities" ? index.shownAmenities() : index.shownPlaces(field);
    let codes: Iterable<number> = dictionary.values.keys();
    if (matches !== null) {
      const found = new Set<number>();
      for (let i = 0; i < matches.count; i++) found.add(index.neighborhood[matches.slots[i]!]!);
      codes = found;
    }
    const entries: { key: string; value: string }[] = [];
    for (const code of codes) {
      const value = code === 0 ? null : shown[code]!;
      if (value !== null) entries.push({ key: dictionary.values[code]!, value });
    }
    return entries;
  });
  return keyed.sort((a, b) => portuguese.compare(a.key, b.key)).map((entry) => entry.value);
}
