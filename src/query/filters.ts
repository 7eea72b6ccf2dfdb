// The search filters of the property list and facets (docs/reference/behaviour-partners.md §20),
// parsed with every problem collected. The listing index answers them (scan.ts).
import { fold } from "../db/fold.ts";
import type { FieldProblem } from "../errors.ts";

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
/** Numeric bounds: the parameter and whether it takes decimals. */
export const BOUNDS = [
  { param: "minPrice", decimal: true },
  { param: "maxPrice", decimal: true },
  { param: "minBedrooms", decimal: false },
  { param: "maxBedrooms", decimal: false },
  { param: "minBathrooms", decimal: false },
  { param: "minSuites", decimal: false },
  { param: "minParkingSpaces", decimal: false },
  { param: "minArea", decimal: true },
  { param: "maxArea", decimal: true },
] as const;
type BoundParam = (typeof BOUNDS)[number]["param"];
/** A minimum above its maximum is an error, named on the minimum. */
const RANGES: readonly (readonly [BoundParam, BoundParam])[] = [
  ["minPrice", "maxPrice"],
  ["minBedrooms", "maxBedrooms"],
  ["minArea", "maxArea"],
];
export const FLAGS = [{ param: "isFurnished" }, { param: "acceptsFinancing" }, { param: "exclusive" }] as const;

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

/** Whether any search filter of §20 is given. */
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
