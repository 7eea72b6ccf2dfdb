// The search filters of the property list and facets (docs/reference/behaviour-partners.md §20):
// parsing, with every problem collected, and the SQL conditions they become. The SQL is built
// from fixed fragments only; caller values are always bound parameters.
import type { RecordView } from "../../catalog/types.ts";
import { fold } from "../../db/fold.ts";
import type { FieldProblem } from "../../errors.ts";
import { matchOf } from "./terms.ts";

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
  /**
   * Filters asked of the word index with the words (search/terms.ts absorbed): each a query of
   * its `terms` column that every match must meet, or (`notTerms`) must not.
   */
  terms: string[];
  notTerms: string[];
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
    terms: [],
    notTerms: [],
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
 * The search filters of a query, each problem added to `problems`. `single` reads one of its
 * parameters given at most once (a repeat is a problem of its own).
 */
export function parseSearch(problems: FieldProblem[], single: (name: string) => string | null): Search {
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
  /** The word index's matches, already read (a JSON array of rowids): tested instead of asking it again. */
  words?: string;
}
export type SetName = "amenities" | "words" | "map";
export const DRIVE_ANY: Plan = { walk: false, big: new Set() };

/**
 * Whether the search names a state or a city: their indexes lead with the deal and the price
 * after it, so under them those seek instead of being tested entry by entry (a city's
 * neighbourhoods are tested in its entries).
 */
export const placeSeeks = (search: Search): boolean => search.uf.length + search.city.length > 0;

/** Whether a page by price walks one city's own price index: the search's only place is one city. */
export const walksCity = (search: Search, sort: string): boolean =>
  sort.endsWith("price") && search.city.length === 1 && search.neighborhood.length + search.uf.length === 0;

/**
 * Whether the word index alone decides a search (after search/terms.ts absorbed the filters it
 * holds): its matches are the search's matches.
 */
export const wordsOnly = (query: { filters: unknown[]; dates: unknown[]; search: Search }): boolean =>
  query.search.words.length > 0 &&
  query.filters.length === 0 &&
  query.dates.length === 0 &&
  !isSearching({ ...query.search, words: [], terms: [], notTerms: [] });

/** Whether a search names a place. */
export const hasPlace = (search: Search): boolean =>
  search.city.length + search.neighborhood.length + search.uf.length > 0;

/**
 * The conditions of `search` over the properties alias `p`, as the reader sees the listings:
 * map filters compare the coordinates the view shows (rounded or none for partners, the stored
 * ones with fullAddress).
 */
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
  const seeks = !walk && plan.placeDrives === true && placeSeeks(search);
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
    const h = walk || plan.big.has("words") ? "+" : "";
    if (plan.words === undefined) {
      parts.push(`${h}p.rowid IN (SELECT rowid FROM property_words WHERE property_words MATCH ?)`);
      params.push(matchOf(search));
    } else {
      parts.push(`${h}p.rowid IN (SELECT value FROM json_each(?))`);
      params.push(plan.words);
    }
  }
  if (search.bbox !== null || search.near !== null) {
    const map = mapConditions(search, view, walk || plan.big.has("map"));
    parts.push(...map.parts);
    params.push(...map.params);
  }
  return { parts, params };
}

/** Strips of the map index per degree of latitude (009's properties_published_map). */
const STRIPS_PER_DEGREE = 100;
/** Past this many strips, the strips are read as one range instead of sought one by one. */
const MAX_STRIPS = 200;
/**
 * How far a shown coordinate may lie from the stored one: rounding to 3 decimals moves it at
 * most half a thousandth of a degree (and a hair for the float arithmetic).
 */
const SHOWN_ROUNDING = 0.0005 + 1e-9;

/**
 * The conditions of the map filters of `search` as `view` sees the coordinates. The map index
 * finds the candidates: the strips of the box (the bbox, the circle's box, or both), each a
 * range of longitudes, widened by the rounding for partners. The exact test is on the shown
 * coordinates: stored for fullAddress; for partners, rounded for STREET and none for
 * NEIGHBORHOOD, computed from the index's own columns. `hidden` keeps the planner off the
 * index (walking an order's index, or a map too big to drive from).
 */
