// The own-leads scenario (issue #37): a client with the default scopes lists only the leads it
// created (the createdBy filter forced to it), which should take the same fast paths as the
// CRM's list of every lead. On a copy of the 1M dataset whose leads belong to 20 clients
// (owners.ts), `serve` answers the CRM (`leads:read`) and portal-07 (default scopes, about
// 50,000 leads); page 1, a deep page at 90 % of each list and the same with status=NEW_LEAD are
// measured for both, side by side in the same rounds, alternating which goes first.
//
// Each query runs twice under wrk: as sent (after the first request the product answers from
// its page cache, exact while the database is unchanged) and with a never-seen ignored
// parameter on every request (computed.lua), so every response is computed from the database.
// Totals and page rows are checked against the file first.
import { Database } from "bun:sqlite";
import { copyFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { hashSecret } from "../../src/security/secrets.ts";
import { getJson, issueToken, postLead, timeGet } from "./api.ts";
import { type LoadSettings, measure, measureQuietly, type Sample, type SingleTimings, unseenPath } from "./measure.ts";
import { assignOwners, type OwnerAssignment } from "./owners.ts";
import { freePort, processCpuS, type Server, startServer } from "./proc.ts";
import { BINARY, DATASET_1M, ensureDataset, OUT, ROOT, removeDatabase } from "./product.ts";
import type { Scenario } from "./scenarios.ts";
import { writeMarkedSection } from "./sections.ts";
import { ratio, type Spread, spread } from "./stats.ts";
import { wrkCommandLine } from "./wrk.ts";

export const OWNERS = Array.from({ length: 20 }, (_, i) => `portal-${String(i + 1).padStart(2, "0")}`);
const PORTAL = "portal-07";
const CRM = "crm";
/** Creates the leads of the cold measurements: not one of the owners, so their lists stay as assigned. */
const WEBSITE = "website";
const READERS = [CRM, PORTAL] as const;
type Reader = (typeof READERS)[number];
const FIELDS = "id,name,email,phone,status,createdAt";
/** Where the deep page is, as a share of its list. */
const DEEP_SHARE = 0.9;
const DEEP_LIMIT = 100;
const MARK_START = "<!-- own-leads:start -->";
const MARK_END = "<!-- own-leads:end -->";

const credentials = (id: string) => ({ key: `pk_bench_${id}`, secret: `sk_bench_${id}` });

/**
 * The lists measured for each reader: page 1 and the deep page, without and with a status filter,
 * and page 1 and the deep page by last update (the owner's index is in creation order).
 */
const LISTS = [
  { id: "page-1", status: false, deep: false, updated: false },
  { id: "deep", status: false, deep: true, updated: false },
  { id: "status", status: true, deep: false, updated: false },
  { id: "status-deep", status: true, deep: true, updated: false },
  { id: "updated", status: false, deep: false, updated: true },
  { id: "updated-deep", status: false, deep: true, updated: true },
] as const;
type ListId = (typeof LISTS)[number]["id"];
const MODES = ["cached", "computed"] as const;
type Mode = (typeof MODES)[number];

export interface OwnQuery {
  list: ListId;
  reader: Reader;
  path: string;
  page: number;
  limit: number;
  /** The list's meta.total, equal to a count on the file (checked). */
  total: number;
  single?: SingleTimings;
  samples: Record<Mode, Sample[]>;
}

export interface OwnLeadsResult {
  assignment: OwnerAssignment;
  copySeconds: number;
  queries: OwnQuery[];
  /** What was checked against the file, one line each. */
  exactness: string[];
  serverRssMaxKb: number;
  commands: string[];
  rounds: number;
  durationS: number;
  connections: number;
}

function writeConfig(path: string, db: string): void {
  const client = (id: string, scopes?: string[]) => ({
    id,
    apiKey: credentials(id).key,
    secretHash: hashSecret(credentials(id).secret),
    database: "bench",
    rateLimitPerMinute: 1_000_000_000,
    ...(scopes ? { scopes } : {}),
  });
  writeFileSync(
    path,
    JSON.stringify({
      environment: "sandbox",
      jwtSecret: "bench-secret-long-enough-for-the-own-leads-scenario",
      databases: { bench: db },
      // The CRM reads every lead; portal-07 and the website have the default scopes (their own leads).
      clients: [client(CRM, ["leads:read"]), client(PORTAL), client(WEBSITE)],
    }),
  );
}

const listPath = (list: (typeof LISTS)[number], page: number, limit: number) =>
  `/v1/leads?fields=${FIELDS}${list.status ? "&status=NEW_LEAD" : ""}${list.updated ? "&sort=-updatedAt" : ""}` +
  `&limit=${limit}${page > 1 ? `&page=${page}` : ""}`;

type Page = { data: { id: string }[]; meta: { total: number } };

/**
 * The queries with their totals and pages, each checked against the file: meta.total equals a
 * count of the reader's leads, and the page's ids are those of the same page read with OFFSET.
 */
async function planQueries(
  base: string,
  tokens: Record<Reader, string>,
  file: string,
  exactness: string[],
): Promise<OwnQuery[]> {
  const db = new Database(file, { readonly: true });
  try {
    const queries: OwnQuery[] = [];
    for (const list of LISTS) {
      for (const reader of READERS) {
        const conditions = [
          ...(reader === PORTAL ? [`created_by = '${PORTAL}'`] : []),
          ...(list.status ? ["status = 'NEW_LEAD'"] : []),
        ];
        const where = conditions.length > 0 ? conditions.join(" AND ") : "1 = 1";
        const counted = db.query<{ n: number }, []>(`SELECT count(*) AS n FROM leads WHERE ${where}`).get()!.n;
        const first = await getJson<Page>(base, tokens[reader], listPath(list, 1, 20));
        if (first.meta.total !== counted)
          throw new Error(`${reader} ${list.id}: meta.total ${first.meta.total}, the file counts ${counted}`);
        const limit = list.deep ? DEEP_LIMIT : 20;
        const page = list.deep ? Math.max(1, Math.round((counted * DEEP_SHARE) / limit)) : 1;
        const path = listPath(list, page, limit);
        const got = await getJson<Page>(base, tokens[reader], path);
        const order = list.updated ? "updated_at DESC, id DESC" : "created_at DESC, id DESC";
        const ids = db
          .query<{ id: string }, [number, number]>(
            `SELECT id FROM leads WHERE ${where} ORDER BY ${order} LIMIT ? OFFSET ?`,
          )
          .all(limit, (page - 1) * limit)
          .map((r) => r.id);
        if (got.meta.total !== counted || got.data.map((r) => r.id).join() !== ids.join() || ids.length === 0) {
          throw new Error(
            `${reader} ${path}: the page differs from the file's (${got.data.length} rows, total ${got.meta.total}; file ${ids.length} rows, ${counted})`,
          );
        }
        exactness.push(
          `${reader}, \`${path}\`: meta.total ${counted.toLocaleString("en-US")} = \`SELECT count(*) FROM leads${conditions.length > 0 ? ` WHERE ${where}` : ""}\`; its ${ids.length} ids = the file's page (ORDER BY ${order} LIMIT ${limit} OFFSET ${(page - 1) * limit})`,
        );
        queries.push({
          list: list.id,
          reader,
          path,
          page,
          limit,
          total: counted,
          samples: { cached: [], computed: [] },
        });
      }
    }
    return queries;
  } finally {
    db.close();
  }
}

/**
 * Single requests of a query computed from the database: right after a lead creation (by the
 * website, so neither list changes; a commit empties the read connection's page cache) and
 * with a never-seen ignored parameter; then the same request again (the page cache's answer).
 */
async function coldAndWarm(
  base: string,
  reader: string,
  poster: string,
  path: string,
  samples: number,
): Promise<SingleTimings> {
  const cold: number[] = [];
  const warm: number[] = [];
  for (let i = 0; i < samples; i++) {
    await postLead(base, poster);
    const unseen = unseenPath(path);
    cold.push(await timeGet(base, reader, unseen));
    warm.push(await timeGet(base, reader, unseen));
  }
  return { cold: spread(cold), warm: spread(warm) };
}

const scenarioOf = (q: OwnQuery, mode: Mode): Scenario => ({
  id: `own-leads ${q.list}`,
  title: `${q.reader} ${q.path}`,
  script: mode === "cached" ? "bearer.lua" : "computed.lua",
  path: q.path,
  captures: [],
  targets: ["product"],
  writes: false,
});

/**
 * Waits until the server has answered every request it had already read: wrk stops sending when
 * its time is up, but a slow computed page (the portal's deep status page) leaves requests
 * in the server's hands, and the next measurement must not start behind them.
 */
async function drain(server: Server): Promise<void> {
  const response = await fetch(`${server.base}/health`);
  await response.arrayBuffer();
  // And until the server's own CPU time stops growing (at most 30 s): requests of closed connections may still be computed.
  const deadline = Date.now() + 30_000;
  for (let before = processCpuS(server.pid); Date.now() < deadline; ) {
    await Bun.sleep(200);
    const now = processCpuS(server.pid);
    if (now - before < 0.02) return;
    before = now;
  }
}

export async function runOwnLeadsBench(options: {
  settings: LoadSettings;
  rounds: number;
  coldSamples: number;
  serverCore: number;
  warmupS: number;
  log: (line: string) => void;
}): Promise<OwnLeadsResult> {
  const { log, settings } = options;
  const source = ensureDataset(DATASET_1M, log);
  const db = join(OUT, "own-leads-1M.sqlite");
  removeDatabase(db);
  log(`own-leads: copying the 1M dataset (${(statSync(source).size / 1024 ** 3).toFixed(1)} GiB) …`);
  const started = performance.now();
  copyFileSync(source, db);
  const copySeconds = (performance.now() - started) / 1000;
  log(`own-leads: giving the leads ${OWNERS.length} owners …`);
  let server: Server | null = null;
  try {
    const assignment = assignOwners(db, OWNERS);
    log(
      `own-leads: ${assignment.leads} leads, ${assignment.owners} owners (${assignment.perOwner.min}–${assignment.perOwner.max} each) in ${assignment.seconds.toFixed(1)} s; verified: ${assignment.checks.join("; ")}`,
    );
    // The copy's gigabytes would otherwise still be written back during the measurements.
    Bun.spawnSync(["sync"]);
    const config = join(OUT, "own-leads.json");
    writeConfig(config, db);
    const port = freePort();
    const argv = [BINARY, "serve", "--config", config, "--port", String(port), "--host", "127.0.0.1"];
    server = await startServer({
      name: "own-leads",
      argv,
      core: options.serverCore,
      port,
      logFile: join(OUT, "own-leads.log"),
      readyTimeoutMs: 300_000,
    });
    const commands = [
      `${argv.join(" ").replaceAll(ROOT + "/", "")}   # clients crm ("scopes": ["leads:read"]), ${PORTAL} and ${WEBSITE} (default scopes)`,
    ];
    const tokenOf = (id: string) => issueToken(server!.base, credentials(id).key, credentials(id).secret);
    const tokens = { [CRM]: await tokenOf(CRM), [PORTAL]: await tokenOf(PORTAL) } as Record<Reader, string>;
    const poster = await tokenOf(WEBSITE);

    const exactness: string[] = [];
    const queries = await planQueries(server.base, tokens, db, exactness);
    for (const line of exactness) log(`own-leads exact: ${line}`);
    for (const q of queries) {
      for (const mode of MODES) {
        const line = wrkCommandLine({
          url: server.base + q.path,
          script: scenarioOf(q, mode).script,
          connections: settings.connections,
          durationS: settings.durationS,
          core: settings.loadCore,
          env: { BENCH_TOKEN: "" },
        });
        commands.push(`${line}   # TOKEN: ${q.reader}'s`);
      }
    }

    log("own-leads: single requests, cold and warm …");
    for (const q of queries) {
      q.single = await coldAndWarm(server.base, tokens[q.reader], poster, q.path, options.coldSamples);
      log(
        `own-leads single ${q.reader.padEnd(9)} ${q.list.padEnd(11)} cold ${q.single.cold.median.toFixed(1)} ms (${q.single.cold.min.toFixed(1)}–${q.single.cold.max.toFixed(1)})  warm ${q.single.warm.median.toFixed(2)} ms`,
      );
    }

    log("own-leads: warm-up …");
    for (const q of queries) {
      for (const mode of MODES) {
        await measure(
          server,
          scenarioOf(q, mode),
          tokens[q.reader],
          { ...settings, durationS: options.warmupS },
          false,
        );
        await drain(server);
      }
    }

    for (let round = 0; round < options.rounds; round++) {
      // A fresh token per round, as a client refreshes.
      tokens[CRM] = await tokenOf(CRM);
      tokens[PORTAL] = await tokenOf(PORTAL);
      for (const mode of MODES) {
        for (const list of LISTS) {
          const pair = queries.filter((q) => q.list === list.id);
          // The CRM first in even rounds, the portal first in odd ones: a slow patch hits both.
          for (const q of round % 2 === 0 ? pair : [...pair].reverse()) {
            const sample = await measureQuietly(server, scenarioOf(q, mode), tokens[q.reader], settings, false);
            q.samples[mode].push(sample);
            await drain(server);
            log(
              `[own-leads r${round + 1}/${options.rounds}] ${mode.padEnd(8)} ${q.list.padEnd(11)} ${q.reader.padEnd(9)} ${Math.round(sample.rps).toString().padStart(7)} req/s  p50 ${sample.p50Ms.toFixed(2)} ms  p99 ${sample.p99Ms.toFixed(2)} ms  others ${(sample.foreign * 100).toFixed(0)}/${(sample.foreignLoad * 100).toFixed(0)} %${sample.non2xx + sample.socketErrors > 0 ? `  non-2xx ${sample.non2xx} socket ${sample.socketErrors}` : ""}`,
            );
          }
        }
      }
    }
    const all = queries.flatMap((q) => [...q.samples.cached, ...q.samples.computed]);
    return {
      assignment,
      copySeconds,
      queries,
      exactness,
      serverRssMaxKb: Math.max(0, ...all.map((s) => s.rssKb)),
      commands,
      rounds: options.rounds,
      durationS: settings.durationS,
      connections: settings.connections,
    };
  } finally {
    await server?.stop();
    removeDatabase(db);
  }
}

const int = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString("en-US") : "–");
const ms = (n: number) => (!Number.isFinite(n) ? "–" : n < 10 ? n.toFixed(2) : n < 100 ? n.toFixed(1) : n.toFixed(0));
const x = (n: number) => (Number.isFinite(n) ? `${n.toFixed(2)}×` : "–");
const range = (s: Spread, f: (n: number) => string) =>
  Number.isFinite(s.median) ? `${f(s.median)} (${f(s.min)}–${f(s.max)})` : "–";
