// `export`: published properties as VRSync or NDJSON (the API's shape), leads as NDJSON, streamed
// from one read snapshot, so an export taken while the server writes is consistent. The portal
// feed (docs/reference/behaviour-extensions.md §17) is this same export, of a client's selection, into an HTTP response.
import type { Database } from "bun:sqlite";
import { LEAD_FIELDS } from "../catalog/leads.ts";
import { PROPERTY_FIELDS } from "../catalog/properties.ts";
import { projection } from "../catalog/sql.ts";
import type { RecordView } from "../catalog/types.ts";
import type { PortalFeedSelection } from "../config/model.ts";
import { unwritableReason, VRSYNC_FOOTER, vrsyncHeader, vrsyncListing } from "../formats/vrsync/writer.ts";
import { listingOfProjection } from "./rows.ts";

export type ExportFormat = "vrsync" | "ndjson";
export type ExportEntity = "properties" | "leads";

/** Where exported text goes; a write may return a promise to apply backpressure. */
export interface Sink {
  write(text: string): void | Promise<void>;
}

export interface ExportOptions {
  /**
   * Whose view: the agency's own export (`stored`, the default) writes every stored value and
   * displayAddress; an export meant for a partner (`partner`) leaves out what displayAddress hides.
   */
  view?: RecordView;
  /** Only records updated strictly after this instant (ISO, as stored), oldest change first. */
  since?: string | null;
  /** Only the published properties a portal client's feed selects, the most recently updated first (the cap counts written listings). */
  selection?: PortalFeedSelection;
  /**
   * Ids of the listings the VRSync writer cannot write, found beforehand in the same snapshot
   * (the portal feed states their number before the body); absent: each is checked as it comes.
   */
  unwritable?: ReadonlySet<string>;
  /** The VRSync header's PublishDate; default: now. */
  publishDate?: string;
  now?: () => Date;
  onProgress?: (exported: number, total: number) => void;
}

export interface ExportSummary {
  entity: ExportEntity;
  format: ExportFormat;
  exported: number;
  /** Published properties left out: VRSync listings the writer cannot write (writer.ts, unwritableReason). */
  skipped: number;
  /** Of the VRSync listings, those written with their id as ListingID because they have no code. */
  idAsListingId: number;
}

/** A WHERE condition and its parameters. */
export interface Condition {
  sql: string;
  params: string[];
}

/** The published properties (alias `p`) a portal feed selection takes; every condition given must hold. */
export function selectionCondition(selection: PortalFeedSelection | undefined): Condition {
  const parts = ["p.is_published = 1"];
  const params: string[] = [];
  const oneOf = (column: string, values: readonly string[] | null | undefined) => {
    if (values === null || values === undefined) return;
    parts.push(`${column} IN (${values.map(() => "?").join(", ")})`);
    params.push(...values);
  };
  oneOf("p.operation_type", selection?.operationType);
  oneOf("p.status", selection?.status);
  oneOf("p.property_type", selection?.propertyType);
  return { sql: parts.join(" AND "), params };
}

type PropertyOrder = "created" | "updated" | "recentlyUpdated";

const ORDER_BY: Readonly<Record<PropertyOrder, string>> = {
  created: "p.created_at, p.id",
  updated: "p.updated_at, p.id",
  // Served by the partial index on (updated_at, id) read backwards: a capped feed stops early.
  recentlyUpdated: "p.updated_at DESC, p.id DESC",
};

function selectSql(table: string, alias: string, json: string, where: string, order: string, index?: string): string {
  const from = index === undefined ? `${table} ${alias}` : `${table} ${alias} INDEXED BY ${index}`;
  return `SELECT ${alias}.id AS id, ${json} AS json FROM ${from} WHERE ${where} ORDER BY ${order}`;
}

/**
 * Runs `body` over the rows of one query inside one read transaction (a single snapshot): its
 * own, or the one the caller already holds on `db`. `body` returns false to stop early.
 */
