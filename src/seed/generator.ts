// Writes a deterministic fictitious dataset (properties, photos, leads) into a new partner-api database file, streaming rows in batches.
import type { Database } from "bun:sqlite";
import { existsSync, linkSync, renameSync, rmSync } from "node:fs";
import { setAsideForBulkLoad, TriggerStandIn } from "../db/bulk-load.ts";
import { removeDatabaseFiles } from "../db/files.ts";
import { refuseIfInUse } from "../db/in-use.ts";
import { closeDatabase, openDatabase } from "../db/open.ts";
import { RowBuffer, type Value } from "../db/row-buffer.ts";
import { putBack } from "../db/schema-objects.ts";
import { generateLead, type LeadRecord, type LinkFinder, type LinkTarget } from "./leads.ts";
import { Prng } from "./prng.ts";
import { generateProperty, type PropertyRecord } from "./properties.ts";
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

/** Independent PRNG streams: the leads never shift when the property count changes, and vice versa. */
const PROPERTY_STREAM = 1;
const LEAD_STREAM = 2;
const MAX_RECORDS = 50_000_000;
const RECORD_BATCH = 20_000; // properties and leads per transaction: about 80k rows with photos
const DAY_MS = 86_400_000;
const TIMELINE_MS = 2 * 365 * DAY_MS;
const LINK_WINDOW_MS = 120 * DAY_MS;

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

