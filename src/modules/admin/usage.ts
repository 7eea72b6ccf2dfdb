// What the agency sees (docs/operators/console.md#what-the-agency-sees): a partner's use by day,
// the request log, the portal feed's downloads and the leads by origin. Reads only; the figures
// are written by every process's recorder (src/usage/recorder.ts).
import { type RequestLogFilter, UsageStore } from "../../db/control/usage.ts";
import { ApiError, type FieldProblem } from "../../errors.ts";
import { canonicalAddress } from "../../security/ip.ts";
import { quantileMs } from "../../usage/latency.ts";
import type { OriginRow } from "../../usage/origins.ts";
import { USAGE_DAYS_KEPT } from "../../usage/settings.ts";
import { dayOf } from "../../usage/tally.ts";
import { listPartners, visiblePartner } from "./partners.ts";
import { type Actor, type AdminService, iso, whole, worksOn } from "./service.ts";

const DAY_MS = 86_400_000;
const OUTCOMES = ["2xx", "3xx", "401", "403", "404", "429", "4xx", "5xx"] as const;

function usageStore(service: AdminService): UsageStore {
  return new UsageStore(service.store.db);
}

/** `GET /admin/v1/partners/{id}/usage?days=N`: one entry per day, oldest first, today last. */
export function partnerUsage(service: AdminService, actor: Actor, id: string, query: URLSearchParams) {
  const problems: FieldProblem[] = [];
  const days = whole(query.get("days"), "days", 1, USAGE_DAYS_KEPT, 30, problems);
  if (problems.length > 0) throw ApiError.validation(problems);
  if (visiblePartner(service, actor, id) === null) throw new ApiError("NOT_FOUND");
  const store = usageStore(service);
  const today = service.runtime.clock.now();
  const first = dayOf(today - (days - 1) * DAY_MS);
  const byDay = new Map<string, Map<string, number>>();
  for (const row of store.counts(id, first)) {
    let counts = byDay.get(row.day);
    if (counts === undefined) byDay.set(row.day, (counts = new Map()));
    counts.set(row.name, row.n);
  }
  const out = [];
  for (let i = days - 1; i >= 0; i--) {
    const date = dayOf(today - i * DAY_MS);
    const counts = byDay.get(date) ?? new Map<string, number>();
    const requests: Record<string, number> = {};
    for (const outcome of OUTCOMES) requests[outcome] = counts.get(outcome) ?? 0;
    const forbidden: Record<string, number> = {};
    const latency = new Map<number, number>();
    for (const [name, n] of counts) {
      if (name.startsWith("403:")) forbidden[name.slice(4)] = n;
      else if (name.startsWith("ms:")) latency.set(Number(name.slice(3)), n);
    }
    out.push({
      date,
      requests,
      forbiddenByCode: forbidden,
      p50Ms: quantileMs(latency, 0.5),
      p95Ms: quantileMs(latency, 0.95),
      leadsCreated: counts.get("leads") ?? 0,
    });
  }
  const seen = store.lastSeen(id);
  return { days: out, lastSeen: seen === null ? null : { at: iso(seen.at), ip: seen.ip, route: seen.route } };
}

function time(query: URLSearchParams, name: string, problems: FieldProblem[]): number | undefined {
  const value = query.get(name);
  if (value === null || value === "") return undefined;
  const ms = Date.parse(value);
  if (Number.isNaN(ms) || !/^\d{4}-\d{2}-\d{2}/.test(value)) {
    problems.push({ field: name, message: "must be an ISO 8601 date or date-time" });
    return undefined;
  }
  return ms;
}

