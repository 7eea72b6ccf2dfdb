// The `search-mix` scenario (bench/README.md): hundreds of list and facet requests drawn by a
// seeded generator from the whole space agency websites send, built from the values the server
// lists (cities, their neighbourhoods, amenities, property types, deals, coordinates and title
// words of real listings), sent one at a time; their latency percentiles beside the plain page 1
// timed the same way in the same run, the worst requests, and §25's goals. Then /health and a
// plain page timed while four of the dearest searches loop.
import { Prng } from "../../src/seed/prng.ts";
import { getJson } from "./api.ts";

/** §25's goals at 1M listings on the two-core machine (docs/reference/behaviour-load.md). */
export const MIX_GOALS = {
  list: { p99: 300, max: 1_000 },
  facets: { p99: 500, max: 2_000 },
  health: { p99: 100 },
} as const;

const FACET_NAMES = ["city", "neighborhood", "uf", "propertyType", "operationType", "bedrooms", "amenities"];
const SORTS = ["createdAt", "-createdAt", "updatedAt", "-updatedAt", "price", "-price", "area", "-area"];
const FIELDS = ["id", "title", "address", "features", "pricing"];
/** The four dearest searches, looped while /health is timed. */
export const DEAR_LOOP = [
  `/v1/facets/properties?facets=${FACET_NAMES.join(",")}&q=a`,
  "/v1/facets/properties?facets=city,bedrooms&q=casa",
  "/v1/facets/properties?facets=bedrooms&minPrice=1",
  "/v1/properties?fields=id,title&minBedrooms=3&maxPrice=900000&sort=price&page=300",
];

/** What the generator draws from, read from the running server. */
export interface MixSpace {
  cities: string[];
  neighborhoods: Map<string, string[]>;
  ufs: string[];
  amenities: string[];
  propertyTypes: string[];
  operationTypes: string[];
  /** Coordinates of real listings. */
  points: [number, number][];
  /** Words of real listings' titles. */
  words: string[];
  /** Listings in all, for drawing pages anywhere. */
  total: number;
}

interface Values {
  data: { values: string[] };
}

export async function discoverSpace(base: string, token: string): Promise<MixSpace> {
  const values = async (path: string) => (await getJson<Values>(base, token, path)).data.values;
  const cities = await values("/v1/values/properties/city");
  const neighborhoods = new Map<string, string[]>();
  // The neighbourhoods of the biggest cities at most (each is a request); others search by city.
  for (const city of cities.slice(0, 25))
    neighborhoods.set(city, await values(`/v1/values/properties/neighborhood?city=${encodeURIComponent(city)}`));
  const page = await getJson<{
    data: { title?: string; address?: { latitude?: number | null; longitude?: number | null } }[];
    meta: { total: number };
  }>(base, token, "/v1/properties?fields=title,address&limit=100");
  const sampled = [...page.data];
  for (const p of [2, 7, 23]) {
    const more = await getJson<typeof page>(base, token, `/v1/properties?fields=title,address&limit=100&page=${p}`);
    sampled.push(...more.data);
  }
  const points = sampled
    .map((l) => [l.address?.latitude, l.address?.longitude] as const)
    .filter((p): p is readonly [number, number] => typeof p[0] === "number" && typeof p[1] === "number")
    .map(([lat, lng]) => [lat, lng] as [number, number]);
  const words = [
    ...new Set(
      sampled.flatMap((l) =>
        (l.title ?? "")
          .toLowerCase()
          .split(/[^\p{L}\p{N}]+/u)
          .filter((w) => w.length >= 3),
      ),
    ),
  ];
  return {
    cities,
    neighborhoods,
    ufs: await values("/v1/values/properties/uf"),
    amenities: await values("/v1/values/properties/amenities"),
    propertyTypes: await values("/v1/values/properties/propertyType"),
    operationTypes: await values("/v1/values/properties/operationType"),
    points,
    words,
    total: page.meta.total,
  };
}

export interface MixRequest {
  kind: "list" | "facets";
  /** The path without its `fields` (lists) or `facets` (facets) part: what the report shows. */
  query: string;
}

/** Price bands a website offers, per deal. */
const BANDS: Record<string, number[]> = {
  SALE: [150_000, 250_000, 400_000, 600_000, 900_000, 1_500_000, 3_000_000],
  RENT: [800, 1_500, 2_500, 4_000, 7_000, 12_000],
  SEASONAL: [150, 300, 600, 1_200],
};