const pick = (samples: Sample[], f: (s: Sample) => number) => spread(samples.map(f));

const LIST_TITLE: Record<ListId, string> = {
  "page-1": "page 1 (limit 20)",
  deep: "deep page (limit 100, 90 % in)",
  status: "status=NEW_LEAD, page 1",
  "status-deep": "status=NEW_LEAD, deep page (90 % in)",
  updated: "sort=-updatedAt, page 1",
  "updated-deep": "sort=-updatedAt, deep page (90 % in)",
};

export function ownLeadsSection(
  result: OwnLeadsResult,
  context: { date: Date; machine: string; version: string },
): string {
  const { assignment: a } = result;
  const crmOf = (list: ListId) => result.queries.find((q) => q.list === list && q.reader === CRM)!;
  const portalOf = (list: ListId) => result.queries.find((q) => q.list === list && q.reader === PORTAL)!;
  const rows = result.queries.map((q) => [
    q.reader === CRM ? `**${LIST_TITLE[q.list]}**` : "",
    q.reader === CRM ? "crm (`leads:read`)" : "portal-07 (own leads)",
    int(q.total),
    int(q.page),
    ...MODES.flatMap((mode) => [
      range(
        pick(q.samples[mode], (s) => s.rps),
        int,
      ),
      range(
        pick(q.samples[mode], (s) => s.p50Ms),
        ms,
      ),
      range(
        pick(q.samples[mode], (s) => s.p99Ms),
        ms,
      ),
    ]),
    q.single ? range(q.single.cold, ms) : "–",
    int(MODES.reduce((sum, mode) => sum + q.samples[mode].reduce((t, s) => t + s.non2xx + s.socketErrors, 0), 0)),
  ]);
  // Per round, the portal's figure over the CRM's measured next to it; the median of those ratios and their range.
  const perRound = (list: ListId, mode: Mode, f: (s: Sample) => number) => {
    const crm = crmOf(list).samples[mode];
    const portal = portalOf(list).samples[mode];
    return spread(portal.map((s, i) => ratio(f(s), f(crm[i]!))));
  };
  const ratioRows = LISTS.flatMap((list) =>
    MODES.map((mode) => [
      LIST_TITLE[list.id],
      mode,
      range(
        perRound(list.id, mode, (s) => s.rps),
        x,
      ),
      range(
        perRound(list.id, mode, (s) => s.p50Ms),
        x,
      ),
      range(
        perRound(list.id, mode, (s) => s.p99Ms),
        x,
      ),
    ]),
  );
  ratioRows.forEach((row, i) => {
    const list = LISTS[Math.floor(i / MODES.length)]!;
    const crm = crmOf(list.id).single;
    const portal = portalOf(list.id).single;
    row.push(i % MODES.length === 0 && crm && portal ? x(ratio(portal.cold.median, crm.cold.median)) : "");
  });
  const all = result.queries.flatMap((q) => [...q.samples.cached, ...q.samples.computed]);
  const disturbed = all.filter((s) => Math.max(s.foreign, s.foreignLoad) > 0.25).length;
  const retried = all.filter((s) => s.attempts > 1).length;
  const table = (header: string[], body: string[][]) => [
    `| ${header.join(" | ")} |`,
    `|${header.map(() => "---").join("|")}|`,
    ...body.map((r) => `| ${r.join(" | ")} |`),
  ];
  return [
    MARK_START,
    "## Own leads (issue #37)",
    "",
    `Run ${context.date.toISOString()} on ${context.machine}, ${context.version}, \`bun run bench --only own-leads\`: ${result.rounds} rounds, ` +
      `${result.durationS} s per wrk run, wrk -t1 -c${result.connections} on core 1, \`${BINARY.replace(ROOT + "/", "")} serve\` on core 0.`,
    "",
    `**Dataset.** A copy of the 1M dataset (${int(a.leads)} leads; copied in ${result.copySeconds.toFixed(0)} s) whose leads were given ` +
      `${a.owners} owners, \`portal-01\`…\`portal-20\` round robin over the rowids (${int(a.perOwner.min)}–${int(a.perOwner.max)} each), in ` +
      `${a.seconds.toFixed(0)} s (bench/lib/owners.ts): the two triggers an owner update fires were set aside and what they keep for the owner ` +
      "rebuilt in the same transaction (lead_counts by status, source, priority and owner; the owner of each lead's change rows), " +
      "so the file is as if those clients had created the leads, with no change row per update. Checked on the file: " +
      a.checks.join("; ") +
      ". (On the 1k dataset the same rebuild gives lead_counts identical to what the triggers write.)",
    "",
    'Clients: `crm` with `"scopes": ["leads:read"]` (every lead) and `portal-07` with the default scopes (its own leads), rate limit 10⁹/min. ' +
      `Every query: \`/v1/leads?fields=${FIELDS}…\`, sorted by the default \`-createdAt\` unless it says \`sort=-updatedAt\`.`,
    "",
    "**Exact.** Before measuring, each list's `meta.total` and page rows were compared with the file:",
    "",
    ...result.exactness.map((line) => `- ${line}`),
    "",
    "**Figures.** Medians over the rounds (min–max). *cached*: the request as sent; after its first answer the product serves it from its " +
      "page cache (exact while the database is unchanged), as a client polling the same page gets it. *computed*: `bench/wrk/computed.lua` adds a never-seen " +
      "ignored parameter to every request, so each answer is computed from the database (total and rows), with SQLite's own page cache warm. " +
      "*cold*: single requests right after a lead creation (by a third client, so neither list changes), which also empties the read connection's page cache.",
    "",
    ...table(
      [
        "list",
        "reader",
        "total",
        "page",
        "cached req/s",
        "cached p50 ms",
        "cached p99 ms",
        "computed req/s",
        "computed p50 ms",
        "computed p99 ms",
        "cold ms",
        "errors",
      ],
      rows,
    ),
    "",
    "**portal-07 ÷ crm**, per round (each pair measured back to back, alternating which goes first), median (min–max): req/s above 1× is faster for the portal; p50, p99 and cold ms above 1× slower.",
    "",
    ...table(["list", "mode", "req/s", "p50", "p99", "cold ms (medians)"], ratioRows),
    "",
    "**How an owner's list is read.** One index, `leads_owner_created (created_by, created_at, id, updated_at, status)`, serves " +
      "every list of one owner; there are no per-day counters by owner (each would cost every lead creation a counter row). Totals " +
      "come from lead_counts, which counts by owner and status. Page 1 is the head of the index. A deep page is walked in the index " +
      "alone (the status and both dates are in its entries, so no row is read until the page), and from whichever end of the list " +
      "is nearer. By last update the owner's entries are sorted (the index is in creation order), from the nearer end, before " +
      "the page's rows are read; that sort is the dearest of these lists, and grows with the owner's number of leads.",
    "",
    `Server VmRSS max over every round: ${(result.serverRssMaxKb / 1024).toFixed(0)} MB. ${retried} of ${all.length} measurements were retried, ` +
      `${disturbed} stayed with others above 25 % of a core.`,
    "",
    "Commands:",
    "",
    "```sh",
    ...result.commands,
    "```",
    MARK_END,
  ].join("\n");
}

export function writeOwnLeadsSection(section: string): void {
  writeMarkedSection(MARK_START, MARK_END, section);
}
