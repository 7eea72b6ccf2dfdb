// What the bench measures: the load scenarios of the issue and the per-filter page queries,
// built from values discovered in the running product (a real propertyType, highlight and
// code, mid-range dates, the change feed's head) so every query selects real rows.
import { getJson } from "./api.ts";

/**
 * Servers of a scenario; "limiter-on"/"limiter-off" are bench/baselines/limiter-switch.ts;
 * "limiter-redis" the same with its limits in a redis-server; "compare" is another build of the
 * product given with --compare (e.g. the one before a change); "workers-1"/"workers-2" are
 * `serve` with one process and with `--workers 2` sharing Redis.
 */
export type Target =
  | "product"
  | "ceiling"
  | "baseline"
  | "limiter-on"
  | "limiter-off"
  | "limiter-redis"
  | "compare"
  | "workers-1"
  | "workers-2";

export interface Scenario {
  id: string;
  title: string;
  /** Script in bench/wrk/. */
  script: string;
  /** The path wrk sends (or the default read path of the mixed script). */
  path: string;
  /** Extra arguments for the script's init(). */
  args?: string[];
  /** Extra environment of the script (never secrets that are not the sandbox's public ones). */
  env?: Record<string, string>;
  /** Routes the ceiling must answer for this scenario. */
  captures: { method: "GET" | "POST"; path: string }[];
  targets: Target[];
  /** Adds rows to the database: measured after every read-only scenario. */
  writes: boolean;
  /** A list request measured alongside (2 connections) to show reads keep answering. */
  probe?: string;
}

export interface FilterQuery {
  filter: string;
  page: 1 | 5000;
  path: string;
}

export interface Discovered {
  propertyFields: string[];
  leadFields: string[];
  propertyType: string;
  highlight: string;
  code: string;
  /** Per date filter of the properties list, a bound that 60 % of the listings pass. */
  propertyBounds: Record<"createdAfter" | "createdBefore" | "updatedAfter" | "updatedBefore", string>;
  leadsMidCreated: string;
  head: number;
}

type Page<T> = { data: T[]; meta: { head?: number; total?: number } };

function midpoint(a: string, b: string): string {
  return new Date((Date.parse(a) + Date.parse(b)) / 2).toISOString();
}

async function midDate(base: string, token: string, entity: string, field: "createdAt" | "updatedAt"): Promise<string> {
  const path = `/v1/${entity}?fields=${field}&limit=1&sort=`;
  const [first] = (await getJson<Page<Record<string, string>>>(base, token, `${path}${field}`)).data;
  const [last] = (await getJson<Page<Record<string, string>>>(base, token, `${path}-${field}`)).data;
  if (!first || !last) throw new Error(`no ${entity} to take dates from`);
  return midpoint(first[field]!, last[field]!);
}

/**
 * The date of the row `share` of the way through the list in ascending order of `field`: so
 * that a filter keeps the same share of rows at any dataset size, and page 5000 exists at 1M.
 */
async function dateAtShare(
  base: string,
  token: string,
  entity: string,
  field: "createdAt" | "updatedAt",
  share: number,
): Promise<string> {
  const path = `/v1/${entity}?fields=${field}&limit=1&sort=${field}`;
  const total = (await getJson<Page<unknown>>(base, token, path)).meta.total ?? 0;
  const [row] = (
    await getJson<Page<Record<string, string>>>(base, token, `${path}&page=${Math.floor(total * share) + 1}`)
  ).data;
  if (!row) throw new Error(`no ${entity} to take dates from`);
  return row[field]!;
}

export async function discover(base: string, token: string): Promise<Discovered> {
  const fields = (await getJson<{ data: { properties: object; leads: object } }>(base, token, "/v1/fields")).data;
  const values = async (field: string) =>
    (await getJson<{ data: { values: string[] } }>(base, token, `/v1/values/properties/${field}`)).data.values;
  const withCode = (
    await getJson<Page<{ code: string | null }>>(base, token, "/v1/properties?fields=code&limit=100")
  ).data.find((p) => p.code);
  const feed = await getJson<Page<unknown>>(base, token, "/v1/changes?entity=properties&after=0&limit=1");
  const [propertyType] = await values("propertyType");
  const highlights = await values("highlight");
  if (!propertyType || highlights.length === 0 || !withCode?.code || feed.meta.head === undefined)
    throw new Error("the dataset lacks the values the scenarios need");
  return {
    propertyFields: Object.keys(fields.properties),
    leadFields: Object.keys(fields.leads),
    propertyType,
    // A middle tier rather than the first: the first is usually the most common one.
    highlight: highlights[Math.min(1, highlights.length - 1)]!,
    code: withCode.code,
    propertyBounds: {
      createdAfter: await dateAtShare(base, token, "properties", "createdAt", 0.4),
      createdBefore: await dateAtShare(base, token, "properties", "createdAt", 0.6),
      updatedAfter: await dateAtShare(base, token, "properties", "updatedAt", 0.4),
      updatedBefore: await dateAtShare(base, token, "properties", "updatedAt", 0.6),
    },
    leadsMidCreated: await midDate(base, token, "leads", "createdAt"),
    head: feed.meta.head,
  };
}

const q = encodeURIComponent;