/** `n` requests drawn with `seed`: three lists for two facets, each a website's plausible search. */
export function drawMix(space: MixSpace, n: number, seed = 25): MixRequest[] {
  const rng = new Prng(seed);
  const e = encodeURIComponent;
  const some = <T>(items: readonly T[], max: number) => {
    const count = rng.int(1, Math.min(max, items.length));
    const picked = new Set<T>();
    while (picked.size < count) picked.add(rng.pick(items));
    return [...picked];
  };
  const out: MixRequest[] = [];
  for (let i = 0; i < n; i++) {
    const kind = rng.chance(0.6) ? "list" : "facets";
    const params: string[] = [];
    // Where: a city (and maybe its neighbourhoods), a state, a spot on the map, or anywhere.
    const where = rng.float();
    if (where < 0.45 && space.cities.length > 0) {
      const city = rng.pick(space.cities);
      params.push(`city=${e(city)}`);
      const hoods = space.neighborhoods.get(city) ?? [];
      if (hoods.length > 0 && rng.chance(0.4)) params.push(`neighborhood=${e(some(hoods, 3).join(","))}`);
    } else if (where < 0.55 && space.ufs.length > 0) params.push(`uf=${e(rng.pick(space.ufs))}`);
    else if (where < 0.65 && space.points.length > 0) {
      const [lat, lng] = rng.pick(space.points);
      if (rng.chance(0.5)) params.push(`near=${lat.toFixed(4)},${lng.toFixed(4)}`, `radius=${rng.int(300, 8_000)}`);
      else {
        const d = rng.between(0.005, 0.08);
        const box = [lat - d, lng - d, lat + d, lng + d].map((v) => v.toFixed(4)).join(",");
        params.push(`bbox=${box}`);
      }
    }
    const deal = rng.chance(0.6) ? rng.pick(space.operationTypes) : null;
    if (deal !== null) params.push(`operationType=${deal}`);
    if (rng.chance(0.3) && space.propertyTypes.length > 0)
      params.push(`propertyType=${e(rng.pick(space.propertyTypes))}`);
    if (rng.chance(0.35)) {
      const bands = BANDS[deal ?? rng.pick(["SALE", "RENT"])] ?? BANDS.SALE!;
      const at = rng.int(0, bands.length - 2);
      const shape = rng.float();
      if (shape < 0.4) params.push(`minPrice=${bands[at]}`, `maxPrice=${bands[at + 1]}`);
      else if (shape < 0.7) params.push(`maxPrice=${bands[at + 1]}`);
      else params.push(`minPrice=${bands[at]}`);
    }
    const minBedrooms = rng.chance(0.3) ? rng.int(1, 4) : 0;
    if (minBedrooms > 0) params.push(`minBedrooms=${minBedrooms}`);
    // A website never offers a maximum below the minimum it offers.
    if (rng.chance(0.05)) params.push(`maxBedrooms=${rng.int(Math.max(1, minBedrooms), 4)}`);
    if (rng.chance(0.1)) params.push(`minBathrooms=${rng.int(1, 3)}`);
    if (rng.chance(0.1)) params.push(`minSuites=${rng.int(1, 2)}`);
    if (rng.chance(0.1)) params.push(`minParkingSpaces=${rng.int(1, 3)}`);
    if (rng.chance(0.15)) {
      const low = rng.pick([30, 50, 70, 100, 150, 250]);
      if (rng.chance(0.5)) params.push(`minArea=${low}`);
      if (rng.chance(0.6)) params.push(`maxArea=${low * rng.int(2, 4)}`);
    }
    if (rng.chance(0.15) && space.amenities.length > 0)
      params.push(`amenities=${e(some(space.amenities, 2).join(","))}`);
    for (const flag of ["isFurnished", "acceptsFinancing", "exclusive"])
      if (rng.chance(0.07)) params.push(`${flag}=${rng.chance(0.7)}`);
    if (rng.chance(0.25) && space.words.length > 0) {
      const words = some(space.words, 2);
      // The last word as typed so far: often a short prefix.
      const last = words.pop()!;
      words.push(rng.chance(0.4) ? last.slice(0, rng.int(1, Math.min(4, last.length))) : last);
      params.push(`q=${e(words.join(" "))}`);
    }
    if (kind === "list") {
      if (rng.chance(0.5)) params.push(`sort=${rng.pick(SORTS)}`);
      const page = rng.float();
      if (page < 0.25) params.push(`page=${rng.int(2, 10)}`);
      else if (page < 0.4)
        params.push(`page=${Math.ceil(Math.exp(rng.between(Math.log(10), Math.log(space.total / 20 + 11))))}`);
    } else params.push(`facets=${some(FACET_NAMES, 7).join(",")}`);
    out.push({ kind, query: params.join("&") });
  }
  return out;
}

