// The search filters of the property list and facets (docs/reference/behaviour-partners.md §20):
// parsing, with every problem collected, and the SQL conditions they become. The SQL is built
// from fixed fragments only; caller values are always bound parameters.
import type { RecordView } from "../../catalog/types.ts";
import { fold } from "../../db/fold.ts";
import type { FieldProblem } from "../../errors.ts";

export const MAX_LIST_VALUES = 50;
export const MAX_RADIUS_M = 50_000;
export const DEFAULT_RADIUS_M = 1_000;
/** Mean Earth radius (IUGG), in metres: the great-circle distances of `near`. */
export const EARTH_RADIUS_M = 6_371_008.8;

export interface Box {
  south: number;
  west: number;
  north: number;
  east: number;
}

export interface Near {
  lat: number;
  lng: number;
  radius: number;
}

/** The search part of a property list query; empty lists and nulls mean "no such filter". */
export interface Search {
  city: string[];
  neighborhood: string[];
  uf: string[];
  amenities: string[];
  minPrice: number | null;
  maxPrice: number | null;
  minBedrooms: number | null;
  maxBedrooms: number | null;
  minBathrooms: number | null;
  minSuites: number | null;
  minParkingSpaces: number | null;
  minArea: number | null;
  maxArea: number | null;
  isFurnished: boolean | null;
  acceptsFinancing: boolean | null;
  exclusive: boolean | null;
  /** The words of `q`, as typed (the full-text index folds them itself). */
  words: string[];
  bbox: Box | null;
  near: Near | null;
}

/** Filters on place names: comma-separated, any of them, compared folded. */
export const PLACE_PARAMS = ["city", "neighborhood", "uf"] as const;
/** Numeric bounds: the parameter, its column, its comparison, and whether it takes decimals. */
export const BOUNDS = [
  { param: "minPrice", column: "p.deal_price", op: ">=", decimal: true },
  { param: "maxPrice", column: "p.deal_price", op: "<=", decimal: true },
  { param: "minBedrooms", column: "p.bedrooms", op: ">=", decimal: false },
  { param: "maxBedrooms", column: "p.bedrooms", op: "<=", decimal: false },
  { param: "minBathrooms", column: "p.bathrooms", op: ">=", decimal: false },
  { param: "minSuites", column: "p.suites", op: ">=", decimal: false },
  { param: "minParkingSpaces", column: "p.parking_spaces", op: ">=", decimal: false },
  { param: "minArea", column: "p.search_area", op: ">=", decimal: true },
  { param: "maxArea", column: "p.search_area", op: "<=", decimal: true },
] as const;
type BoundParam = (typeof BOUNDS)[number]["param"];
/** A minimum above its maximum is an error, named on the minimum. */
const RANGES: readonly (readonly [BoundParam, BoundParam])[] = [
  ["minPrice", "maxPrice"],
  ["minBedrooms", "maxBedrooms"],
  ["minArea", "maxArea"],
];
export const FLAGS = [
  { param: "isFurnished", column: "p.is_furnished" },
  { param: "acceptsFinancing", column: "p.accepts_financing" },
  { param: "exclusive", column: "p.exclusive" },
] as const;

export const SEARCH_MESSAGES = {
  list: `must be 1 to ${MAX_LIST_VALUES} comma-separated values of at most 200 characters`,
  number: "must be a number ≥ 0",
  integer: "must be an integer ≥ 0",
  flag: "must be true or false",
  q: "must be between 1 and 200 characters, with at least one letter or digit",
  bbox: "must be south,west,north,east",
  near: "must be lat,lng",
  radius: `must be a number of metres between 1 and ${MAX_RADIUS_M}`,
  radiusAlone: "needs near",
  above: (max: string) => `must not be above ${max}`,
};

const NUMBER = /^\d{1,15}(\.\d{1,6})?$/;
const INTEGER = /^\d{1,9}$/;
const SIGNED = /^-?\d{1,3}(\.\d{1,15})?$/;

