// A search over the listing index (listing-index.ts): which listings match every filter, a page
// of them in the asked order, and their facets. Each is one pass over compact arrays, so its
// cost depends on the number of listings, never on which filters are combined.
import type { RecordView } from "../catalog/types.ts";
import { boxAround, EARTH_RADIUS_M } from "./filters.ts";
import { type Bitset, type Dictionary, FLAGS, hasBit, type ListingIndex } from "./listing-index.ts";
import type { ListFilters, Sort } from "./params.ts";

/** Something that stops a search past its time: it throws from check() once the time is up. */
export interface Deadline {
  check(): void;
}
/** Slots scanned between two looks at the deadline. */
const CHECK_EVERY = 1 << 16;

/** The matching slots, `count` of them at the start of `slots`. */
export interface Matches {
  slots: Int32Array;
  count: number;
}

/** A set of dictionary codes as a byte per code; null when the filter is not given. */
function codesOf(dictionary: Dictionary, values: readonly string[]): Uint8Array | null {
  if (values.length === 0) return null;
  const wanted = new Uint8Array(dictionary.size);
  for (const value of values) {
    const code = dictionary.find(value);
    if (code > 0) wanted[code] = 1;
  }
  return wanted;
}

const NONE = Number.NaN;
/** An equality filter not given: any code passes. */
const ANY = -1;
const radians = (degrees: number) => degrees * (Math.PI / 180);

/**
 * The slots of the listings matching every filter of `query` as `view` sees them (the map filters
 * compare the coordinates it is shown), in slot order. `words`: the slots the word index matched,
 * when `q` is given; `code`: the one slot the `code` filter names (-1: none).
 */
export function matching(
  index: ListingIndex,
  query: ListFilters,
  view: RecordView,
  words: Bitset | null,
  code: number | null,
  deadline?: Deadline,
): Matches {
  return scan(index, query, view, words, code, deadline, Number.POSITIVE_INFINITY)!;
}

/**
 * The matches of `query` when there are at most `atMost` of them, else null: the scan stops at
 * the first one too many. A search with words first asks which listings its other filters leave
 * (engine.ts): a few are cheaper to test against the words one by one than the word index's
 * matches among every listing.
 */
export function fewMatches(
  index: ListingIndex,
  query: ListFilters,
  view: RecordView,
  code: number | null,
  atMost: number,
  deadline?: Deadline,
): Matches | null {
  return scan(index, query, view, null, code, deadline, atMost);
}

