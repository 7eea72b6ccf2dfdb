// Shared by the CRM feed tests: import a fixture into a new database and read every listing back
// through the API, as the agency's own client (fullAddress) or as a partner sees it.
import { join } from "node:path";
import { type ImportSummary, importFeed } from "../../src/agency/import.ts";
import { PROPERTY_FIELDS } from "../../src/catalog/properties.ts";
import { apiOver } from "./helpers.ts";

export const CRM_FIXTURES = join(import.meta.dir, "../fixtures/vrsync");

export type ApiRecord = Record<string, any>;

/** Every published property through GET /v1/properties with every field, by code. */
export async function readBack(db: string, fullAddress: boolean): Promise<Map<string, ApiRecord>> {
  const api = await apiOver(db, { fullAddress });
  try {
    const fields = PROPERTY_FIELDS.map((f) => f.name).join(",");
    const records = new Map<string, ApiRecord>();
    for (let page = 1; ; page++) {
      const { status, body } = await api.get(`/v1/properties?fields=${fields}&limit=100&page=${page}`);
      if (status !== 200) throw new Error(`GET /v1/properties: ${status} ${JSON.stringify(body)}`);
      for (const record of body.data) records.set(record.code, record);
      if (page >= body.meta.totalPages) break;
    }
    return records;
  } finally {
    api.close();
  }
}

/** The listing's content: what a new database does not assign itself (no id, dates, photo ids). */
export function content(record: ApiRecord): ApiRecord {
  const { id: _id, createdAt: _c, updatedAt: _u, isPublished: _p, photos, ...rest } = record;
  return { ...rest, photos: (photos as ApiRecord[]).map(({ id: _photoId, ...photo }) => photo) };
}

let counter = 0;

/** Imports a fixture (a path under test/fixtures/vrsync) into a new database in `dir` and reads it back. */
export async function importAndRead(
  dir: { path: (name: string) => string },
  fixture: string,
  options: { strict?: boolean } = {},
): Promise<{ db: string; summary: ImportSummary; records: Map<string, ApiRecord> }> {
  const db = dir.path(`crm-${++counter}.sqlite`);
  const summary = await importFeed(db, join(CRM_FIXTURES, fixture), options);
  return { db, summary, records: await readBack(db, true) };
}

/** The warnings of one listing, as kind and element, in a stable order. */
export function warningsOf(summary: ImportSummary, code: string | null): string[] {
  return summary.warningList
    .filter((w) => w.code === code)
    .map((w) => `${w.kind} ${w.element}`)
    .sort();
}