const LEAD_COLUMNS = [
  "id",
  "name",
  "email",
  "phone",
  "message",
  "source",
  "status",
  "priority",
  "property_id",
  "interested_property_title",
  "interested_property_link",
  "traffic_origin",
  "created_at",
  "updated_at",
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

/** Bulk-load settings for a file nobody else can see yet: a crash only loses the temporary file. */
function useBulkLoadPragmas(db: Database): void {
  // WAL cannot switch to OFF (and bun:sqlite refuses OFF); an in-memory rollback journal costs next to nothing.
  db.run("PRAGMA journal_mode = MEMORY");
  db.run("PRAGMA synchronous = OFF");
  // Rows are consistent by construction (photos follow their property); the check would cost a lookup per photo.
  db.run("PRAGMA foreign_keys = OFF");
  // Index builds at the end sort in a helper thread too.
  db.run("PRAGMA threads = 2");
  // The index builds and the derived counters' GROUP BYs sort millions of rows: with temporary
  // storage in memory (the served connection's setting) their sorters grew the seed past a
  // gigabyte at 1M. In files, SQLite spills past the page cache and the OS keeps what fits.
  db.run("PRAGMA temp_store = FILE");
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

interface Progress {
  done: number;
  total: number;
  report?: (done: number, total: number) => void;
}

function advance(progress: Progress, rows: number): void {
  progress.done += rows;
  progress.report?.(progress.done, progress.total);
}

/**
 * Published properties of the last LINK_WINDOW_MS, oldest first, as plain numbers (creation
 * time, rowid): what a new lead may ask about. Holding the records themselves would keep
 * hundreds of megabytes of strings alive at a million rows.
 */
class RecentListings {
  private createdMs: number[] = [];
  private rowids: number[] = [];
  private head = 0;

  add(createdMs: number, rowid: number): void {
    this.createdMs.push(createdMs);
    this.rowids.push(rowid);
  }

  /** The rowid of a PRNG-chosen listing created in [ms - window, ms]; asked with ever later `ms`. */
  pick(rng: Prng, ms: number): number | null {
    const oldest = ms - LINK_WINDOW_MS;
    while (this.head < this.createdMs.length && this.createdMs[this.head]! < oldest) this.head++;
    if (this.head > 4096 && this.head * 2 > this.createdMs.length) {
      this.createdMs = this.createdMs.slice(this.head); // keeps memory bounded by the window
      this.rowids = this.rowids.slice(this.head);
      this.head = 0;
    }
    // The newest entries may come from the lead's own grid slice yet postdate it.
    let end = this.createdMs.length;
    while (end > this.head && this.createdMs[end - 1]! > ms) end--;
    return end === this.head ? null : this.rowids[rng.int(this.head, end - 1)]!;
  }
}

/** Where each kind of row goes; the trigger stand-in sees every row too. */
class Writers {
  readonly properties: RowBuffer;
  readonly photos: RowBuffer;
  readonly leads: RowBuffer;

  constructor(
    db: Database,
    readonly stand: TriggerStandIn,
  ) {
    this.properties = new RowBuffer(db, "properties", PROPERTY_COLUMNS, 16);
    this.photos = new RowBuffer(db, "photos", PHOTO_COLUMNS, 64);
    this.leads = new RowBuffer(db, "leads", LEAD_COLUMNS, 32);
  }

  property(p: PropertyRecord): void {
    this.properties.add(propertyValues(p));
    for (const photo of p.photos)
      this.photos.add([p.id, photo.id, photo.url, photo.alt, photo.position, photo.isMain ? 1 : 0]);
    this.stand.propertyInserted(p);
  }

  lead(l: LeadRecord): void {
    this.leads.add([
      l.id,
      l.name,
      l.email,
      l.phone,
      l.message,
      l.source,
      l.status,
      l.priority,
      l.propertyId,
      l.interestedPropertyTitle,
      l.interestedPropertyLink,
      l.trafficOrigin,
      l.createdAt,
      l.updatedAt,
    ]);
    this.stand.leadInserted(l);
  }

  /** Before each commit. */
  flush(): void {
    this.properties.flush();
    this.photos.flush();
    this.leads.flush();
    this.stand.flush();
  }

  finalize(): void {
    for (const buffer of [this.properties, this.photos, this.leads]) buffer.finalize();
  }
}

/** Whether property i's grid slice starts no later than lead j's (i/P <= j/L, in exact integers). */
function propertyComesFirst(i: number, j: number, propertyCount: number, leadCount: number): boolean {
  return j >= leadCount || (i < propertyCount && i * leadCount <= j * propertyCount);
}

/**
 * Properties and leads merged in time order (whichever grid slice starts first goes next), so
 * a lead links to a property listed in the months before it, found through a small window of
 * recent rowids. Each keeps its own PRNG stream: the properties never depend on the lead count.
 */
function writeRecords(
  db: Database,
  options: SeedOptions,
  timeline: Timeline,
  stand: TriggerStandIn,
  progress: Progress,
): Omit<SeedSummary, "ms"> {
  const { properties: propertyCount, leads: leadCount } = options;
  const writers = new Writers(db, stand);
  const propertyRng = new Prng(options.seed, PROPERTY_STREAM);
  const leadRng = new Prng(options.seed, LEAD_STREAM);
  const recent = new RecentListings();
  const fetchListing = db.prepare("SELECT id, code, title, city FROM properties WHERE rowid = ?");
  const findLink: LinkFinder = (rng, createdMs) => {
    const rowid = recent.pick(rng, createdMs);
    if (rowid === null) return null;
    if (rowid > writers.properties.written) writers.properties.flush();
    return fetchListing.get(rowid) as LinkTarget;
  };
  const totals = { properties: 0, published: 0, photos: 0, leads: 0 };
  const batch = db.transaction((records: number) => {
    for (let n = 0; n < records; n++) {
      const { properties: i, leads: j } = totals;
      if (propertyComesFirst(i, j, propertyCount, leadCount)) {
        const p = generateProperty(propertyRng, i, propertyCount, timeline);
        writers.property(p);
        if (p.isPublished) {
          recent.add(Date.parse(p.createdAt), i + 1); // rowids count from 1 in insertion order
          totals.published++;
        }
        totals.photos += p.photos.length;
        totals.properties++;
      } else {
        writers.lead(generateLead(leadRng, j, leadCount, timeline, findLink));
        totals.leads++;
      }
    }
    writers.flush();
  });
  for (let done = 0; done < progress.total; done += RECORD_BATCH) {
    const records = Math.min(RECORD_BATCH, progress.total - done);
    batch(records);
    advance(progress, records);
  }
  writers.finalize();
  fetchListing.finalize();
  return totals;
}

/**
 * Loads with the indexes and triggers set aside, writing what the triggers would have written
 * as it goes (see TriggerStandIn). Change rows are stamped with asOf, so the same options always
 * give the same file: the dataset is a snapshot as of that instant.
 */
function build(db: Database, options: SeedOptions, timeline: Timeline, progress: Progress): Omit<SeedSummary, "ms"> {
  const aside = setAsideForBulkLoad(db, { unknownTriggers: "refuse", uniqueIndexes: "aside" });
  const stand = new TriggerStandIn(db, options.asOf);
  const totals = writeRecords(db, options, timeline, stand, progress);
  db.transaction(() => stand.finish())();
  // The search tables in one pass over the loaded rows, then the indexes, then the triggers, in
  // one transaction. Committed statement by statement, the word index's merge into one segment
  // rewrote pages of an earlier commit, and the in-memory rollback journal (journal_mode MEMORY)
  // held a copy of each: 260 MB more at 1M. Pages written in the same transaction need no copy.
  db.transaction(() => putBack(db, aside))();
  // Sampled statistics: enough for the planner to pick the partial indexes, seconds cheaper at 1M rows.
  db.run("PRAGMA analysis_limit = 1000");
  db.run("ANALYZE");
  db.run("PRAGMA journal_mode = WAL"); // persistent: the served file opens in WAL mode
  return totals;
}

/**
 * Writes the dataset into an open database that holds no rows yet, with the bulk-load settings
 * (left in force): writeSeedDatabase's work without the file's handling. A file no one else may
 * open until it returns.
 */
export function seedDatabase(db: Database, options: SeedOptions): Omit<SeedSummary, "ms"> {
  const timeline = validate(options);
  const progress: Progress = { done: 0, total: options.properties + options.leads, report: options.onProgress };
  useBulkLoadPragmas(db);
  return build(db, options, timeline, progress);
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