export function emptySearch(): Search {
  return {
    city: [],
    neighborhood: [],
    uf: [],
    amenities: [],
    minPrice: null,
    maxPrice: null,
    minBedrooms: null,
    maxBedrooms: null,
    minBathrooms: null,
    minSuites: null,
    minParkingSpaces: null,
    minArea: null,
    maxArea: null,
    isFurnished: null,
    acceptsFinancing: null,
    exclusive: null,
    words: [],
    bbox: null,
    near: null,
  };
}

/** Whether any search filter is given (a plain list keeps its counter and day-count paths). */
export function isSearching(search: Search): boolean {
  const e = emptySearch();
  return (Object.keys(e) as (keyof Search)[]).some((k) => {
    const value = search[k];
    return Array.isArray(value) ? value.length > 0 : value !== null;
  });
}

/** Folded, distinct values of a comma-separated list, or null when it is not a valid one. */
export function parsePlaceList(raw: string): string[] | null {
  const items = raw.split(",").map((v) => v.trim());
  if (items.some((v) => v.length > 200)) return null;
  const values = [...new Set(items.filter((v) => v !== "").map(fold))].filter((v) => v !== "");
  return values.length === 0 || values.length > MAX_LIST_VALUES ? null : values;
}

/** The words of a `q`: runs of letters and digits, as the full-text tokenizer cuts them. */
export function wordsOf(q: string): string[] {
  return q.match(/[\p{L}\p{N}\p{M}]+/gu) ?? [];
}

function coordinates(raw: string, count: number): number[] | null {
  const parts = raw.split(",").map((v) => v.trim());
  if (parts.length !== count || parts.some((v) => !SIGNED.test(v))) return null;
  return parts.map(Number);
}

const isLat = (x: number) => x >= -90 && x <= 90;
const isLng = (x: number) => x >= -180 && x <= 180;

/**
 * The search filters of `params`, each problem added to `problems`. `single` reads a parameter
 * given at most once (a repeat is a problem of its own).
 */
export function parseSearch(
  params: URLSearchParams,
  problems: FieldProblem[],
  single: (name: string) => string | null,
): Search {
  const search = emptySearch();
  for (const param of [...PLACE_PARAMS, "amenities"] as const) {
    const raw = single(param);
    if (raw === null) continue;
    const values = parsePlaceList(raw);
    if (values === null) problems.push({ field: param, message: SEARCH_MESSAGES.list });
    else search[param] = values;
  }
  for (const { param, decimal } of BOUNDS) {
    const raw = single(param);
    if (raw === null) continue;
    if (!(decimal ? NUMBER : INTEGER).test(raw.trim())) {
      problems.push({ field: param, message: decimal ? SEARCH_MESSAGES.number : SEARCH_MESSAGES.integer });
    } else {
      search[param] = Number(raw.trim());
    }
  }
  for (const [min, max] of RANGES) {
    const low = search[min];
    const high = search[max];
    if (low !== null && high !== null && low > high) problems.push({ field: min, message: SEARCH_MESSAGES.above(max) });
  }
  for (const { param } of FLAGS) {
    const raw = single(param);
    if (raw === null) continue;
    if (raw === "true" || raw === "false") search[param] = raw === "true";
    else problems.push({ field: param, message: SEARCH_MESSAGES.flag });
  }
  const q = single("q");
  if (q !== null) {
    const words = wordsOf(q);
    if (q.length > 200 || words.length === 0) problems.push({ field: "q", message: SEARCH_MESSAGES.q });
    else search.words = words;
  }
  const bbox = single("bbox");
  if (bbox !== null) {
    const box = coordinates(bbox, 4);
    const [south, west, north, east] = box ?? [];
    if (
      box === null ||
      !isLat(south!) ||
      !isLat(north!) ||
      !isLng(west!) ||
      !isLng(east!) ||
      south! > north! ||
      west! > east!
    ) {
      problems.push({ field: "bbox", message: SEARCH_MESSAGES.bbox });
    } else {
      search.bbox = { south: south!, west: west!, north: north!, east: east! };
    }
  }
  const near = single("near");
  const radius = single("radius");
  let metres: number | null = DEFAULT_RADIUS_M;
  if (radius !== null) {
    metres = NUMBER.test(radius.trim()) ? Number(radius.trim()) : null;
    if (metres === null || metres < 1 || metres > MAX_RADIUS_M) {
      problems.push({ field: "radius", message: SEARCH_MESSAGES.radius });
      metres = null;
    } else if (near === null) {
      problems.push({ field: "radius", message: SEARCH_MESSAGES.radiusAlone });
    }
  }
  if (near !== null) {
    const point = coordinates(near, 2);
    if (point === null || !isLat(point[0]!) || !isLng(point[1]!))
      problems.push({ field: "near", message: SEARCH_MESSAGES.near });
    else if (metres !== null) search.near = { lat: point[0]!, lng: point[1]!, radius: metres };
  }
  return search;
}

