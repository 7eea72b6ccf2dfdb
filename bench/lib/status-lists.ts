// The status-lists scenario (issue #37): the CRM's lead lists by status at 1M leads, cold, this
// build beside another (--compare). Schema 8 keeps no index led by the status: a list of one
// status walks the date index of its order, testing the status in the index entries, from where
// the per-day counters place its page (src/modules/lists/repo.ts). Every lead list path that the
// status indexes served is timed: both dates, both directions, page 1 and a deep page, under
// date bounds on either date, and beside a priority (which no counter holds with the status).
//
// Each build serves its own copy of the 1M dataset, seeded by itself (a build may not open a
// newer schema's file; the seed is deterministic, so the rows are the same). Every list's total
// and page are first checked against the file and against the other build. Then each list is
// requested cold, the builds taking turns sample by sample: right after a lead creation (a
// commit empties the read connection's page cache) and with a never-seen ignored parameter.
import { Database } from "bun:sqlite";
import { copyFileSync } from "node:fs";
import { join } from "node:path";
import { getJson, issueToken, postLead, timeGet } from "./api.ts";
import { loadAverage } from "./machine.ts";
import { unseenPath } from "./measure.ts";
import { freePort, type Server, startServer } from "./proc.ts";
import {
  BINARY,
  compareDataset,
  DATASET_1M,
  ensureDataset,
  OUT,
  ROOT,
  removeDatabase,
  sandboxArgv,
} from "./product.ts";
import { markedSection, writeMarkedSection } from "./sections.ts";
import { ratio, type Spread, spread } from "./stats.ts";

const FIELDS = "id,name,email,phone,status,createdAt";
const STATUS = "NEW_LEAD";
/** The rarest priority of the seed (8 %): beside a status, the longest walk to a page. */
const PRIORITY = "URGENT";
const DEEP_SHARE = 0.9;
const DEEP_LIMIT = 100;
const MARK_START = "<!-- status-lists:start -->";
const MARK_END = "<!-- status-lists:end -->";

type Sort = "-createdAt" | "createdAt" | "-updatedAt" | "updatedAt";
interface DateBound {
  param: "createdAfter" | "createdBefore" | "updatedAfter" | "updatedBefore";
  value: string;
}
interface ListSpec {
  title: string;
  sort: Sort;
  priority: boolean;
  dates: DateBound[];
  /** A page 90 % into the list (limit 100), or one given; else page 1 (limit 20). */
  deep: boolean | number;
}

export interface StatusListResult {
  title: string;
  path: string;
  total: number;
  page: number;
  /** Cold ms of this build and of the compared one. */
  product: Spread;
  compare: Spread;
}

export interface StatusListsResult {
  lists: StatusListResult[];
  exactness: string;
  samples: number;
  compareBinary: string;
  loadStart: string;
  loadEnd: string;
  commands: string[];
}

const COLUMN: Record<DateBound["param"], string> = {
  createdAfter: "created_at > ?",
  createdBefore: "created_at < ?",
  updatedAfter: "updated_at > ?",
  updatedBefore: "updated_at < ?",
};

/** The lists, with dates from the file: a month before its newest lead, and its middle. */
function listSpecs(file: string): ListSpec[] {
  const db = new Database(file, { readonly: true });
  const [first, last] = db.query("SELECT min(created_at), max(created_at) FROM leads").values()[0] as [string, string];
  db.close();
  const at = (ms: number) => new Date(ms).toISOString();
  const recent = at(Date.parse(last) - 30 * 86_400_000);
  const middle = at((Date.parse(first) + Date.parse(last)) / 2);
  const list = (title: string, sort: Sort, deep: boolean | number, more: Partial<ListSpec> = {}): ListSpec => ({
    title,
    sort,
    deep,
    priority: false,
    dates: [],
    ...more,
  });
  return [
    list("newest first, page 1", "-createdAt", false),
    list("newest first, deep page", "-createdAt", true),
    list("oldest first, page 1", "createdAt", false),
    list("oldest first, deep page", "createdAt", true),
    list("last updated first, page 1", "-updatedAt", false),
    list("last updated first, deep page", "-updatedAt", true),
    list("least recently updated first, page 1", "updatedAt", false),
    list("least recently updated first, deep page", "updatedAt", true),
    list("createdAfter a month ago, page 1", "-createdAt", false, {
      dates: [{ param: "createdAfter", value: recent }],
    }),
    list("createdBefore the middle, deep page", "-createdAt", true, {
      dates: [{ param: "createdBefore", value: middle }],
    }),
    list("updatedAfter the middle, by creation, deep page", "-createdAt", true, {
      dates: [{ param: "updatedAfter", value: middle }],
    }),
    list("createdAfter the middle, by last update, page 1", "-updatedAt", false, {
      dates: [{ param: "createdAfter", value: middle }],
    }),
    list(`priority=${PRIORITY}, page 1`, "-createdAt", false, { priority: true }),
    list(`priority=${PRIORITY}, page 40`, "-createdAt", 40, { priority: true }),
    list(`priority=${PRIORITY}, deep page`, "-createdAt", true, { priority: true }),
    list(`priority=${PRIORITY}, last updated first, page 1`, "-updatedAt", false, { priority: true }),
  ];
}

