// A text search narrowed inside the word index (migration 9: `property_words` and the
// listings' `search_terms`): the filters that index holds a token for are asked of it with the
// words of `q`, so the index alone gives the matching set, and the rows are not read to test
// them. The tokens here are the ones 009's `search_terms` writes, one filter value each.
import type { ListFilters } from "../lists/params.ts";
import type { Search } from "./filters.ts";

/** The columns `q` reads (never `terms`, whose tokens are filter values). */
const TEXT_COLUMNS = "{title description property_type neighborhood city code amenities}";
/** "At least k" rooms have a token up to this k (009's search_terms). */
export const MAX_ROOMS_TERM = 5;

const ROOMS = [
  ["minBedrooms", "bd"],
  ["minBathrooms", "bt"],
  ["minSuites", "st"],
  ["minParkingSpaces", "pk"],
] as const;
const PLACES = [
  ["city", "ci"],
  ["neighborhood", "nb"],
  ["uf", "uf"],
] as const;
const FLAGS = [
  ["isFurnished", "fu"],
  ["acceptsFinancing", "fi"],
  ["exclusive", "ex"],
] as const;
const FILTER_TOKENS: Record<string, (value: string) => string> = {
  operationType: (value) => `op${value}`,
  propertyType: (value) => `ty${hex(value)}`,
};
/** "At least k" rooms are also written paired with the city from this k up (009's search_terms). */
const MIN_PAIRED_ROOMS = 2;

/** What SQLite's hex() gives for text (its UTF-8 bytes); the tokenizer folds its case. */
const hex = (text: string) => Buffer.from(text, "utf8").toString("hex");
const token = (text: string) => `"${text}"`;
const anyOf = (tokens: readonly string[]) =>
  tokens.length === 1 ? `terms : ${token(tokens[0]!)}` : `terms : (${tokens.map(token).join(" OR ")})`;
/** A filter's token paired with a city (its key folded). */
const inCity = (city: string, filterToken: string) => `c${hex(city)}x${filterToken}`;

/**
 * With `q` given, the filters the word index holds moved into its query (`search.terms`,
 * `search.notTerms`) and out of the rest, which is tested row by row as before. Under cities,
 * the deal and 2+ rooms are asked paired with them (any of the cities for each), which says the
 * city too. Without `q`, the filters as they are: the place indexes and counters serve
 * those better.
 */
export function absorbed(query: ListFilters): ListFilters {
  const { search } = query;
  if (search.words.length === 0) return query;
  const rest: Search = { ...search, terms: [...search.terms], notTerms: [...search.notTerms] };
  /** Tokens of the search's deal and its rooms from MIN_PAIRED_ROOMS up, which cities pair with. */
  const pairable: string[] = [];
  for (const [param, prefix] of ROOMS) {
    const value = search[param];
    if (value === null || value > MAX_ROOMS_TERM) continue;
    if (value >= MIN_PAIRED_ROOMS) pairable.push(`${prefix}${value}`);
    else rest.terms.push(anyOf([`${prefix}${value}`]));
    rest[param] = null;
  }
  const filters = query.filters.filter((f) => {
    const tokenOf = FILTER_TOKENS[f.spec.param];
    if (tokenOf === undefined) return true;
    if (f.spec.param === "operationType") pairable.push(tokenOf(f.value));
    else rest.terms.push(anyOf([tokenOf(f.value)]));
    return false;
  });
  // Paired, the cities need no token of their own.
  const paired = pairable.length > 0 && search.city.length > 0;
  for (const t of pairable) rest.terms.push(anyOf(paired ? search.city.map((city) => inCity(city, t)) : [t]));
  for (const [param, prefix] of PLACES) {
    if (search[param].length === 0) continue;
    if (!(paired && param === "city")) rest.terms.push(anyOf(search[param].map((key) => `${prefix}${hex(key)}`)));
    rest[param] = [];
  }
  for (const [param, flag] of FLAGS) {
    const value = search[param];
    if (value === null) continue;
    (value ? rest.terms : rest.notTerms).push(anyOf([flag]));
    rest[param] = null;
  }
  return { ...query, filters, search: rest };
}

/**
 * The word index's query of a search: every word of `q` in the text columns (each quoted, so no
 * word is an operator; the last one as a prefix), and the filter tokens `absorbed` gave it.
 */
export function matchOf(search: Pick<Search, "words" | "terms" | "notTerms">): string {
  const words = search.words.map((w, i) => `"${w.replaceAll('"', '""')}"${i === search.words.length - 1 ? "*" : ""}`);
  const all = [`${TEXT_COLUMNS} : (${words.join(" ")})`, ...search.terms].join(" AND ");
  return search.notTerms.length === 0 ? all : `(${all}) NOT (${search.notTerms.join(" OR ")})`;
}

/**
 * The listings the word index matches (only published ones are in it), in one pass: how many, and
 * their rowids as a JSON array (built by SQLite: a row per match would cost more in Bun).
 */
export const WORD_IDS_SQL = "SELECT count(*), json_group_array(rowid) FROM property_words WHERE property_words MATCH ?";
