// GET /v1/changes, the "change feed" of the API: pages of the change log that the database's
// triggers write (docs/reference/behaviour-extensions.md §11).
import type { Statement } from "bun:sqlite";
import { ENTITY_NAMES } from "../../catalog/index.ts";
import { STREAM_SQL } from "../../db/change-streams.ts";
import type { Tenant } from "../../db/tenants.ts";
import { ApiError, type FieldProblem } from "../../errors.ts";
import type { NowOrLater } from "../../lib/now-or-later.ts";
import { PageCache } from "../../query/page-cache.ts";
import { QueryParams } from "../../query/query-params.ts";
import { type LeadAccess, streamOf } from "../../security/scopes.ts";

export const MAX_CHANGES_LIMIT = 1000;
export const DEFAULT_CHANGES_LIMIT = 100;

export interface ChangesQuery {
  entity: "properties" | "leads";
  after: number;
  limit: number;
}

export function parseChangesQuery(params: URLSearchParams): ChangesQuery {
  const problems: FieldProblem[] = [];
  const query = new QueryParams(params);
  const one = (name: string) => query.one(name, problems);
  const entity = one("entity");
  if (entity === null || !(ENTITY_NAMES as readonly string[]).includes(entity)) {
    problems.push({ field: "entity", message: `must be one of: ${ENTITY_NAMES.join(", ")}` });
  }
  const rawAfter = one("after");
  const after = rawAfter === null ? 0 : /^\d{1,15}$/.test(rawAfter) ? Number(rawAfter) : null;
  if (after === null) problems.push({ field: "after", message: "must be an integer greater than or equal to 0" });
  const rawLimit = one("limit");
  const limit = rawLimit === null ? DEFAULT_CHANGES_LIMIT : /^\d{1,4}$/.test(rawLimit) ? Number(rawLimit) : null;
  if (limit === null || limit < 1 || limit > MAX_CHANGES_LIMIT) {
    problems.push({ field: "limit", message: `must be an integer between 1 and ${MAX_CHANGES_LIMIT}` });
  }
  query.refuseUnknown(problems);
  if (problems.length > 0) throw ApiError.validation(problems);
  return { entity: entity as ChangesQuery["entity"], after: after!, limit: limit! };
}

/**
 * An entry as a reader sees it, `number` being its number in that reader's stream: the change
 * log is numbered per stream (src/db/migrations/010_change_streams.sql), so what a partner is
 * shown counts only changes it may read.
 */
const entry = (number: string) =>
  `json_object('sequence', ${number}, 'entity', entity, 'id', record_id, 'change', change, 'at', at)`;

/**
 * One index range scan from `after` in an entity's stream (properties; every lead): constant
 * work at any position in the log. Each row also gives its place in the log's write order, what
 * Tenant.onDisk waits for.
 */
export const CHANGES_PAGE_SQL = `SELECT number, sequence, ${entry("number")} FROM changes WHERE entity = ? AND number > ? ORDER BY number LIMIT ?`;

/** The same in one owner's stream of leads: its own index, so no other partner's entry is passed over. */
const OWN_LEADS_PAGE_SQL = `SELECT owner_number, sequence, ${entry("owner_number")} FROM changes WHERE owner = ? AND owner_number > ? ORDER BY owner_number LIMIT ?`;

interface ChangeLogReads {
  page: Statement;
  head: Statement;
  ownPage: Statement;
  ownHead: Statement;
  /** Pages by raw query, for one generation: a client polling at the head is answered from here until something commits. */
  pages: PageCache;
}

const changeLogs = new WeakMap<Tenant, ChangeLogReads>();

function changeLogOf(tenant: Tenant): ChangeLogReads {
  let found = changeLogs.get(tenant);
  if (found === undefined) {
    found = {
      page: tenant.read.prepare(CHANGES_PAGE_SQL),
      head: tenant.read.prepare(STREAM_SQL.entity.head),
      ownPage: tenant.read.prepare(OWN_LEADS_PAGE_SQL),
      ownHead: tenant.read.prepare(STREAM_SQL.owner.head),
      pages: new PageCache(),
    };
    changeLogs.set(tenant, found);
  }
  return found;
}

/**
 * The stream a feed query reads: a client sees the lead entries of the leads it may read only
 * (its own, with `leads:read:own`), numbered in its own stream, and its `head` is the last of
 * those, so nothing of other partners' leads shows, not even how many changed.
 */
export interface ChangesReader {
  leads: LeadAccess;
}

/** The client whose lead entries alone the reader sees, or null when it sees every entry of the query's entity. */
function ownerOf(query: ChangesQuery, reader: ChangesReader): string | null {
  return streamOf(query.entity, reader.leads)?.owner ?? null;
}

/**
 * The response body of one feed page: at once, or once what it shows is on disk (Tenant.onDisk:
 * a lead's commit is read here before its own sync has returned). Only such pages are cached.
 * The query must be parsed (and the caller's scope for its entity checked) first.
 */
export function changesPage(
  tenant: Tenant,
  rawQuery: string,
  query: ChangesQuery,
  reader: ChangesReader,
): NowOrLater<string> {
  const log = changeLogOf(tenant);
  const owner = ownerOf(query, reader);
  const key = `${owner ?? ""}|${rawQuery}`;
  const generation = tenant.generation();
  const cached = log.pages.get(key, generation);
  if (cached !== undefined) return cached;
  const { body, head } = readPage(log, tenant, query, owner);
  const cache = () => {
    log.pages.set(key, generation, body);
    return body;
  };
  const onDisk = tenant.onDisk(head);
  return onDisk === null ? cache() : onDisk.then(cache);
}

/**
 * changesPage in two halves, for a page a reader thread makes (src/reads/): the body cached now,
 * or `keep`, to cache the thread's body once what it shows is on disk (the caller waits for that).
 */
export function changesLookup(
  tenant: Tenant,
  rawQuery: string,
  query: ChangesQuery,
  reader: ChangesReader,
): { body: string } | { keep(body: string): void } {
  const log = changeLogOf(tenant);
  const key = `${ownerOf(query, reader) ?? ""}|${rawQuery}`;
  const generation = tenant.generation();
  const body = log.pages.get(key, generation);
  return body !== undefined ? { body } : { keep: (made) => log.pages.set(key, generation, made) };
}

function readPage(
  { page, head, ownPage, ownHead }: ChangeLogReads,
  tenant: Tenant,
  query: ChangesQuery,
  owner: string | null,
): { body: string; head: number } {
  return tenant.read
    .transaction(() => {
      const stream = owner ?? query.entity;
      // [number in the stream, sequence in the log, the entry's JSON]
      const rows = (owner === null ? page : ownPage).values(stream, query.after, query.limit + 1) as [
        number,
        number,
        string,
      ][];
      const hasMore = rows.length > query.limit;
      if (hasMore) rows.pop();
      // Every entry of the stream after `after` is on a page that has no more: its last is the head.
      const last =
        !hasMore && rows.length > 0
          ? rows[rows.length - 1]!
          : (((owner === null ? head : ownHead).values(stream) as [number, number][])[0] ?? [0, 0]);
      const nextAfter = rows.length > 0 ? rows[rows.length - 1]![0] : query.after;
      const body =
        `{"data":[${rows.map((r) => r[2]).join(",")}],` +
        `"meta":{"after":${query.after},"nextAfter":${nextAfter},"hasMore":${hasMore},"head":${last[0]}}}`;
      // What the page shows is on disk once the stream's last entry is: its place in the log.
      return { body, head: last[1] };
    })
    .deferred();
}