/** The FTS5 query of `words`: every one, the last as a prefix; each quoted, so no word is an operator. */
export function matchOf(words: readonly string[]): string {
  return words.map((w, i) => `"${w.replaceAll('"', '""')}"${i === words.length - 1 ? "*" : ""}`).join(" ");
}

/** The box around a circle: every point within `radius` of the centre is inside it. */
export function boxAround(near: Near): Box {
  const angle = near.radius / EARTH_RADIUS_M;
  const dLat = (angle * 180) / Math.PI;
  const cosLat = Math.cos((near.lat * Math.PI) / 180);
  const ratio = Math.sin(angle) / cosLat;
  const dLng = cosLat <= 0 || ratio >= 1 ? 180 : (Math.asin(ratio) * 180) / Math.PI;
  // A hair wider: the exact comparison after the index is what decides.
  const pad = 1e-6;
  return {
    south: Math.max(-90, near.lat - dLat - pad),
    north: Math.min(90, near.lat + dLat + pad),
    west: dLng >= 180 ? -180 : Math.max(-180, near.lng - dLng - pad),
    east: dLng >= 180 ? 180 : Math.min(180, near.lng + dLng + pad),
  };
}

/**
 * The conditions of `search` over the properties alias `p`, as the reader sees the listings:
 * map filters read the coordinates the view shows (`property_shown_points` and the rounded
 * values for partners, the stored ones with fullAddress).
 */
/**
 * How the conditions are written for the planner. `walk`: the page is read along the order's
 * index, so no condition may pick an index of its own. `big`: the sets (search/filters.ts
 * setProbes) too big to drive a query from, tested row by row instead of listed first.
 */
export interface Plan {
  walk: boolean;
  big: ReadonlySet<SetName>;
  /**
   * A place is given: its index (the city's carries every filtered column) drives, so the
   * other conditions keep off theirs (the planner cannot tell how few a place leaves).
   */
  placeDrives?: boolean;
  /** Walking, the order is a price order within one city: its own index (migration 9) is walked. */
  cityWalk?: boolean;
}
export type SetName = "amenities" | "words" | "map";
export const DRIVE_ANY: Plan = { walk: false, big: new Set() };

/**
 * Whether a state is the search's only place: the state's index leads with the deal and the
 * price after it, so under it those seek instead of being tested entry by entry.
 */
export const stateSeeks = (search: Search): boolean =>
  search.uf.length > 0 && search.city.length + search.neighborhood.length === 0;

/** Whether a page by price walks one city's own price index: the search's only place is one city. */
export const walksCity = (search: Search, sort: string): boolean =>
  sort.endsWith("price") && search.city.length === 1 && search.neighborhood.length + search.uf.length === 0;

/** Whether a search names a place. */
export const hasPlace = (search: Search): boolean =>
  search.city.length + search.neighborhood.length + search.uf.length > 0;