const pathOf = (spec: ListSpec, page: number, limit: number) => {
  const params = new URLSearchParams({ fields: FIELDS, status: STATUS });
  if (spec.priority) params.set("priority", PRIORITY);
  for (const d of spec.dates) params.set(d.param, d.value);
  if (spec.sort !== "-createdAt") params.set("sort", spec.sort);
  params.set("limit", String(limit));
  if (page > 1) params.set("page", String(page));
  return `/v1/leads?${decodeURIComponent(params.toString())}`;
};

type Page = { data: { id: string }[]; meta: { total: number } };

/** The list's total and page as a plain COUNT and LIMIT/OFFSET over the file read them. */
function fromFile(db: Database, spec: ListSpec, page: number, limit: number): { ids: string[]; total: number } {
  const where = ["status = ?", ...(spec.priority ? ["priority = ?"] : []), ...spec.dates.map((d) => COLUMN[d.param])];
  const params = [STATUS, ...(spec.priority ? [PRIORITY] : []), ...spec.dates.map((d) => d.value)];
  const sql = `FROM leads WHERE ${where.join(" AND ")}`;
  const total = (db.query(`SELECT count(*) ${sql}`).values(...params)[0] as [number])[0];
  const column = spec.sort.endsWith("updatedAt") ? "updated_at" : "created_at";
  const direction = spec.sort.startsWith("-") ? "DESC" : "ASC";
  const ids = (
    db
      .query(`SELECT id ${sql} ORDER BY ${column} ${direction}, id ${direction} LIMIT ? OFFSET ?`)
      .values(...params, limit, (page - 1) * limit) as [string][]
  ).map((r) => r[0]);
  return { ids, total };
}

async function startOn(name: string, binary: string, file: string, core: number): Promise<Server> {
  const port = freePort();
  return startServer({
    name,
    argv: sandboxArgv(file, port, binary),
    core,
    port,
    logFile: join(OUT, `status-lists-${name}.log`),
    readyTimeoutMs: 300_000,
  });
}

