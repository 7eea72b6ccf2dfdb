// Writes a deterministic fictitious dataset (properties, photos, leads) into a new partner-api database file, streaming rows in batches.
import type { Database } from "bun:sqlite";
import { existsSync, linkSync, renameSync, rmSync } from "node:fs";
import { setAsideForBulkLoad } from "../db/bulk-load.ts";
import { removeDatabaseFiles } from "../db/files.ts";
import { refuseIfInUse } from "../db/in-use.ts";
import { closeDatabase, openDatabase } from "../db/open.ts";
import { RowBuffer, type Value } from "../db/row-buffer.ts";
import { putBack } from "../db/schema-objects.ts";
import { Prng } from "./prng.ts";
import { generateProperty, type PropertyRecord } from "./properties.ts";
import {
  awaitSideThread,
  isSideTable,
  PROPERTY_STREAM,
  RECORD_BATCH,
  SIDE_TABLES,
  sideIndexes,
  startSideThread,
  useBulkLoadPragmas,
} from "./side-file.ts";
import type { Timeline } from "./timeline.ts";

export const DEFAULT_AS_OF = "2026-01-01T00:00:00.000Z";

export interface SeedOptions {
  properties: number;
  leads: number;
  seed: number;
  /** ISO instant the dataset is "as of": every createdAt/updatedAt is at or before it. */
  asOf: string;
  /** Replace an existing file at the output path (refused otherwise). */
  overwrite?: boolean;
  onProgress?: (done: number, total: number) => void;
}

export interface SeedSummary {
  properties: number;
  published: number;
  photos: number;
  leads: number;
  ms: number;
}

export const DEFAULT_SEED_OPTIONS: SeedOptions = Object.freeze({
  properties: 1000,
  leads: 5000,
  seed: 42,
  asOf: DEFAULT_AS_OF,
});

export class SeedTargetExistsError extends Error {
  constructor(readonly path: string) {
    super(`${path} already exists; refusing to overwrite it`);
  }
}

const MAX_RECORDS = 50_000_000;
const DAY_MS = 86_400_000;
const TIMELINE_MS = 2 * 365 * DAY_MS;

const PROPERTY_COLUMNS = [
  "id",
  "code",
  "title",
  "description",
  "operation_type",
  "status",
  "property_type",
  "highlight",
  "exclusive",
  "is_published",
  "created_at",
  "updated_at",
  "street",
  "number",
  "complement",
  "neighborhood",
  "city",
  "state",
  "uf",
  "cep",
  "latitude",
  "longitude",
  "total_area",
  "built_area",
  "bedrooms",
  "bathrooms",
  "suites",
  "parking_spaces",
  "floor",
  "total_floors",
  "is_furnished",
  "sale_price",
  "rental_price",
  "condominium_fee",
  "iptu",
  "accepts_financing",
  "display_address",
  "amenities",
] as const;

const PHOTO_COLUMNS = ["property_id", "id", "url", "alt", "position", "is_main"] as const;

function validate(options: SeedOptions): Timeline {
  for (const key of ["properties", "leads"] as const) {
    const n = options[key];
    // The cap keeps i * leadCount (see propertyComesFirst) an exact integer.
    if (!Number.isSafeInteger(n) || n < 0 || n > MAX_RECORDS)
      throw new RangeError(`${key} must be an integer from 0 to ${MAX_RECORDS}, got ${n}`);
  }
  if (!Number.isSafeInteger(options.seed)) throw new RangeError(`seed must be an integer, got ${options.seed}`);
  const endMs = Date.parse(options.asOf);
  if (Number.isNaN(endMs)) throw new RangeError(`asOf must be an ISO 8601 instant, got ${options.asOf}`);
  return { startMs: endMs - TIMELINE_MS, endMs };
}

function propertyValues(p: PropertyRecord): Value[] {
  return [
    p.id,
    p.code,
    p.title,
    p.description,
    p.operationType,
    p.status,
    p.propertyType,
    p.highlight,
    p.exclusive ? 1 : 0,
    p.isPublished ? 1 : 0,
    p.createdAt,
    p.updatedAt,
    p.street,
    p.number,
    p.complement,
    p.neighborhood,
    p.city,
    p.state,
    p.uf,
    p.cep,
    p.latitude,
    p.longitude,
    p.totalArea,
    p.builtArea,
    p.bedrooms,
    p.bathrooms,
    p.suites,
    p.parkingSpaces,
    p.floor,
    p.totalFloors,
    p.isFurnished ? 1 : 0,
    p.salePrice,
    p.rentalPrice,
    p.condominiumFee,
    p.iptu,
    p.acceptsFinancing ? 1 : 0,
    p.displayAddress,
    JSON.stringify(p.amenities),
  ];
}

/**
 * The properties and their photos, in index order (rowids from 1), RECORD_BATCH per transaction; `onBatch` hears how many are
 * written. The other half of the dataset is the side thread's (side-file.ts).
 */
function writeProperties(
  db: Database,
  options: SeedOptions,
  timeline: Timeline,
  onBatch: (done: number) => void,
): Pick<SeedSummary, "properties" | "published" | "photos"> {
  const properties = new RowBuffer(db, "properties", PROPERTY_COLUMNS, 16);
  const photos = new RowBuffer(db, "photos", PHOTO_COLUMNS, 64);
  const rng = new Prng(options.seed, PROPERTY_STREAM);
  const totals = { properties: 0, published: 0, photos: 0 };
  const batch = db.transaction((records: number) => {
    for (let n = 0; n < records; n++) {
      const p = generateProperty(rng, totals.properties, options.properties, timeline);
      properties.add(propertyValues(p));
      for (const photo of p.photos)
        photos.add([p.id, photo.id, photo.url, photo.alt, photo.position, photo.isMain ? 1 : 0]);
      totals.properties++; // the rowid
      totals.photos += p.photos.length;
      if (p.isPublished) totals.published++;
    }
    properties.flush();
    photos.flush();
  });
  for (let done = 0; done < options.properties; done += RECORD_BATCH) {
    batch(Math.min(RECORD_BATCH, options.properties - done));
    onBatch(totals.properties);
  }
  properties.finalize();
  photos.finalize();
  return totals;
}