async function eachRow(
  db: Database,
  sql: string,
  /** Counted only for a progress display: on a big table the count is a scan of its own. */
  countSql: string | null,
  params: string[],
  body: (row: { id: string; json: string }, total: number) => Promise<boolean | void>,
): Promise<void> {
  const own = !db.inTransaction;
  if (own) db.run("BEGIN");
  const statement = db.prepare<{ id: string; json: string }, string[]>(sql);
  try {
    const total = countSql === null ? NaN : db.query<{ n: number }, string[]>(countSql).get(...params)!.n;
    for (const row of statement.iterate(...params)) if ((await body(row, total)) === false) break;
  } finally {
    statement.finalize();
    if (own) db.run("COMMIT");
  }
}

export async function exportProperties(
  db: Database,
  format: ExportFormat,
  sink: Sink,
  options: ExportOptions = {},
): Promise<ExportSummary> {
  const since = options.since ?? null;
  const { sql: where, params } = selectionCondition(options.selection);
  const sinceSql = since === null ? "" : " AND p.updated_at > ?";
  if (since !== null) params.push(since);
  const order: PropertyOrder =
    options.selection !== undefined ? "recentlyUpdated" : since !== null ? "updated" : "created";
  // A selection's filters would otherwise lead SQLite to their own index and a sort of every
  // selected row (their JSON included) before the first one: the newest-first index streams.
  const index = order === "recentlyUpdated" ? "properties_published_updated" : undefined;
  const sql = selectSql(
    "properties",
    "p",
    projection(PROPERTY_FIELDS, options.view ?? "stored"),
    where + sinceSql,
    ORDER_BY[order],
    index,
  );
  const countSql = options.onProgress ? `SELECT count(*) AS n FROM properties p WHERE ${where}${sinceSql}` : null;
  const max = options.selection?.maxListings ?? Infinity;
  const summary: ExportSummary = { entity: "properties", format, exported: 0, skipped: 0, idAsListingId: 0 };
  if (format === "vrsync")
    await sink.write(vrsyncHeader("partner-api", options.publishDate ?? (options.now?.() ?? new Date()).toISOString()));
  await eachRow(db, sql, countSql, params, async ({ id, json }, total) => {
    if (format === "ndjson") {
      await sink.write(json + "\n");
    } else {
      const { listing } = listingOfProjection(json);
      // VRSync requires a ListingID; the id names a property without a code, and an import
      // into the same database recognises it (rows.ts, byListingId).
      const named = { ...listing, code: listing.code ?? id };
      if (options.unwritable !== undefined ? options.unwritable.has(id) : unwritableReason(named) !== null) {
        summary.skipped++;
        return;
      }
      if (listing.code === null) summary.idAsListingId++;
      await sink.write(vrsyncListing(named));
    }
    if (++summary.exported % 1000 === 0) options.onProgress?.(summary.exported, total);
    return summary.exported < max;
  });
  if (format === "vrsync") await sink.write(VRSYNC_FOOTER);
  return summary;
}

/** Leads in the API's shape, one JSON object per line, for the agency's CRM. */
export async function exportLeads(db: Database, sink: Sink, options: ExportOptions = {}): Promise<ExportSummary> {
  const since = options.since ?? null;
  const where = since === null ? "1 = 1" : "l.updated_at > ?";
  const sql = selectSql(
    "leads",
    "l",
    projection(LEAD_FIELDS, "stored"),
    where,
    since === null ? "l.created_at, l.id" : "l.updated_at, l.id",
  );
  const countSql = options.onProgress ? `SELECT count(*) AS n FROM leads l WHERE ${where}` : null;
  const summary: ExportSummary = { entity: "leads", format: "ndjson", exported: 0, skipped: 0, idAsListingId: 0 };
  await eachRow(db, sql, countSql, since === null ? [] : [since], async ({ json }, total) => {
    await sink.write(json + "\n");
    if (++summary.exported % 1000 === 0) options.onProgress?.(summary.exported, total);
  });
  return summary;
}