function scan(
  index: ListingIndex,
  query: ListFilters,
  view: RecordView,
  words: Bitset | null,
  code: number | null,
  deadline: Deadline | undefined,
  atMost: number,
): Matches | null {
  const { search } = query;
  const filter = (param: string) => query.filters.find((f) => f.spec.param === param)?.value ?? null;
  // An equality filter's code: ANY when it is not given, null when no listing has the value.
  const exact = (dictionary: Dictionary, value: string | null): number | null =>
    value === null ? ANY : dictionary.find(value) > 0 ? dictionary.find(value) : null;
  const status = exact(index.statuses, filter("status"));
  const operation = exact(index.operations, filter("operationType"));
  const type = exact(index.types, filter("propertyType"));
  const highlight = exact(index.highlights, filter("highlight"));
  const cities = codesOf(index.places, search.city);
  const neighborhoods = codesOf(index.places, search.neighborhood);
  const ufs = codesOf(index.places, search.uf);
  const amenities: Bitset[] = [];
  let impossible = status === null || operation === null || type === null || highlight === null;
  for (const key of search.amenities) {
    const bits = index.amenities[index.amenityKeys.find(key)];
    if (bits === undefined) impossible = true;
    else amenities.push(bits);
  }
  const bound = (date: string) => query.dates.find((d) => d.spec.param === date)?.value;
  const dateBound = (date: string) => {
    const value = bound(date);
    return value === undefined ? NONE : Date.parse(value);
  };
  const createdAfter = dateBound("createdAfter");
  const createdBefore = dateBound("createdBefore");
  const updatedAfter = dateBound("updatedAfter");
  const updatedBefore = dateBound("updatedBefore");
  const hasDates = query.dates.length > 0;
  const flagMask =
    (search.isFurnished === null ? 0 : FLAGS.isFurnished) |
    (search.acceptsFinancing === null ? 0 : FLAGS.acceptsFinancing) |
    (search.exclusive === null ? 0 : FLAGS.exclusive);
  const flagValue =
    (search.isFurnished ? FLAGS.isFurnished : 0) |
    (search.acceptsFinancing ? FLAGS.acceptsFinancing : 0) |
    (search.exclusive ? FLAGS.exclusive : 0);
  const n = (value: number | null): number => value ?? NONE;
  const minPrice = n(search.minPrice);
  const maxPrice = n(search.maxPrice);
  const minArea = n(search.minArea);
  const maxArea = n(search.maxArea);
  const minBedrooms = n(search.minBedrooms);
  const maxBedrooms = n(search.maxBedrooms);
  const minBathrooms = n(search.minBathrooms);
  const minSuites = n(search.minSuites);
  const minParking = n(search.minParkingSpaces);
  // Which bounds are given (NaN: not given), as locals: the loop below tests them per listing.
  const given = (value: number) => !Number.isNaN(value);
  const hasMinPrice = given(minPrice);
  const hasMaxPrice = given(maxPrice);
  const hasMinArea = given(minArea);
  const hasMaxArea = given(maxArea);
  const hasMinBedrooms = given(minBedrooms);
  const hasMaxBedrooms = given(maxBedrooms);
  const hasMinBathrooms = given(minBathrooms);
  const hasMinSuites = given(minSuites);
  const hasMinParking = given(minParking);
  const hasCreatedAfter = given(createdAfter);
  const hasCreatedBefore = given(createdBefore);
  const hasUpdatedAfter = given(updatedAfter);
  const hasUpdatedBefore = given(updatedBefore);
  const hasBounds =
    hasMinPrice ||
    hasMaxPrice ||
    hasMinArea ||
    hasMaxArea ||
    hasMinBedrooms ||
    hasMaxBedrooms ||
    hasMinBathrooms ||
    hasMinSuites ||
    hasMinParking;
  const latitude = view === "stored" ? index.latitude : index.shownLatitude;
  const longitude = view === "stored" ? index.longitude : index.shownLongitude;
  const { bbox, near } = search;
  const map = bbox !== null || near !== null;
  // The circle's box first (a cheap test), then the great-circle distance as SQLite's math computes it.
  const circle = near === null ? null : boxAround(near);
  const phi = near === null ? 0 : radians(near.lat);
  const lambda = near === null ? 0 : radians(near.lng);
  const cosPhi = Math.cos(phi);

  const slots = new Int32Array(code === null ? Math.min(index.size, atMost) : 1);
  let count = 0;
  if (impossible || code === -1) return { slots, count };
  // None is null past the line above: a value no listing has matches nothing.
  const [wantStatus, wantOperation, wantType, wantHighlight] = [status!, operation!, type!, highlight!];
  const first = code ?? 0;
  const end = code === null ? index.size : code + 1;
  const { isLive, status: statusOf, operation: operationOf, type: typeOf, highlight: highlightOf } = index;
  const { city, neighborhood, uf, price, area, bedrooms, bathrooms, suites, parking, flags } = index;
  for (let s = first; s < end; s++) {
    if ((s & (CHECK_EVERY - 1)) === 0) deadline?.check();
    if (isLive[s] === 0) continue;
    if (wantStatus !== ANY && statusOf[s] !== wantStatus) continue;
    if (wantOperation !== ANY && operationOf[s] !== wantOperation) continue;
    if (wantType !== ANY && typeOf[s] !== wantType) continue;
    if (wantHighlight !== ANY && highlightOf[s] !== wantHighlight) continue;
    if (cities !== null && cities[city[s]!] !== 1) continue;
    if (neighborhoods !== null && neighborhoods[neighborhood[s]!] !== 1) continue;
    if (ufs !== null && ufs[uf[s]!] !== 1) continue;
    if ((flags[s]! & flagMask) !== flagValue) continue;
    if (words !== null && !hasBit(words, s)) continue;
    if (hasBounds) {
      const p = price[s]!;
      const a = area[s]!;
      if (hasMinPrice && !(p >= minPrice)) continue;
      if (hasMaxPrice && !(p <= maxPrice)) continue;
      if (hasMinArea && !(a >= minArea)) continue;
      if (hasMaxArea && !(a <= maxArea)) continue;
      if (hasMinBedrooms && !(bedrooms[s]! >= minBedrooms)) continue;
      if (hasMaxBedrooms && !(bedrooms[s]! <= maxBedrooms)) continue;
      if (hasMinBathrooms && !(bathrooms[s]! >= minBathrooms)) continue;
      if (hasMinSuites && !(suites[s]! >= minSuites)) continue;
      if (hasMinParking && !(parking[s]! >= minParking)) continue;
    }
    if (amenities.length > 0 && !hasAll(amenities, s)) continue;
    if (hasDates) {
      const c = index.createdAt[s]!;
      const u = index.updatedAt[s]!;
      if (hasCreatedAfter && !(c > createdAfter)) continue;
      if (hasCreatedBefore && !(c < createdBefore)) continue;
      if (hasUpdatedAfter && !(u > updatedAfter)) continue;
      if (hasUpdatedBefore && !(u < updatedBefore)) continue;
    }
    if (map) {
      const lat = latitude[s]!;
      const lng = longitude[s]!;
      if (Number.isNaN(lat) || Number.isNaN(lng)) continue;
      if (bbox !== null && !(lat >= bbox.south && lat <= bbox.north && lng >= bbox.west && lng <= bbox.east)) continue;
      if (circle !== null) {
        if (!(lat >= circle.south && lat <= circle.north && lng >= circle.west && lng <= circle.east)) continue;
        const dLat = Math.sin((radians(lat) - phi) / 2);
        const dLng = Math.sin((radians(lng) - lambda) / 2);
        const h = Math.sqrt(dLat * dLat + cosPhi * Math.cos(radians(lat)) * dLng * dLng);
        if (!(2 * EARTH_RADIUS_M * Math.asin(Math.min(1, h)) <= near!.radius)) continue;
      }
    }
    if (count === atMost) return null;
    slots[count++] = s;
  }
  return { slots, count };
}