/** Copies what the side file holds over the dataset's own tables; inside the caller's transaction. */
function copySideTables(db: Database): void {
  for (const table of SIDE_TABLES) {
    db.run(`DELETE FROM main.${table}`);
    db.run(`INSERT INTO main.${table} SELECT * FROM side.${table}`);
  }
}

/**
 * Loads on both cores, with the indexes and triggers set aside: this thread writes the
 * properties and their photos; a side thread draws the same properties again beside the leads
 * and writes, into a side file, the leads and what the set-aside triggers would have written for
 * both (the change log, the counters), with those tables' indexes. Once both are done the side
 * file's tables are copied in, the word index refilled from the properties, the other indexes
 * built and the triggers put back, in one transaction. Change rows are stamped with asOf, so the
 * same options always give the same file: the dataset is a snapshot as of that instant.
 */
function build(db: Database, options: SeedOptions, timeline: Timeline, progress: Progress): Omit<SeedSummary, "ms"> {
  const aside = setAsideForBulkLoad(db, { unknownTriggers: "refuse", uniqueIndexes: "aside" });
  const sidePath = `${db.filename}.side`;
  removeDatabaseFiles(sidePath);
  const side = startSideThread(sidePath, options, timeline);
  let properties = 0;
  let leads = 0;
  const report = () => progress.report?.(properties + leads, progress.total);
  try {
    const totals = writeProperties(db, options, timeline, (done) => {
      properties = done;
      leads = side.state.leads;
      report();
    });
    awaitSideThread(side.state, (done) => {
      leads = done;
      report();
    });
    db.run("ATTACH DATABASE ? AS side", [sidePath]);
    try {
      // Committed statement by statement, the index builds rewrote pages of an earlier commit, and
      // the in-memory rollback journal (journal_mode MEMORY) held a copy of each. Pages written in
      // the same transaction need no copy.
      db.transaction(() => {
        // The copied tables' indexes first, on the empty tables: the copy fills them as it goes.
        const indexes = sideIndexes(aside.objects);
        for (const index of indexes) db.run(index.sql);
        copySideTables(db);
        // The side file's tables are whole: only the word index is refilled.
        putBack(db, {
          objects: aside.objects.filter((o) => !indexes.includes(o)),
          refills: aside.refills.filter((r) => ![...r.tables].every(isSideTable)),
        });
      })();
    } finally {
      db.run("DETACH DATABASE side");
    }
    // Sampled statistics: enough for the planner to pick the partial indexes, seconds cheaper at 1M rows.
    db.run("PRAGMA analysis_limit = 1000");
    db.run("ANALYZE");
    db.run("PRAGMA journal_mode = WAL"); // persistent: the served file opens in WAL mode
    return { ...totals, leads: options.leads };
  } finally {
    side.stop();
    removeDatabaseFiles(sidePath);
  }
}

interface Progress {
  total: number;
  report?: (done: number, total: number) => void;
}

/**
 * Writes the dataset into an open database that holds no rows yet, with the bulk-load settings
 * (left in force): writeSeedDatabase's work without the file's handling. A file no one else may
 * open until it returns; `<its path>.side` is written and removed beside it.
 */
export function seedDatabase(db: Database, options: SeedOptions): Omit<SeedSummary, "ms"> {
  const timeline = validate(options);
  useBulkLoadPragmas(db);
  return build(db, options, timeline, { total: options.properties + options.leads, report: options.onProgress });
}

/** Moves the finished file into place; without overwrite, a hard link refuses atomically if the target appeared meanwhile. */
function publishFile(tmpPath: string, outPath: string, overwrite: boolean): void {
  if (overwrite) {
    // Under a live connection the old file's -wal and -shm are in use: replacing them corrupts.
    refuseIfInUse(outPath);
    // A stale WAL beside the old file would be replayed into the new one.
    rmSync(`${outPath}-wal`, { force: true });
    rmSync(`${outPath}-shm`, { force: true });
    renameSync(tmpPath, outPath);
    return;
  }
  try {
    linkSync(tmpPath, outPath);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") throw new SeedTargetExistsError(outPath);
    throw error;
  }
  rmSync(tmpPath);
}

/**
 * Builds the dataset in `outPath.tmp-<pid>` and moves it onto `outPath` only once complete, so a
 * half-built file is never served. Refuses an existing `outPath` unless `options.overwrite`.
 */
export function writeSeedDatabase(outPath: string, options: SeedOptions): SeedSummary {
  const started = performance.now();
  validate(options); // before anything is touched
  const overwrite = options.overwrite === true;
  if (!overwrite && existsSync(outPath)) throw new SeedTargetExistsError(outPath);
  if (overwrite) refuseIfInUse(outPath); // before minutes of work, and again before the swap
  const tmpPath = `${outPath}.tmp-${process.pid}`;
  removeDatabaseFiles(tmpPath);
  try {
    const db = openDatabase(tmpPath);
    let totals: Omit<SeedSummary, "ms">;
    try {
      totals = seedDatabase(db, options);
    } finally {
      closeDatabase(db);
    }
    publishFile(tmpPath, outPath, overwrite);
    return { ...totals, ms: Math.round(performance.now() - started) };
  } catch (error) {
    removeDatabaseFiles(tmpPath);
    throw error;
  }
}