function mapConditions(
  search: Search,
  view: RecordView,
  hidden: boolean,
): { parts: string[]; params: (string | number)[] } {
  const boxes = [search.bbox, search.near === null ? null : boxAround(search.near)].filter((b) => b !== null);
  const pad = view === "stored" ? 0 : SHOWN_ROUNDING;
  const south = Math.max(...boxes.map((b) => b.south)) - pad;
  const north = Math.min(...boxes.map((b) => b.north)) + pad;
  const west = Math.max(...boxes.map((b) => b.west)) - pad;
  const east = Math.min(...boxes.map((b) => b.east)) + pad;
  const h = hidden ? "+" : "";
  const parts = ["p.latitude IS NOT NULL"];
  const params: (string | number)[] = [];
  if (!hidden) {
    // Strips as SQLite floors them: floor(x * 100) grows with x, so the box's strips are those of its edges and between.
    const first = Math.floor(south * STRIPS_PER_DEGREE);
    const last = Math.floor(north * STRIPS_PER_DEGREE);
    if (last - first < MAX_STRIPS) {
      parts.push("floor(p.latitude * 100) IN (SELECT value FROM json_each(?))");
      params.push(JSON.stringify(Array.from({ length: Math.max(0, last - first + 1) }, (_, i) => first + i)));
    } else {
      parts.push("floor(p.latitude * 100) BETWEEN ? AND ?");
      params.push(first, last);
    }
  }
  parts.push(`${h}p.longitude BETWEEN ? AND ?`, `${h}p.latitude BETWEEN ? AND ?`);
  params.push(west, east, south, north);
  const shown = (column: "latitude" | "longitude") =>
    view === "stored"
      ? `p.${column}`
      : `(CASE p.display_address WHEN 'STREET' THEN round(p.${column}, 3) ELSE p.${column} END)`;
  if (view !== "stored") parts.push("p.display_address <> 'NEIGHBORHOOD'");
  const [lat, lng] = [shown("latitude"), shown("longitude")];
  if (search.bbox !== null) {
    const { south: s, west: w, north: n, east: e } = search.bbox;
    parts.push(`${lat} BETWEEN ? AND ?`, `${lng} BETWEEN ? AND ?`);
    params.push(s, n, w, e);
  }
  if (search.near !== null) {
    const { lat: centreLat, lng: centreLng, radius } = search.near;
    const phi = (centreLat * Math.PI) / 180;
    // Haversine; min(1, …) keeps asin defined when rounding pushes the term past 1.
    parts.push(
      `2 * ${EARTH_RADIUS_M} * asin(min(1, sqrt(power(sin((radians(${lat}) - ?) / 2), 2) + ` +
        `? * cos(radians(${lat})) * power(sin((radians(${lng}) - ?) / 2), 2)))) <= ?`,
    );
    params.push(phi, Math.cos(phi), (centreLng * Math.PI) / 180, radius);
  }
  return { parts, params };
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
  if (only("minArea", "maxArea") && search.minArea !== null) return areaTotal(search.minArea, search.maxArea);
  return null;
}

/** Ten-m² steps of the hidden `area` facet (migration 9's facet counters). */
const AREA_STEP = 10;
const areaKey = (ten: number) => String(ten).padStart(10, "0");

/**
 * The total of an area range alone (from `low`, up to `high` or without end): its whole tens of
 * m² summed from the hidden `area` facet, the listings between `low` and the first whole ten
 * and between the last one and `high` counted in the area index. Null for a range too narrow
 * to hold a whole ten, which the area index counts quickly anyway.
 */
function areaTotal(low: number, high: number | null): { sql: string; params: (string | number)[] } | null {
  const first = Math.ceil(low / AREA_STEP);
  const last = high === null ? Number.MAX_SAFE_INTEGER : Math.floor(high / AREA_STEP) - 1;
  if (first > last) return null;
  const edge = (op: string) =>
    `(SELECT count(*) FROM properties p WHERE p.is_published = 1 AND p.search_area >= ? AND p.search_area ${op} ?)`;
  return {
    sql:
      "SELECT (SELECT coalesce(sum(n), 0) FROM property_facet_counts WHERE facet = 'area' AND key BETWEEN ? AND ?)" +
      ` + ${edge("<")} + ${edge("<=")}`,
    params: [
      areaKey(first),
      high === null ? "9999999999" : areaKey(last),
      low,
      first * AREA_STEP,
      // Without a maximum, no upper edge: an empty range.
      high === null ? 1 : (last + 1) * AREA_STEP,
      high === null ? 0 : high,
    ],
  };
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
 * A page of a search the word index alone decides is first looked for along the order's index,
 * over at most this many entries, each tested against the matches held in memory (about 0.1 µs
 * an entry at 1M listings, against 2 to 4 µs to read a match's row and sort it); past them, the matches are sorted. The walk is tried only when it should end within
 * a quarter of this if the words and the order had nothing to do with each other: they often do
 * (a penthouse is large, a farm is cheap by the m²), and the bound keeps that from costing more
 * than the sort it saves. In a price or area order the bound is the number of matches instead:
 * past it, the page is found from the matches' sort keys (search/sort-keys.ts, about 0.5 µs a
 * match), not their rows.
 */
export const WALK_BOUND = 150_000;

/**
 * The sizes of the sets a search reads through rowid lists or an index of their own (an
 * amenity, the map), each from counters or its index in a few milliseconds; the map's counted
 * up to `cap` + 1 (past that, its size no longer matters). The words' set is read whole
 * (search/terms.ts WORD_IDS_SQL).
 */
export function setProbes(
  search: Search,
  view: RecordView,
  cap: number,
): { set: SetName; sql: string; params: (string | number)[] }[] {
  const probes: { set: SetName; sql: string; params: (string | number)[] }[] = [];
  for (const amenity of search.amenities) {
    probes.push({
      set: "amenities",
      sql: "SELECT coalesce(sum(n), 0) FROM property_facet_counts WHERE facet = 'amenities' AND key = ?",
      params: [amenity],
    });
  }
  if (search.bbox !== null || search.near !== null) {
    const map = mapConditions(search, view, false);
    probes.push({
      set: "map",
      sql: `SELECT count(*) FROM (SELECT 1 FROM properties p WHERE p.is_published = 1 AND ${map.parts.join(" AND ")} LIMIT ?)`,
      params: [...map.params, cap + 1],
    });
  }
  return probes;
}
