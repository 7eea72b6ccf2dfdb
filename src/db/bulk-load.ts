// Loading a file no one else can see (the seed, an import into a new file) without its indexes
// and triggers: set them aside, write what the triggers would have written (change log,
// counters) from the rows, refill the derived tables in one pass, put everything back.
import type { Database } from "bun:sqlite";
import { RowBuffer } from "./row-buffer.ts";
import { putBack, refillOf, type SchemaObject, type SetAside, schemaObjects, setAside } from "./schema-objects.ts";

/**
 * The triggers TriggerStandIn stands in for. For a load that inserts each property unpublished,
 * adds its photos, then publishes it, and inserts each lead, they write one change row per
 * published property and per lead, and count both; the stand-in writes exactly that.
 */
const STOOD_IN_FOR: ReadonlySet<string> = new Set([
  "properties_count_insert",
  "properties_count_delete",
  "properties_count_update",
  "leads_count_insert",
  "leads_count_delete",
  "leads_count_update",
  "properties_feed_insert",
  "properties_feed_update_visible",
  "properties_feed_unpublish",
  "properties_feed_delete",
  "photos_feed_insert",
  "photos_feed_update",
  "photos_feed_delete",
  "leads_feed_insert",
  "leads_feed_update",
  "leads_feed_delete",
  // Migration 10's numbering of the change log per stream: the stand-in numbers its rows.
  "changes_number",
  // Migration 2's per-day counters: tallied by the stand-in, written at the end.
  "properties_days_insert",
  "properties_days_delete",
  "properties_days_update",
  "leads_days_insert",
  "leads_days_delete",
  "leads_days_update",
  // Migration 3's count of records updated before they were created and its date pairs: tallied too.
  "properties_date_order_insert",
  "properties_date_order_delete",
  "properties_date_order_update",
  "leads_date_order_insert",
  "leads_date_order_delete",
  "leads_date_order_update",
  "properties_date_pairs_insert",
  "properties_date_pairs_delete",
  "properties_date_pairs_update",
  "leads_date_pairs_insert",
  "leads_date_pairs_delete",
  "leads_date_pairs_update",
]);

export class UnknownTriggerError extends Error {
  constructor(readonly names: readonly string[]) {
    super(`the seed does not know what trigger(s) ${names.join(", ")} write; teach src/db/bulk-load.ts before seeding`);
  }
}

/** A trigger that writes no table only checks the rows written (a RAISE): it stays through a load. */
const check = (o: SchemaObject) => o.type === "trigger" && o.writes.size === 0;

/** Neither stood in for nor refilled: left alone, such a trigger would write rows a bulk load knows nothing of. */
const unknown = (o: SchemaObject) =>
  o.type === "trigger" && !check(o) && !STOOD_IN_FOR.has(o.name) && refillOf(o) === null;

/**
 * Drops indexes and triggers for a bulk load and returns what putBack needs. Per row, triggers
 * cost more than the insert itself (a statement journal, a counter upsert, a feed row and, for
 * photos, a parent lookup), and building each index in one sorted pass at the end beats keeping
 * a dozen B-trees up to date row by row. Triggers the stand-in covers are dropped and their
 * tables written by it (its tallies replace the refills of those tables); those that only keep
 * tables a refill rewrites whole (the search tables) are dropped and refilled by putBack; those
 * that only check what is written stay.
 *
 * `unknownTriggers`: "refuse" stops the load on any other trigger (UnknownTriggerError), "keep"
 * leaves it to work row by row. `uniqueIndexes`: "keep" leaves UNIQUE indexes in place (the
 * constraints, and the lookups of a load that reads as it writes).
 */
