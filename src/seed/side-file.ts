// The seed's second half, run by a thread of its own (side-thread.ts) beside the one that writes
// the properties and their photos: the leads, the change log and the counters,
// written into a side file that the seed copies into the dataset once both halves are done
// (docs/internals/derived-tables.md, "The seed on two cores").
import type { Database } from "bun:sqlite";
import { setAsideForBulkLoad, TriggerStandIn } from "../db/bulk-load.ts";
import { closeDatabase, openDatabase } from "../db/open.ts";
import { RowBuffer, type Value } from "../db/row-buffer.ts";
import type { SchemaObject } from "../db/schema-objects.ts";
import { runsCompiled } from "../executable.ts";
import { generateLead, type LeadRecord, type LinkTarget } from "./leads.ts";
import { Prng } from "./prng.ts";
import { generateProperty, type PropertyRecord } from "./properties.ts";
import type { Timeline } from "./timeline.ts";

/** Independent PRNG streams: the leads never shift when the property count changes, and vice versa. */
export const PROPERTY_STREAM = 1;
const LEAD_STREAM = 2;
/** Properties and leads per transaction. */
export const RECORD_BATCH = 20_000;
const DAY_MS = 86_400_000;
const LINK_WINDOW_MS = 120 * DAY_MS;
/** A side thread that has not started after this long never will (its code missing from a build). */
const SIDE_START_MS = 30_000;

const SIDE_THREAD_CODE = runsCompiled
  ? "/$bunfs/root/seed/side-thread.js"
  : new URL("./side-thread.ts", import.meta.url).href;

/** What the side file holds for the dataset: copied whole, over what the dataset's file holds. */
export const SIDE_TABLES = [
  "leads",
  "changes",
  "change_streams",
  "date_order_exceptions",
  "property_counts",
  "property_days",
  "property_date_pairs",
  "lead_counts",
  "lead_days",
  "lead_date_pairs",
] as const;

const copied: ReadonlySet<string> = new Set(SIDE_TABLES);

/** Whether the side file fills `table` (copied in whole: neither indexed nor refilled after). */
export const isSideTable = (table: string) => copied.has(table);

/**
 * The indexes of the tables the side file holds, built in it before the copy. Copied into the
 * dataset's file where the same indexes already stand on the empty tables, a table comes with
 * its indexes as they are (SQLite's transfer of a whole table: cells copied in order, no sort).
 */
export const sideIndexes = (objects: readonly SchemaObject[]) =>
  objects.filter((o) => o.type === "index" && isSideTable(o.table));

export interface SideOptions {
  properties: number;
  leads: number;
  seed: number;
  asOf: string;
}

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

