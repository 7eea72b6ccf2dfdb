// The `search` scenario: what an agency website's search page asks (docs/partners/search.md),
// each query uncached (written in a way it never sent before), one request at a time, on the
// product's core: its median, its exact total, and its ratio to the plain page-1 list timed
// the same way in the same run.
import { getJson, timeGet } from "./api.ts";
import { unseenPath } from "./measure.ts";
import { type Spread, spread } from "./stats.ts";

export interface SearchQuery {
  /** What it stands for, as the report shows it. */
  name: string;
  kind: "plain" | "filter" | "combination" | "deep" | "facets";
  path: string;
}

export interface SearchResult {
  query: SearchQuery;
  /** Uncached single requests, ms. */
  ms: Spread;
  total: number;
  /** The same query on the --compare build, its requests taking turns with these. */
  compare?: { ms: Spread; total: number };
}

/** A server the queries are sent to. */
export interface SearchTarget {
  base: string;
  token: string;
}

export const LIST_GOAL_MS = 30;
export const FACETS_GOAL_MS = 120;

const LIST = "/v1/properties?fields=id,title,address,features,pricing&limit=20";
const FACETS = "/v1/facets/properties?facets=city,neighborhood,uf,propertyType,operationType,bedrooms,amenities";
const e = encodeURIComponent;

/** A point and a box in Pinheiros, São Paulo, where the seed puts listings at any size. */
const PINHEIROS = "-23.5614,-46.6919";
const PINHEIROS_BOX = "-23.58,-46.71,-23.54,-46.67";

export function searchQueries(): SearchQuery[] {
  const alone: [string, string][] = [
    ["city", `city=${e("São Paulo")}`],
    ["neighborhood", "neighborhood=Pinheiros"],
    ["uf", "uf=RJ"],
    ["minPrice+maxPrice", "minPrice=500000&maxPrice=900000"],
    ["minBedrooms", "minBedrooms=3"],
    ["maxBedrooms", "maxBedrooms=1"],
    ["minBathrooms", "minBathrooms=3"],
    ["minSuites", "minSuites=2"],
    ["minParkingSpaces", "minParkingSpaces=2"],
    ["minArea+maxArea", "minArea=100&maxArea=200"],
    ["amenities", "amenities=Piscina"],
    ["isFurnished", "isFurnished=true"],
    ["acceptsFinancing", "acceptsFinancing=true"],
    ["exclusive", "exclusive=true"],
    ["q (one word)", "q=cobertura"],
    ["q (words, last a prefix)", `q=${e("apartamento varanda gourm")}`],
    ["bbox", `bbox=${PINHEIROS_BOX}`],
    ["near+radius", `near=${PINHEIROS}&radius=1500`],
    ["sort=price", "sort=price"],
    ["sort=-price", "sort=-price"],
    ["sort=area", "sort=area"],
    ["sort=-area", "sort=-area"],
  ];
  const combinations: [string, string][] = [
    [
      "Pinheiros or Vila Madalena, 2+ bedrooms, up to R$ 1.2M, pool, cheapest first",
      `city=${e("São Paulo")}&neighborhood=${e("Pinheiros,Vila Madalena")}&operationType=SALE&minBedrooms=2&maxPrice=1200000&amenities=Piscina&sort=price`,
    ],
    [
      "Rio, furnished rent, 2+ bedrooms, up to R$ 5,000, newest first",
      `city=${e("Rio de Janeiro")}&operationType=RENT&isFurnished=true&minBedrooms=2&maxPrice=5000`,
    ],
    [
      "apartments for sale within 2 km, 60+ m², dearest first",
      `near=${PINHEIROS}&radius=2000&operationType=SALE&propertyType=Apartamento&minArea=60&sort=-price`,
    ],
    [
      '"cobertura" in SP or Rio, 2+ suites, largest first',
      `q=cobertura&city=${e("São Paulo,Rio de Janeiro")}&minSuites=2&sort=-area`,
    ],
    [
      "SP state, financing, R$ 300–600k, a parking space, cheapest first",
      "uf=SP&operationType=SALE&acceptsFinancing=true&minPrice=300000&maxPrice=600000&minParkingSpaces=1&sort=price",
    ],
  ];
  return [
    { name: "no filter (the plain page-1 list)", kind: "plain", path: LIST },
    ...alone.map(([name, q]): SearchQuery => ({ name, kind: "filter", path: `${LIST}&${q}` })),
    ...combinations.map(([name, q]): SearchQuery => ({ name, kind: "combination", path: `${LIST}&${q}` })),
    { name: "sales, cheapest first, page 500", kind: "deep", path: `${LIST}&operationType=SALE&sort=price&page=500` },
    {
      name: "São Paulo, dearest first, page 200",
      kind: "deep",
      path: `${LIST}&city=${e("São Paulo")}&sort=-price&page=200`,
    },
    { name: "combination 1, page 3", kind: "deep", path: `${LIST}&${combinations[0]![1]}&page=3` },
    { name: "facets, no filter", kind: "facets", path: FACETS },
    { name: "facets, São Paulo sales", kind: "facets", path: `${FACETS}&city=${e("São Paulo")}&operationType=SALE` },
    // Its filters without its order: facets take no `sort` (an unknown parameter there).
    {
      name: "facets, combination 1",
      kind: "facets",
      path: `${FACETS}&${combinations[0]![1].replace(/&sort=[^&]*/, "")}`,
    },
  ];
}

/**
 * Each query `samples` times, never from the page cache (its `fields` or `facets` written anew
 * each time, measure.ts's unseenPath); with `compare`, on both servers, taking turns request by
 * request (alternating which goes first), so a slow patch of the machine hits both.
 */
export async function runSearchBench(
  product: SearchTarget,
  samples: number,
  log: (line: string) => void,
  compare: SearchTarget | null = null,
): Promise<SearchResult[]> {
  const results: SearchResult[] = [];
  const totalOf = async ({ base, token }: SearchTarget, path: string) => {
    const first = await getJson<{ meta?: { total: number }; data: { total?: number } }>(base, token, unseenPath(path));
    return first.meta?.total ?? first.data.total ?? -1;
  };
  for (const query of searchQueries()) {
    const targets = compare === null ? [product] : [product, compare];
    const totals: number[] = [];
    for (const target of targets) totals.push(await totalOf(target, query.path));
    const times: number[][] = targets.map(() => []);
    for (let i = 0; i < samples; i++) {
      const order = i % 2 === 0 ? targets.keys() : [...targets.keys()].reverse();
      for (const t of order) times[t]!.push(await timeGet(targets[t]!.base, targets[t]!.token, unseenPath(query.path)));
    }
    const result: SearchResult = { query, ms: spread(times[0]!), total: totals[0]! };
    if (compare !== null) result.compare = { ms: spread(times[1]!), total: totals[1]! };
    results.push(result);
    const beside = result.compare ? `; compared build ${result.compare.ms.median.toFixed(1)} ms` : "";
    log(`search: ${query.name}: median ${result.ms.median.toFixed(1)} ms, total ${result.total}${beside}`);
  }
  return results;
}