export function setAsideForBulkLoad(
  db: Database,
  { unknownTriggers, uniqueIndexes }: { unknownTriggers: "refuse" | "keep"; uniqueIndexes: "aside" | "keep" },
): SetAside {
  const objects = schemaObjects(db);
  const unknowns = objects.filter(unknown);
  if (unknownTriggers === "refuse" && unknowns.length > 0) throw new UnknownTriggerError(unknowns.map((o) => o.name));
  const aside = setAside(
    db,
    objects.filter((o) => (o.type === "index" ? uniqueIndexes === "aside" || !o.unique : !check(o) && !unknown(o))),
  );
  const refilled = new Set(
    aside.objects.filter((o) => o.type === "trigger" && !STOOD_IN_FOR.has(o.name)).map((o) => refillOf(o)),
  );
  return { ...aside, refills: aside.refills.filter((refill) => refilled.has(refill)) };
}

/**
 * For an import into a new file, once its rows are written: what the set-aside triggers would
 * have written for them (one change row per published property, in rowid order, stamped `at`;
 * the counters), then putBack. Only creations happen in a new file, each written unpublished,
 * given its photos, then published, as TriggerStandIn assumes.
 */
export function finishPropertyLoad(db: Database, aside: SetAside, at: string): void {
  const stand = new TriggerStandIn(db, at);
  const rows = db.query<Omit<StoodInProperty, "isPublished"> & { published: number }, []>(
    "SELECT id, is_published AS published, status, operation_type AS operationType, property_type AS propertyType, " +
      "highlight, created_at AS createdAt, updated_at AS updatedAt FROM properties ORDER BY rowid",
  );
  for (const row of rows.iterate()) stand.propertyInserted({ ...row, isPublished: row.published === 1 });
  rows.finalize();
  stand.finish();
  putBack(db, aside);
}

/** A separator no enum value contains, for the counters' composite keys. */
const SEP = "\u0000";

function tally(counts: Map<string, number>, key: string): void {
  counts.set(key, (counts.get(key) ?? 0) + 1);
}

/** The day of a stored date (migration 2's counters) and its third of a month (migration 3's pairs). */
const dayOf = (date: string) => date.slice(0, 10);
const thirdOf = (date: string) => date.slice(0, 9);

interface Dated {
  createdAt: string;
  updatedAt: string;
}

/** What the set-aside triggers read of a property the load wrote. */
interface StoodInProperty extends Dated {
  id: string;
  isPublished: boolean;
  status: string;
  operationType: string;
  propertyType: string | null;
  highlight: string;
}

/**
 * What migrations 2 and 3's triggers keep for one entity, tallied in memory as the load goes:
 * rows per day of each date (overall and per counted column), rows per day of one date and
 * third of a month of the other, and the records updated before they were created. The same
 * sums as rebuild-day-counts.sql and rebuild-date-order.sql, without their sorts of millions
 * of rows (a fifth of a 1M seed's time).
 */
class DerivedTallies {
  readonly days = new Map<string, number>();
  readonly pairs = new Map<string, number>();
  exceptions = 0;

  /** `dims`: the counted columns' values by dimension name ('' is the overall count). */
  add(record: Dated, visible: boolean, dims: readonly (readonly [string, string])[]): void {
    if (record.createdAt > record.updatedAt) this.exceptions++;
    if (!visible) return;
    for (const [kind, date, other] of [
      ["created", record.createdAt, record.updatedAt],
      ["updated", record.updatedAt, record.createdAt],
    ] as const) {
      const day = dayOf(date);
      for (const [dim, value] of dims) tally(this.days, [kind, dim, value, day].join(SEP));
      tally(this.pairs, [kind, day, thirdOf(other)].join(SEP));
    }
  }

  write(db: Database, entity: "properties" | "leads", prefix: "property" | "lead"): void {
    const day = db.prepare(`INSERT INTO ${prefix}_days (kind, dim, value, day, n) VALUES (?, ?, ?, ?, ?)`);
    for (const [key, n] of this.days) day.run(...(key.split(SEP) as [string, string, string, string]), n);
    day.finalize();
    const pair = db.prepare(`INSERT INTO ${prefix}_date_pairs (kind, day, other, n) VALUES (?, ?, ?, ?)`);
    for (const [key, n] of this.pairs) pair.run(...(key.split(SEP) as [string, string, string]), n);
    pair.finalize();
    db.run("UPDATE date_order_exceptions SET n = ? WHERE entity = ?", [this.exceptions, entity]);
  }
}