/** `GET /admin/v1/requests`: the request log, newest first, filtered and paged as the audit log is. */
export async function requestLog(service: AdminService, actor: Actor, query: URLSearchParams) {
  const problems: FieldProblem[] = [];
  const filter: RequestLogFilter = {};
  const client = query.get("client");
  if (client !== null && client !== "") filter.client = client;
  const status = query.get("status");
  if (status !== null && status !== "") {
    if (/^[1-5]\d\d$/.test(status)) filter.status = { from: Number(status), to: Number(status) };
    else if (/^[1-5]xx$/.test(status))
      filter.status = { from: Number(status[0]) * 100, to: Number(status[0]) * 100 + 99 };
    else problems.push({ field: "status", message: "must be a status (404) or a class (4xx)" });
  }
  const ip = query.get("ip");
  if (ip !== null && ip !== "") {
    const address = canonicalAddress(ip);
    if (address === null) problems.push({ field: "ip", message: "must be an IPv4 or IPv6 address" });
    else filter.ip = address;
  }
  filter.since = time(query, "since", problems);
  filter.until = time(query, "until", problems);
  const page = whole(query.get("page"), "page", 1, 1_000_000, 1, problems);
  const limit = whole(query.get("limit"), "limit", 1, 500, 50, problems);
  if (problems.length > 0) throw ApiError.validation(problems);
  // An admin of some databases sees the requests of their partners only.
  if (actor.databases.length > 0) {
    const visible = listPartners(service, actor).map((p) => p.id);
    if (filter.client !== undefined && !visible.includes(filter.client)) filter.clients = [];
    else if (filter.client === undefined) filter.clients = visible;
  }
  // Read by the usage writer thread, which has the file open; a server with no recorder has no log.
  const usage = service.runtime.usage;
  const { rows, total } =
    usage === null ? { rows: [], total: 0 } : await usage.requestPage(filter, limit, (page - 1) * limit);
  return {
    data: rows.map((r) => ({
      at: iso(r.at),
      client: r.client,
      method: r.method,
      route: r.route,
      status: r.status,
      code: r.code,
      latencyMs: r.ms,
      ip: r.ip,
      requestId: r.requestId,
    })),
    meta: { page, limit, total, totalPages: Math.ceil(total / limit) },
  };
}

/** `GET /admin/v1/portal-feed/downloads?days=N`: per portal and day, newest first. */
export function portalFeedDownloads(service: AdminService, actor: Actor, query: URLSearchParams) {
  const problems: FieldProblem[] = [];
  const days = whole(query.get("days"), "days", 1, USAGE_DAYS_KEPT, 30, problems);
  if (problems.length > 0) throw ApiError.validation(problems);
  const visible = new Set(listPartners(service, actor).map((p) => p.id));
  const first = dayOf(service.runtime.clock.now() - (days - 1) * DAY_MS);
  const rows = new Map<
    string,
    { date: string; client: string; downloads: number; notModified: number; bytes: number }
  >();
  for (const r of usageStore(service).countsNamed(["feed", "feed:304", "feed:bytes"], first)) {
    if (!visible.has(r.client)) continue;
    const key = `${r.day}\t${r.client}`;
    let row = rows.get(key);
    if (row === undefined)
      rows.set(key, (row = { date: r.day, client: r.client, downloads: 0, notModified: 0, bytes: 0 }));
    if (r.name === "feed") row.downloads = r.n;
    else if (r.name === "feed:304") row.notModified = r.n;
    else row.bytes = r.n;
  }
  return [...rows.values()];
}

/**
 * `GET /admin/v1/leads/origins?months=N`: per month, source and partner, the leads by status;
 * counts only. Each database's count runs in a reader thread (a scan of the months asked for).
 */
export async function leadOrigins(service: AdminService, actor: Actor, query: URLSearchParams) {
  const problems: FieldProblem[] = [];
  const months = whole(query.get("months"), "months", 1, 36, 6, problems);
  if (problems.length > 0) throw ApiError.validation(problems);
  const now = new Date(service.runtime.clock.now());
  const from = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - (months - 1), 1)).toISOString();
  const out: {
    database: string;
    month: string;
    source: string;
    partner: string | null;
    byStatus: Record<string, number>;
    total: number;
  }[] = [];
  for (const [name, path] of service.runtime.config.databases) {
    if (!worksOn(actor, name)) continue;
    const tenant = service.runtime.tenants.get(path);
    if (tenant === null) continue;
    const body = await service.runtime.reads.run(`admin:${actor.name}`, tenant, {
      kind: "lead-origins",
      rawQuery: new URLSearchParams({ from }).toString(),
    });
    const groups = new Map<string, (typeof out)[number]>();
    for (const r of JSON.parse(body) as OriginRow[]) {
      const key = `${r.month}\t${r.source}\t${r.partner ?? ""}`;
      let group = groups.get(key);
      if (group === undefined) {
        group = { database: name, month: r.month, source: r.source, partner: r.partner, byStatus: {}, total: 0 };
        groups.set(key, group);
        out.push(group);
      }
      group.byStatus[r.status] = r.n;
      group.total += r.n;
    }
  }
  return out;
}
