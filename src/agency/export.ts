// `export`: published properties as VRSync or NDJSON (the API's shape), leads as NDJSON, streamed
// from one read snapshot, so an export taken while the server writes is consistent.
import type { Database } from "bun:sqlite";
import { LEAD_FIELDS } from "../catalog/leads.ts";
import { PROPERTY_FIELDS } from "../catalog/properties.ts";
import { projection } from "../catalog/sql.ts";
import type { RecordView } from "../catalog/types.ts";
import { VRSYNC_FOOTER, vrsyncHeader, vrsyncListing } from "../feeds/vrsync/writer.ts";
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
  now?: () => Date;
  onProgress?: (exported: number, total: number) => void;
}

export interface ExportSummary {
  entity: ExportEntity;
  format: ExportFormat;
  exported: number;
  /** Published properties left out (none: every published property can be written). */
  skipped: number;
  /** Of the VRSync listings, those written with their id as ListingID because they have no code. */
  idAsListingId: number;
}

function selectSql(table: string, alias: string, json: string, visible: string, since: boolean): string {
  const where = since ? `${visible} AND ${alias}.updated_at > ?` : visible;
  const order = since ? `${alias}.updated_at, ${alias}.id` : `${alias}.created_at, ${alias}.id`;
  return `SELECT ${json} AS json FROM ${table} ${alias} WHERE ${where} ORDER BY ${order}`;
}

/** Runs `body` over the rows of one query inside one read transaction (a single snapshot). */
async function eachRow(db: Database, sql: string, countSql: string, since: string | null, body: (json: string, total: number) => Promise<void>): Promise<void> {
  const params = since === null ? [] : [since];
  db.run("BEGIN");
  const statement = db.prepare<{ json: string }, string[]>(sql);
  try {
    const { n: total } = db.query<{ n: number }, string[]>(countSql).get(...params)!;
    for (const row of statement.iterate(...params)) await body(row.json, total);
  } finally {
    statement.finalize();
    db.run("COMMIT");
  }
}

export async function exportProperties(db: Database, format: ExportFormat, sink: Sink, options: ExportOptions = {}): Promise<ExportSummary> {
  const since = options.since ?? null;
  const visible = "p.is_published = 1";
  const sql = selectSql("properties", "p", projection(PROPERTY_FIELDS, options.view ?? "stored"), visible, since !== null);
  const countSql = `SELECT count(*) AS n FROM properties p WHERE ${visible}${since === null ? "" : " AND p.updated_at > ?"}`;
  const summary: ExportSummary = { entity: "properties", format, exported: 0, skipped: 0, idAsListingId: 0 };
  if (format === "vrsync") await sink.write(vrsyncHeader("partner-api", (options.now?.() ?? new Date()).toISOString()));
  await eachRow(db, sql, countSql, since, async (json, total) => {
    if (format === "ndjson") {
      await sink.write(json + "\n");
    } else {
      const { id, listing } = listingOfProjection(json);
      // VRSync requires a ListingID; the id names a property without a code, and an import
      // into the same database recognises it (rows.ts, byListingId).
      if (listing.code === null) summary.idAsListingId++;
      await sink.write(vrsyncListing({ ...listing, code: listing.code ?? id }));
    }
    if (++summary.exported % 1000 === 0) options.onProgress?.(summary.exported, total);
  });
  if (format === "vrsync") await sink.write(VRSYNC_FOOTER);
  return summary;
}

/** Leads in the API's shape, one JSON object per line, for the agency's CRM. */
export async function exportLeads(db: Database, sink: Sink, options: ExportOptions = {}): Promise<ExportSummary> {
  const since = options.since ?? null;
  const sql = selectSql("leads", "l", projection(LEAD_FIELDS, "stored"), "1 = 1", since !== null);
  const countSql = `SELECT count(*) AS n FROM leads l${since === null ? "" : " WHERE l.updated_at > ?"}`;
  const summary: ExportSummary = { entity: "leads", format: "ndjson", exported: 0, skipped: 0, idAsListingId: 0 };
  await eachRow(db, sql, countSql, since, async (json, total) => {
    await sink.write(json + "\n");
    if (++summary.exported % 1000 === 0) options.onProgress?.(summary.exported, total);
  });
  return summary;
}