/** The target scenario of the issue: few fields, 20 rows, bearer token, limiter on. */
export const PROPS_FEW = "/v1/properties?fields=id,title,pricing&limit=20";

export function scenarios(d: Discovered): Scenario[] {
  const propsAll = `/v1/properties?fields=${d.propertyFields.join(",")}&limit=20`;
  const leadsStatus = `/v1/leads?fields=${d.leadFields.join(",")}&status=NEW_LEAD&limit=20`;
  const leadsDate = `/v1/leads?fields=${d.leadFields.join(",")}&createdAfter=${q(d.leadsMidCreated)}&limit=20`;
  const deepPage = "/v1/properties?fields=id,title,pricing&page=5000&limit=100";
  const changesHead = `/v1/changes?entity=properties&after=${d.head}&limit=100`;
  const get = (path: string) => [{ method: "GET" as const, path }];
  const read = (id: string, title: string, path: string): Scenario => ({
    id,
    title,
    script: "bearer.lua",
    path,
    captures: get(path),
    targets: ["product", "ceiling"],
    writes: false,
  });
  // Reads of the mixed scenario: the first pages a portal walks, plus the CRM's lead lists.
  const mixedReads = [1, 2, 3, 4, 5]
    .map((page) => `${PROPS_FEW}&page=${page}`)
    .concat([propsAll, leadsStatus, leadsDate, changesHead]);
  return [
    {
      id: "token",
      title: "POST /v1/auth/token (token issue)",
      script: "token-refresh.lua",
      path: "/v1/auth/token",
      captures: [{ method: "POST", path: "/v1/auth/token" }],
      targets: ["product", "ceiling"],
      writes: false,
    },
    read("props-few", "GET properties, fields=id,title,pricing, limit=20", PROPS_FEW),
    read("props-all", "GET properties, all fields (photos included), limit=20", propsAll),
    read("leads-status", "GET leads, all fields, status=NEW_LEAD", leadsStatus),
    read("leads-date", "GET leads, all fields, createdAfter=<mid>", leadsDate),
    read("deep-page", "GET properties, page=5000&limit=100", deepPage),
    read("changes-head", "GET changes, after=<head>", changesHead),
    // The props-few route served from source with the rate-limit step on and off (same run).
    {
      id: "limiter",
      title: "GET properties (props-few) with the limiter on vs off, and in Redis",
      script: "bearer.lua",
      path: PROPS_FEW,
      captures: [],
      targets: ["limiter-on", "limiter-off", "limiter-redis"],
      writes: false,
    },
    // serve with one process vs two sharing the port and Redis; the second may use both cores, wrk's included.
    {
      id: "workers",
      title: "GET properties (props-few): serve vs serve --workers 2",
      script: "bearer.lua",
      path: PROPS_FEW,
      captures: [],
      targets: ["workers-1", "workers-2"],
      writes: false,
    },
    {
      id: "post-leads",
      title: "POST /v1/leads (durable), nothing else running",
      script: "post-leads.lua",
      path: "/v1/leads",
      captures: [{ method: "POST", path: "/v1/leads" }],
      targets: ["product", "ceiling", "baseline"],
      writes: true,
    },
    {
      // The same load while a CRM keeps reading a lead list: does the list keep answering?
      id: "post-leads-reads",
      title: "POST /v1/leads while 2 connections read a lead list",
      script: "post-leads.lua",
      path: "/v1/leads",
      captures: [{ method: "POST", path: "/v1/leads" }],
      targets: ["product"],
      writes: true,
      probe: leadsStatus,
    },
    {
      id: "mixed",
      title: "mixed: 90 % reads, 10 % lead creations",
      script: "mixed.lua",
      path: PROPS_FEW,
      args: mixedReads,
      captures: [{ method: "POST", path: "/v1/leads" }, ...mixedReads.flatMap(get)],
      targets: ["product", "ceiling"],
      writes: true,
    },
  ];
}

/** Page 1 and page 5000 (limit 100) of the properties list under each filter and sort. */
export function filterQueries(d: Discovered): FilterQuery[] {
  const filters: [string, string][] = [
    ["none", ""],
    ["status", "status=AVAILABLE"],
    ["operationType", "operationType=SALE"],
    ["propertyType", `propertyType=${q(d.propertyType)}`],
    ["highlight", `highlight=${q(d.highlight)}`],
    ["code", `code=${q(d.code)}`],
    ["createdAfter", `createdAfter=${q(d.propertyBounds.createdAfter)}`],
    ["createdBefore", `createdBefore=${q(d.propertyBounds.createdBefore)}`],
    ["updatedAfter", `updatedAfter=${q(d.propertyBounds.updatedAfter)}`],
    ["updatedBefore", `updatedBefore=${q(d.propertyBounds.updatedBefore)}`],
    ["sort=createdAt", "sort=createdAt"],
    ["sort=-createdAt", "sort=-createdAt"],
    ["sort=updatedAt", "sort=updatedAt"],
    ["sort=-updatedAt", "sort=-updatedAt"],
  ];
  return filters.flatMap(([filter, param]) =>
    ([1, 5000] as const).map((page) => ({
      filter,
      page,
      path: `/v1/properties?fields=id,title,pricing&limit=100&page=${page}${param ? `&${param}` : ""}`,
    })),
  );
}