function hasAll(sets: readonly Bitset[], slot: number): boolean {
  for (let i = 0; i < sets.length; i++) if (!hasBit(sets[i]!, slot)) return false;
  return true;
}

/**
 * The order of a sort as a comparison of two slots: by the date, the deal's price or the area,
 * listings without the value last either way, ties by id (descending orders reverse the id too).
 */
function comparison(index: ListingIndex, sort: Sort): (a: number, b: number) => number {
  const descending = sort.startsWith("-");
  const key = sort.endsWith("price")
    ? index.price
    : sort.endsWith("area")
      ? index.area
      : sort.endsWith("createdAt")
        ? index.createdAt
        : index.updatedAt;
  const rank = index.idRank;
  const sign = descending ? -1 : 1;
  return (a, b) => {
    const ka = key[a]!;
    const kb = key[b]!;
    const noA = Number.isNaN(ka);
    const noB = Number.isNaN(kb);
    if (noA !== noB) return noA ? 1 : -1;
    if (!noA && ka !== kb) return ka < kb ? -sign : sign;
    const ra = rank[a]!;
    const rb = rank[b]!;
    return ra === rb ? 0 : ra < rb ? -sign : sign;
  };
}

/**
 * The slots of the page `offset`..`offset + limit` of the matches in the order of `sort`. The
 * page is selected, not the whole list sorted: two partitions around its edges (quickselect,
 * linear on average) and a sort of its own few slots. Reorders `matches.slots`.
 */
export function pageOf(index: ListingIndex, matches: Matches, sort: Sort, offset: number, limit: number): number[] {
  const { slots, count } = matches;
  if (offset >= count) return [];
  const end = Math.min(count, offset + limit);
  const compare = comparison(index, sort);
  if (offset > 0) select(slots, 0, count - 1, offset, compare);
  if (end < count) select(slots, offset, count - 1, end - 1, compare);
  return Array.from(slots.subarray(offset, end)).sort(compare);
}