export async function runStatusListsBench(options: {
  compareBinary: string;
  samples: number;
  serverCore: number;
  log: (line: string) => void;
}): Promise<StatusListsResult> {
  const { log } = options;
  const loadStart = loadAverage();
  const sources = {
    product: ensureDataset(DATASET_1M, log),
    compare: compareDataset(options.compareBinary, DATASET_1M, log),
  };
  const copies = {
    product: join(OUT, "status-lists-product.sqlite"),
    compare: join(OUT, "status-lists-compare.sqlite"),
  };
  const servers: Server[] = [];
  try {
    for (const side of ["product", "compare"] as const) {
      removeDatabase(copies[side]);
      log(`status-lists: copying ${sources[side]} …`);
      copyFileSync(sources[side], copies[side]);
    }
    Bun.spawnSync(["sync"]);
    const product = await startOn("product", BINARY, copies.product, options.serverCore);
    servers.push(product);
    const compare = await startOn("compare", options.compareBinary, copies.compare, options.serverCore);
    servers.push(compare);
    const both = [product, compare] as const;
    const tokens = new Map<Server, string>();
    for (const server of both) tokens.set(server, await issueToken(server.base));

    // Totals and pages checked before any lead is created: the file's, and the same on both builds.
    const file = new Database(copies.product, { readonly: true });
    const planned: { spec: ListSpec; path: string; page: number; total: number }[] = [];
    try {
      for (const spec of listSpecs(copies.product)) {
        const { total } = fromFile(file, spec, 1, 20);
        const limit = spec.deep === false ? 20 : DEEP_LIMIT;
        const page =
          typeof spec.deep === "number"
            ? spec.deep
            : spec.deep
              ? Math.max(1, Math.round((total * DEEP_SHARE) / limit))
              : 1;
        const path = pathOf(spec, page, limit);
        const want = fromFile(file, spec, page, limit);
        for (const server of both) {
          const got = await getJson<Page>(server.base, tokens.get(server)!, path);
          if (got.meta.total !== want.total || got.data.map((r) => r.id).join() !== want.ids.join())
            throw new Error(`status-lists: ${server.name} ${path} differs from the file's page and total`);
        }
        if (want.ids.length === 0) throw new Error(`status-lists: ${path} is empty`);
        planned.push({ spec, path, page, total });
      }
    } finally {
      file.close();
    }
    log(`status-lists: ${planned.length} lists, each equal on both builds to the file's COUNT and LIMIT/OFFSET`);

    const lists: StatusListResult[] = [];
    for (const { spec, path, page, total } of planned) {
      const cold = new Map<Server, number[]>(both.map((s) => [s, []]));
      for (let i = 0; i < options.samples; i++) {
        for (const server of i % 2 === 0 ? both : [...both].reverse()) {
          const token = tokens.get(server)!;
          await postLead(server.base, token);
          cold.get(server)!.push(await timeGet(server.base, token, unseenPath(path)));
        }
      }
      const result = {
        title: spec.title,
        path,
        total,
        page,
        product: spread(cold.get(product)!),
        compare: spread(cold.get(compare)!),
      };
      lists.push(result);
      log(
        `status-lists ${spec.title.padEnd(48)} cold ${result.product.median.toFixed(2)} ms / ${result.compare.median.toFixed(2)} ms (compare)`,
      );
    }
    return {
      lists,
      exactness: `every list's meta.total and page ids equal, on both builds, a plain \`SELECT count(*)\` and \`ORDER BY … LIMIT … OFFSET …\` of the file (checked before the first sample)`,
      samples: options.samples,
      compareBinary: options.compareBinary,
      loadStart,
      loadEnd: loadAverage(),
      commands: both.map((s) => s.command.replaceAll(`${ROOT}/`, "")),
    };
  } finally {
    for (const server of servers) await server.stop();
    for (const copy of Object.values(copies)) removeDatabase(copy);
  }
}

export function statusListsSection(
  result: StatusListsResult,
  context: { date: Date; version: string; commit: string; compareCommit: string | null },
): string {
  const ms = (n: number) => (n < 10 ? n.toFixed(2) : n.toFixed(1));
  const range = (s: Spread) => `${ms(s.median)} (${ms(s.min)}–${ms(s.max)})`;
  const rows = result.lists.map(
    (l) =>
      `| ${l.title} | \`${l.path.replace(`fields=${FIELDS}&`, "")}\` | ${l.total.toLocaleString("en-US")} | ${range(l.product)} | ${range(l.compare)} | ${ratio(l.product.median, l.compare.median).toFixed(2)}× |`,
  );
  return markedSection(
    MARK_START,
    MARK_END,
    [
      "### The CRM's status lists at 1M, cold (`--only status-lists`)",
      "",
      `Run ${context.date.toISOString()}, ${context.version}, commit ${context.commit}, beside \`${result.compareBinary}\`${context.compareCommit ? ` (commit ${context.compareCommit})` : ""}, each on its own copy of the 1M dataset seeded by itself, both on core 0; load average ${result.loadStart} at the start, ${result.loadEnd} at the end. ` +
        `The sandbox client (every scope), \`fields=${FIELDS}\`, \`status=${STATUS}\`. Cold: the first request after a lead creation, with a never-seen ignored parameter, timed from the runner; ${result.samples} samples per build, the builds taking turns; median (min–max) ms. ${result.exactness}.`,
      "",
      "| list | query | total | this build, cold ms | compared build, cold ms | ÷ (medians) |",
      "|---|---|---|---|---|---|",
      ...rows,
    ],
    result.commands,
  );
}

export function writeStatusListsSection(section: string): void {
  writeMarkedSection(MARK_START, MARK_END, section);
}