export function searchConditions(
  search: Search,
  view: RecordView,
  plan: Plan = DRIVE_ANY,
): { parts: string[]; params: (string | number)[] } {
  const walk = plan.walk;
  const parts: string[] = [];
  const params: (string | number)[] = [];
  // `+` hides a column from the planner: walking an order's index, no condition may pick an
  // index of its own; under a place, only the place's may.
  const p = walk ? "+" : "";
  const w = walk || plan.placeDrives ? "+" : "";
  const seeks = !walk && plan.placeDrives === true && stateSeeks(search);
  const column = {
    city: plan.cityWalk ? "(p.city_key || '')" : `${p}p.city_key`,
    neighborhood: `${p}p.neighborhood_key`,
    uf: `${p}p.uf_key`,
  } as const;
  for (const param of PLACE_PARAMS) {
    const values = search[param];
    if (values.length === 0) continue;
    parts.push(`${column[param]} IN (${values.map(() => "?").join(", ")})`);
    params.push(...values);
  }
  for (const { param, column: c, op } of BOUNDS) {
    const value = search[param];
    if (value === null) continue;
    parts.push(`${seeks && c === "p.deal_price" ? "" : w}${c} ${op} ?`);
    params.push(value);
  }
  for (const { param, column: c } of FLAGS) {
    const value = search[param];
    if (value === null) continue;
    parts.push(`${c} = ?`);
    params.push(value ? 1 : 0);
  }
  for (const amenity of search.amenities) {
    // Each row looked up in the amenity's index: no list of its many listings is built first.
    parts.push(
      walk || plan.big.has("amenities")
        ? "EXISTS (SELECT 1 FROM property_amenities a WHERE a.key = ? AND a.property = p.rowid)"
        : "p.rowid IN (SELECT property FROM property_amenities WHERE key = ?)",
    );
    params.push(amenity);
  }
  if (search.words.length > 0) {
    parts.push(
      `${walk || plan.big.has("words") ? "+" : ""}p.rowid IN (SELECT rowid FROM property_words WHERE property_words MATCH ?)`,
    );
    params.push(matchOf(search.words));
  }
  // The map's rows hold the exact coordinates the view shows: the candidates are the matches.
  const points = pointsOf(view);
  if (search.bbox !== null || search.near !== null) {
    const map = mapConditions(search, "r");
    parts.push(
      `${walk || plan.big.has("map") ? "+" : ""}p.rowid IN (SELECT r.id FROM ${points} r WHERE ${map.parts.join(" AND ")})`,
    );
    params.push(...map.params);
  }
  return { parts, params };
}

/** The map's table as `view` sees the coordinates (migration 9). */
const pointsOf = (view: RecordView) => (view === "stored" ? "property_points" : "property_shown_points");

/**
 * Metres that cover an R*Tree box (32-bit floats rounded outwards: under 4 m anywhere) with
 * room to spare: a box this far inside a map filter's edge holds a matching point whatever
 * its exact value, one this far outside none.
 */
const BOX_SLACK_M = 10;

/**
 * The conditions of the map filters of `search` over the map's table under `alias`: its box,
 * then the exact coordinates, read (from the table's auxiliary columns, one lookup each) only
 * for the few boxes that lie on a filter's edge.
 */