/**
 * Rearranges `a[lo..hi]` so that `a[k]` holds what it would in sorted order, everything before it
 * no greater and everything after it no smaller (Hoare's selection, median-of-three pivots).
 */
function select(a: Int32Array, lo: number, hi: number, k: number, compare: (x: number, y: number) => number): void {
  while (hi > lo) {
    const mid = (lo + hi) >>> 1;
    // Median of three as the pivot: sorted or reversed runs (slots follow rowids, rowids dates) stay linear.
    if (compare(a[mid]!, a[lo]!) < 0) swap(a, mid, lo);
    if (compare(a[hi]!, a[lo]!) < 0) swap(a, hi, lo);
    if (compare(a[hi]!, a[mid]!) < 0) swap(a, hi, mid);
    const pivot = a[mid]!;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (compare(a[i]!, pivot) < 0) i++;
      while (compare(a[j]!, pivot) > 0) j--;
      if (i <= j) {
        swap(a, i, j);
        i++;
        j--;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else return;
  }
}

function swap(a: Int32Array, i: number, j: number): void {
  const t = a[i]!;
  a[i] = a[j]!;
  a[j] = t;
}

/** The facets of GET /v1/facets/properties. */
export const FACETS = ["city", "neighborhood", "uf", "propertyType", "operationType", "bedrooms", "amenities"] as const;
export type Facet = (typeof FACETS)[number];

/** `bedrooms` as the facets give it: 0, 1, 2, 3 and 4+. */
const bucketOf = (bedrooms: number) => (bedrooms >= 4 ? "4+" : String(bedrooms));

/**
 * The matches' count per value of one facet (listings without a value in none): places and
 * amenities by folded key, shown as their most frequent spelling among all published listings.
 */
export function facetOf(index: ListingIndex, matches: Matches, facet: Facet, deadline?: Deadline): Map<string, number> {
  const { slots, count } = matches;
  const byCode = (codes: ArrayLike<number>, size: number, shown: (code: number) => string | null) => {
    const n = new Float64Array(size);
    for (let i = 0; i < count; i++) {
      if ((i & (CHECK_EVERY - 1)) === 0) deadline?.check();
      n[codes[slots[i]!]!]!++;
    }
    const counts = new Map<string, number>();
    for (let code = 1; code < size; code++) if (n[code]! > 0) counts.set(shown(code) ?? "", n[code]!);
    return counts;
  };
  switch (facet) {
    case "city":
    case "neighborhood":
    case "uf": {
      const shown = index.shownPlaces(facet);
      return byCode(index[facet], index.places.size, (c) => shown[c]!);
    }
    case "propertyType":
      return byCode(index.type, index.types.size, (c) => index.types.values[c]!);
    case "operationType":
      return byCode(index.operation, index.operations.size, (c) => index.operations.values[c]!);
    case "bedrooms": {
      const counts = new Map<string, number>();
      for (let i = 0; i < count; i++) {
        const bedrooms = index.bedrooms[slots[i]!]!;
        if (Number.isNaN(bedrooms)) continue;
        const bucket = bucketOf(bedrooms);
        counts.set(bucket, (counts.get(bucket) ?? 0) + 1);
      }
      return counts;
    }
    case "amenities": {
      // The matches counted per amenity list, then each list's count added to its amenities.
      const perSet = new Float64Array(index.amenitySetCount);
      const sets = index.amenitySet;
      for (let i = 0; i < count; i++) perSet[sets[slots[i]!]!]!++;
      const n = new Float64Array(index.amenityKeys.size);
      for (let set = 1; set < perSet.length; set++) {
        if (perSet[set] === 0) continue;
        for (const [code] of index.amenityPairsOf(set)) n[code]! += perSet[set]!;
      }
      const shown = index.shownAmenities();
      const counts = new Map<string, number>();
      for (let code = 1; code < n.length; code++) if (n[code]! > 0) counts.set(shown[code] ?? "", n[code]!);
      return counts;
    }
  }
}