/**
 * The `fields` of the n-th list request: the same five fields in another order (or with `id`
 * repeated), so its raw query is new and no cached page answers, for the same work.
 */
export function freshFields(n: number): string {
  const order = [...FIELDS];
  let k = n;
  for (let i = order.length - 1; i > 0; i--) {
    const j = k % (i + 1);
    k = Math.floor(k / (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  return [...order, ...Array<string>(k % 8).fill("id")].join(",");
}

export interface Timed {
  kind: "list" | "facets" | "plain";
  path: string;
  ms: number;
  status: number;
}

export interface Percentiles {
  n: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

export function percentiles(values: readonly number[]): Percentiles {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.max(0, Math.ceil((sorted.length * p) / 100) - 1)] ?? Number.NaN;
  return { n: sorted.length, p50: at(50), p95: at(95), p99: at(99), max: sorted.at(-1) ?? Number.NaN };
}

export interface SearchMixResult {
  requests: Timed[];
  lists: Percentiles;
  facets: Percentiles;
  plain: Percentiles;
  /** Answers other than 200, by status (a 422 is a search cut at the deadline). */
  statuses: Record<string, number>;
  /** While the four DEAR_LOOP searches loop: /health and a plain page. */
  underLoad: { health: Percentiles; page: Percentiles; dearAnswered: Record<string, number> };
}

async function time(base: string, path: string, token: string | null): Promise<{ ms: number; status: number }> {
  const started = performance.now();
  const response = await fetch(base + path, token === null ? {} : { headers: { Authorization: `Bearer ${token}` } });
  await response.arrayBuffer();
  return { ms: performance.now() - started, status: response.status };
}

/** Runs the mix (one request at a time) and the /health measurement on the product at `base`. */
export async function runSearchMix(
  base: string,
  token: string,
  log: (line: string) => void,
  options: { requests?: number; seed?: number; loadSeconds?: number } = {},
): Promise<SearchMixResult> {
  const space = await discoverSpace(base, token);
  const mix = drawMix(space, options.requests ?? 400, options.seed ?? 25);
  log(
    `search-mix: ${mix.length} requests over ${space.cities.length} cities, ${space.amenities.length} amenities, ${space.words.length} title words`,
  );
  const requests: Timed[] = [];
  const statuses: Record<string, number> = {};
  for (let i = 0; i < mix.length; i++) {
    const { kind, query } = mix[i]!;
    const path =
      kind === "list" ? `/v1/properties?fields=${freshFields(i)}&limit=20&${query}` : `/v1/facets/properties?${query}`;
    const { ms, status } = await time(base, path, token);
    requests.push({ kind, path, ms, status });
    if (status !== 200) statuses[status] = (statuses[status] ?? 0) + 1;
    // The plain page 1 between every fourth request: the same way, in the same minutes.
    if (i % 4 === 0) {
      const plainPath = `/v1/properties?fields=${freshFields(i + 100_000)}&limit=20`;
      const plain = await time(base, plainPath, token);
      requests.push({ kind: "plain", path: plainPath, ms: plain.ms, status: plain.status });
    }
    if ((i + 1) % 100 === 0) log(`search-mix: ${i + 1}/${mix.length} done`);
  }
  const of = (kind: Timed["kind"]) => percentiles(requests.filter((r) => r.kind === kind).map((r) => r.ms));

  // /health and a plain page while four dear searches loop, as the issue measured them.
  let running = true;
  const dearAnswered: Record<string, number> = {};
  const loops = DEAR_LOOP.map(async (path) => {
    // A list's page is kept in the page cache: each of its requests asks another deep page.
    for (let n = 0; running; n++) {
      const { status } = await time(base, path.replace("page=300", `page=${300 + n}`), token);
      dearAnswered[status] = (dearAnswered[status] ?? 0) + 1;
    }
  });
  await Bun.sleep(1_000);
  const health: number[] = [];
  const page: number[] = [];
  const until = performance.now() + (options.loadSeconds ?? 10) * 1_000;
  for (let i = 0; performance.now() < until; i++) {
    health.push((await time(base, "/health", null)).ms);
    page.push((await time(base, `/v1/properties?fields=id,title,pricing&limit=20&page=${1 + (i % 50)}`, token)).ms);
    await Bun.sleep(10);
  }
  running = false;
  await Promise.all(loops);
  const underLoad = { health: percentiles(health), page: percentiles(page), dearAnswered };
  log(
    `search-mix: /health under four dear searches p99 ${underLoad.health.p99.toFixed(1)} ms (${health.length} samples), plain page p99 ${underLoad.page.p99.toFixed(1)} ms`,
  );
  return { requests, lists: of("list"), facets: of("facets"), plain: of("plain"), statuses, underLoad };
}