function mapConditions(search: Search, alias: string): { parts: string[]; params: number[] } {
  const parts: string[] = [];
  const params: number[] = [];
  const inBox = (box: Box) => {
    parts.push(`${alias}.max_lat >= ?`, `${alias}.min_lat <= ?`, `${alias}.max_lng >= ?`, `${alias}.min_lng <= ?`);
    params.push(box.south, box.north, box.west, box.east);
  };
  if (search.bbox !== null) {
    const { south, west, north, east } = search.bbox;
    inBox(search.bbox);
    parts.push(
      `((${alias}.min_lat >= ? AND ${alias}.max_lat <= ? AND ${alias}.min_lng >= ? AND ${alias}.max_lng <= ?)` +
        ` OR (${alias}.lat BETWEEN ? AND ? AND ${alias}.lng BETWEEN ? AND ?))`,
    );
    params.push(south, north, west, east, south, north, west, east);
  }
  if (search.near !== null) {
    const { lat: centreLat, lng: centreLng, radius } = search.near;
    inBox(boxAround(search.near));
    const phi = (centreLat * Math.PI) / 180;
    const centre = [phi, Math.cos(phi), (centreLng * Math.PI) / 180];
    // Haversine; min(1, …) keeps asin defined when rounding pushes the term past 1.
    const distance = (lat: string, lng: string) =>
      `2 * ${EARTH_RADIUS_M} * asin(min(1, sqrt(power(sin((radians(${lat}) - ?) / 2), 2) + ` +
      `? * cos(radians(${lat})) * power(sin((radians(${lng}) - ?) / 2), 2))))`;
    const corner = distance(`${alias}.min_lat`, `${alias}.min_lng`);
    parts.push(
      `CASE WHEN ${corner} <= ? THEN 1 WHEN ${corner} > ? THEN 0 ELSE ${distance(`${alias}.lat`, `${alias}.lng`)} <= ? END`,
    );
    params.push(...centre, radius - BOX_SLACK_M, ...centre, radius + BOX_SLACK_M, ...centre, radius);
  }
  return { parts, params };
}

/** The map's columns that hold a listing's values, by the filter or bound that reads them. */
const MAP_COLUMNS = {
  operationType: "operation",
  propertyType: "type",
  minPrice: "price",
  maxPrice: "price",
  minArea: "area",
  maxArea: "area",
  minBedrooms: "bedrooms",
  maxBedrooms: "bedrooms",
} as const;

/**
 * A search the map's table answers alone (under `alias`), count and order: map filters with
 * at most the deal, the type, price, area and bedrooms, in the date of creation's or the
 * price's or area's order. Null for any other.
 */
export function mapLed(
  query: { filters: { spec: { param: string }; value: string }[]; dates: unknown[]; search: Search; sort: string },
  view: RecordView,
  alias: string,
): { table: string; where: string; params: (string | number)[]; order: string } | null {
  const { search, sort } = query;
  if (search.bbox === null && search.near === null) return null;
  if (query.dates.length > 0 || sort.endsWith("updatedAt")) return null;
  const rest: Search = { ...search, bbox: null, near: null };
  for (const bound of ["minPrice", "maxPrice", "minArea", "maxArea", "minBedrooms", "maxBedrooms"] as const)
    rest[bound] = null;
  if (isSearching(rest)) return null;
  if (query.filters.some((f) => f.spec.param !== "operationType" && f.spec.param !== "propertyType")) return null;
  const map = mapConditions(search, alias);
  const parts = [...map.parts];
  const params: (string | number)[] = [...map.params];
  for (const { spec, value } of query.filters) {
    parts.push(`${alias}.${MAP_COLUMNS[spec.param as "operationType" | "propertyType"]} = ?`);
    params.push(value);
  }
  for (const { param, op } of BOUNDS) {
    const value = search[param];
    if (value === null || !(param in MAP_COLUMNS)) continue;
    parts.push(`${alias}.${MAP_COLUMNS[param as keyof typeof MAP_COLUMNS]} ${op} ?`);
    params.push(value);
  }
  const direction = sort.startsWith("-") ? "DESC" : "ASC";
  const column = sort.endsWith("price") ? `${alias}.price` : sort.endsWith("area") ? `${alias}.area` : null;
  // The list's orders (listing/repo.ts): ties by id; price and area put listings without them last.
  const order =
    column === null
      ? `${alias}.created_at ${direction}, ${alias}.pid ${direction}`
      : `${column} IS NULL, ${column} ${direction}, ${alias}.pid ${direction}`;
  return { table: pointsOf(view), where: parts.join(" AND "), params, order };
}