/**
 * Writes the rows the set-aside triggers would have written, as the load goes: change rows in
 * insertion order (so sequences match), numbered in their entity's stream as migration 10's
 * trigger numbers them (the loaded leads have no owner, so no owner's stream), counters once at
 * the end. `at` stamps the change rows: the triggers would use the wall clock, which no
 * deterministic seed can.
 */
export class TriggerStandIn {
  private readonly changes: RowBuffer;
  /** The last number of each entity's stream, from where the file's streams stand. */
  private readonly streams = new Map<"properties" | "leads", number>();
  private readonly streamsAtStart: ReadonlyMap<string, number>;
  private readonly propertyCounts = new Map<string, number>();
  private readonly leadCounts = new Map<string, number>();
  private readonly propertyDerived = new DerivedTallies();
  private readonly leadDerived = new DerivedTallies();

  constructor(
    private readonly db: Database,
    private readonly at: string,
  ) {
    this.changes = new RowBuffer(db, "changes", ["entity", "record_id", "change", "at", "number"], 64);
    const rows = db.query<{ entity: string; last: number }, []>(
      "SELECT entity, last FROM change_streams WHERE owner = ''",
    );
    this.streamsAtStart = new Map(rows.all().map((row) => [row.entity, row.last]));
    rows.finalize();
  }

  /** The next number of an entity's stream. */
  private next(entity: "properties" | "leads"): number {
    const number = (this.streams.get(entity) ?? this.streamsAtStart.get(entity) ?? 0) + 1;
    this.streams.set(entity, number);
    return number;
  }

  propertyInserted(p: StoodInProperty): void {
    const propertyType = p.propertyType ?? "";
    this.propertyDerived.add(p, p.isPublished, [
      ["", ""],
      ["status", p.status],
      ["operation_type", p.operationType],
      ["property_type", propertyType],
      ["highlight", p.highlight],
    ]);
    if (!p.isPublished) return;
    this.changes.add(["properties", p.id, "upsert", this.at, this.next("properties")]);
    tally(this.propertyCounts, [p.status, p.operationType, propertyType, p.highlight].join(SEP));
  }

  leadInserted(l: Dated & { id: string; status: string; source: string; priority: string }): void {
    // Seeded leads have no owner: '' in the counters, as the triggers write a NULL created_by.
    this.leadDerived.add(l, true, [
      ["", ""],
      ["status", l.status],
    ]);
    this.changes.add(["leads", l.id, "upsert", this.at, this.next("leads")]);
    tally(this.leadCounts, [l.status, l.source, l.priority, ""].join(SEP));
  }

  /** Writes buffered change rows; call before each commit. */
  flush(): void {
    this.changes.flush();
  }

  /** Writes every counter; call once, after the last row, inside a transaction. */
  finish(): void {
    this.flush();
    this.changes.finalize();
    const property = this.db.prepare(
      "INSERT INTO property_counts (status, operation_type, property_type, highlight, n) VALUES (?, ?, ?, ?, ?)",
    );
    for (const [key, n] of this.propertyCounts)
      property.run(...(key.split(SEP) as [string, string, string, string]), n);
    property.finalize();
    const lead = this.db.prepare(
      "INSERT INTO lead_counts (status, source, priority, created_by, n) VALUES (?, ?, ?, ?, ?)",
    );
    for (const [key, n] of this.leadCounts) lead.run(...(key.split(SEP) as [string, string, string, string]), n);
    lead.finalize();
    const stream = this.db.prepare(
      "INSERT INTO change_streams (entity, owner, last) VALUES (?, '', ?) " +
        "ON CONFLICT (entity, owner) DO UPDATE SET last = excluded.last",
    );
    for (const [entity, last] of this.streams) stream.run(entity, last);
    stream.finalize();
    this.propertyDerived.write(this.db, "properties", "property");
    this.leadDerived.write(this.db, "leads", "lead");
  }
}