/** Bulk-load settings for a file nobody else can see yet: a crash only loses the temporary file. */
export function useBulkLoadPragmas(db: Database): void {
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

/**
 * Published properties of the last LINK_WINDOW_MS, oldest first: what a new lead may ask about.
 * Each is kept as one flat string (the JSON of the four strings a lead quotes): the strings of a
 * generated record are ropes of many small pieces, and kept as they are, the window of a million
 * listings took hundreds of megabytes.
 */
class RecentListings {
  private createdMs: number[] = [];
  private targets: string[] = [];
  private head = 0;

  add(createdMs: number, target: LinkTarget): void {
    this.createdMs.push(createdMs);
    this.targets.push(JSON.stringify([target.id, target.code, target.title, target.city]));
  }

  /** A PRNG-chosen listing created in [ms - window, ms]; asked with ever later `ms`. */
  pick(rng: Prng, ms: number): LinkTarget | null {
    const oldest = ms - LINK_WINDOW_MS;
    while (this.head < this.createdMs.length && this.createdMs[this.head]! < oldest) this.head++;
    if (this.head > 4096 && this.head * 4 > this.createdMs.length) {
      this.createdMs = this.createdMs.slice(this.head); // keeps memory bounded by the window
      this.targets = this.targets.slice(this.head);
      this.head = 0;
    }
    // The newest entries may come from the lead's own grid slice yet postdate it.
    let end = this.createdMs.length;
    while (end > this.head && this.createdMs[end - 1]! > ms) end--;
    if (end === this.head) return null;
    const [id, code, title, city] = JSON.parse(this.targets[rng.int(this.head, end - 1)]!) as [
      string,
      string | null,
      string,
      string | null,
    ];
    return { id, code, title, city };
  }
}

/** Whether property i's grid slice starts no later than lead j's (i/P <= j/L, in exact integers). */
function propertyComesFirst(i: number, j: number, propertyCount: number, leadCount: number): boolean {
  return j >= leadCount || (i < propertyCount && i * leadCount <= j * propertyCount);
}

function leadValues(l: LeadRecord): Value[] {
  return [
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
  ];
}

/**
 * Properties and leads merged in time order (whichever grid slice starts first goes next), so
 * a lead links to a property listed in the months before it, and the change log holds their
 * entries in that order. The properties are drawn again from their own stream, as the other
 * thread draws them (the same records): here they give their change rows, their counts and the
 * listings a lead may quote, and are written nowhere else.
 */
function writeSideRecords(
  db: Database,
  options: SideOptions,
  timeline: Timeline,
  stand: TriggerStandIn,
  onLeads: (done: number) => void,
): void {
  const { properties: propertyCount, leads: leadCount } = options;
  const leads = new RowBuffer(db, "leads", LEAD_COLUMNS, 32);
  const propertyRng = new Prng(options.seed, PROPERTY_STREAM);
  const leadRng = new Prng(options.seed, LEAD_STREAM);
  const recent = new RecentListings();
  const findLink = (rng: Prng, createdMs: number) => recent.pick(rng, createdMs);
  let i = 0;
  let j = 0;
  const batch = db.transaction((records: number) => {
    for (let n = 0; n < records; n++) {
      if (propertyComesFirst(i, j, propertyCount, leadCount)) {
        const p: PropertyRecord = generateProperty(propertyRng, i, propertyCount, timeline);
        i++; // rowids count from 1 in insertion order
        stand.propertyInserted(p);
        if (p.isPublished) {
          recent.add(Date.parse(p.createdAt), { id: p.id, code: p.code, title: p.title, city: p.city });
        }
      } else {
        const l = generateLead(leadRng, j, leadCount, timeline, findLink);
        j++;
        leads.add(leadValues(l));
        stand.leadInserted(l);
      }
    }
    leads.flush();
    stand.flush();
  });
  const total = propertyCount + leadCount;
  for (let done = 0; done < total; done += RECORD_BATCH) {
    batch(Math.min(RECORD_BATCH, total - done));
    onLeads(j);
  }
  leads.finalize();
}

/**
 * Writes the side file at `path` (a new file): the leads, the change log and the counters of the
 * dataset `options` describes, as the triggers would have left them had every row been written
 * with them live, and the indexes of those tables. `onLeads` hears how many leads are written,
 * batch by batch.
 */
export function writeSideFile(
  path: string,
  options: SideOptions,
  timeline: Timeline,
  onLeads: (done: number) => void,
): void {
  const db = openDatabase(path);
  try {
    useBulkLoadPragmas(db);
    // Only the copied tables' indexes come back here (below); the triggers never do: the file is
    // read once, by the copy, and the dataset's own are put back there.
    const aside = setAsideForBulkLoad(db, { unknownTriggers: "refuse", uniqueIndexes: "aside" });
    const stand = new TriggerStandIn(db, options.asOf);
    writeSideRecords(db, options, timeline, stand, onLeads);
    db.transaction(() => {
      stand.finish();
      // The indexes of the copied tables are built here, on this core: the copy takes them along.
      for (const index of sideIndexes(aside.objects)) db.run(index.sql);
    })();
  } finally {
    closeDatabase(db);
  }
}

/** Where the side thread says how it is doing, in memory both threads share: read without an event loop. */
export class SideState {
  static readonly BYTES = 16 + 4096;
  private readonly ints: Int32Array;
  private readonly text: Uint8Array;

  constructor(readonly buffer: SharedArrayBuffer = new SharedArrayBuffer(SideState.BYTES)) {
    this.ints = new Int32Array(buffer, 0, 4);
    this.text = new Uint8Array(buffer, 16);
  }

  static readonly NOT_STARTED = 0;
  static readonly RUNNING = 1;
  static readonly DONE = 2;
  static readonly FAILED = 3;

  get state(): number {
    return Atomics.load(this.ints, 0);
  }

  get leads(): number {
    return Atomics.load(this.ints, 1);
  }

  set leads(done: number) {
    Atomics.store(this.ints, 1, done);
  }

  /** The failure's message, once FAILED. */
  get error(): string {
    return new TextDecoder().decode(this.text.slice(0, Atomics.load(this.ints, 2)));
  }

  running(): void {
    this.settle(SideState.RUNNING);
  }

  done(): void {
    this.settle(SideState.DONE);
  }

  failed(message: string): void {
    const { written } = new TextEncoder().encodeInto(message, this.text);
    Atomics.store(this.ints, 2, written);
    this.settle(SideState.FAILED);
  }

  /** Waits up to `ms` for the state to leave `from`; true if it did. */
  waitFrom(from: number, ms: number): boolean {
    return Atomics.wait(this.ints, 0, from, ms) !== "timed-out" || this.state !== from;
  }

  private settle(state: number): void {
    Atomics.store(this.ints, 0, state);
    Atomics.notify(this.ints, 0);
  }
}

/** What the side thread is asked to do. */
export interface SideJob {
  path: string;
  options: SideOptions;
  timeline: Timeline;
  state: SharedArrayBuffer;
}

/** The side thread, started on its file; stopped whatever happens by `stop`. */
export function startSideThread(
  path: string,
  options: SideOptions,
  timeline: Timeline,
): { state: SideState; stop(): void } {
  const state = new SideState();
  const worker = new Worker(SIDE_THREAD_CODE);
  worker.unref();
  const { properties, leads, seed, asOf } = options;
  worker.postMessage({
    path,
    options: { properties, leads, seed, asOf },
    timeline,
    state: state.buffer,
  } satisfies SideJob);
  return { state, stop: () => worker.terminate() };
}

/** Waits for the side thread to finish, reporting its leads as it goes; throws what stopped it. */
export function awaitSideThread(state: SideState, report: (leads: number) => void): void {
  const started = performance.now();
  for (;;) {
    const now = state.state;
    if (now === SideState.DONE) {
      report(state.leads);
      return;
    }
    if (now === SideState.FAILED) throw new Error(`the seed's side thread failed: ${state.error}`);
    if (now === SideState.NOT_STARTED && performance.now() - started > SIDE_START_MS)
      throw new Error(`the seed's side thread did not start (${SIDE_THREAD_CODE})`);
    state.waitFrom(now, 250);
    report(state.leads);
  }
}