/**
 * The exact total of a search made of one filter alone, from the facet counters or the word
 * index (both hold published listings only), or null when the filters must be counted row by
 * row: a few hundred counter rows instead of up to a million index entries.
 */
export function countedTotal(search: Search): { sql: string; params: (string | number)[] } | null {
  const given = (Object.keys(search) as (keyof Search)[]).filter((k) => {
    const value = search[k];
    return Array.isArray(value) ? value.length > 0 : value !== null;
  });
  const sum = (facet: string, where: string, params: (string | number)[]) => ({
    sql: `SELECT coalesce(sum(n), 0) FROM property_facet_counts WHERE facet = '${facet}' AND ${where}`,
    params,
  });
  const keys = (values: readonly string[]) => `key IN (${values.map(() => "?").join(", ")})`;
  const only = (...names: (keyof Search)[]) => given.length > 0 && given.every((k) => names.includes(k));
  if (only("city")) return sum("city", keys(search.city), search.city);
  if (only("neighborhood")) return sum("neighborhood", keys(search.neighborhood), search.neighborhood);
  if (only("uf")) return sum("uf", keys(search.uf), search.uf);
  if (only("amenities") && search.amenities.length === 1) return sum("amenities", "key = ?", search.amenities);
  if (only("minBedrooms", "maxBedrooms")) {
    return sum("bedrooms", "CAST(key AS INTEGER) BETWEEN ? AND ?", [
      search.minBedrooms ?? 0,
      search.maxBedrooms ?? 1e9,
    ]);
  }
  for (const [param, facet] of [
    ["minBathrooms", "bathrooms"],
    ["minSuites", "suites"],
    ["minParkingSpaces", "parkingSpaces"],
  ] as const) {
    if (only(param)) return sum(facet, "CAST(key AS INTEGER) >= ?", [search[param]!]);
  }
  for (const { param } of FLAGS) if (only(param)) return sum(param, "key = ?", [search[param] ? "1" : "0"]);
  if (only("words"))
    return { sql: "SELECT count(*) FROM property_words WHERE property_words MATCH ?", params: [matchOf(search.words)] };
  return null;
}

/**
 * Whether the search's only set is one neighbourhood: its index (key, created_at, id) lists
 * its matches in the date orders already, so they need no sort.
 */
export function isOnePlace(search: Search): boolean {
  const places = search.city.length + search.neighborhood.length + search.uf.length;
  return (
    places === 1 &&
    search.neighborhood.length === 1 &&
    search.amenities.length === 0 &&
    search.words.length === 0 &&
    search.bbox === null &&
    search.near === null
  );
}

/** At most this many matches are sorted, and a set this big drives a query; more, and the page walks the order's index, the set is tested row by row. */
export const SMALL_SET = 20_000;

/**
 * The sizes of the sets a search reads through rowid lists (an amenity, the words, the map's
 * candidates), each from counters or an index of its own in a few milliseconds.
 */
export function setProbes(
  search: Search,
  view: RecordView,
): { set: SetName; sql: string; params: (string | number)[] }[] {
  const probes: { set: SetName; sql: string; params: (string | number)[] }[] = [];
  for (const amenity of search.amenities) {
    probes.push({
      set: "amenities",
      sql: "SELECT coalesce(sum(n), 0) FROM property_facet_counts WHERE facet = 'amenities' AND key = ?",
      params: [amenity],
    });
  }
  if (search.words.length > 0)
    probes.push({
      set: "words",
      sql: "SELECT count(*) FROM property_words WHERE property_words MATCH ?",
      params: [matchOf(search.words)],
    });
  const points = pointsOf(view);
  for (const box of [search.bbox, search.near === null ? null : boxAround(search.near)]) {
    if (box === null) continue;
    probes.push({
      set: "map",
      sql: `SELECT count(*) FROM ${points} WHERE max_lat >= ? AND min_lat <= ? AND max_lng >= ? AND min_lng <= ?`,
      params: [box.south, box.north, box.west, box.east],
    });
  }
  return probes;
}
