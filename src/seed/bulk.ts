// Loading without the schema's indexes and triggers: set them aside, write what the triggers would have written (change feed, counters), put everything back.
import type { Database } from "bun:sqlite";
import { RowBuffer } from "./row-buffer.ts";

/**
 * The triggers of the schema. For a load that inserts each property unpublished, adds its
 * photos, then publishes it, and inserts each lead, they write one change row per published
 * property and per lead, and count both; TriggerStandIn writes exactly that. A trigger outside this list could write rows the seed
 * knows nothing of, so it stops the seed until src/seed learns about it.
 */
const KNOWN_TRIGGERS: ReadonlySet<string> = new Set([
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
  // Migration 9's search tables: filled in one pass after the load (REBUILD_SEARCH).
  "properties_search_insert",
  "properties_search_delete",
  "properties_search_update",
  "properties_facets_delete",
  "properties_facets_update",
]);

export class UnknownTriggerError extends Error {
  constructor(readonly names: readonly string[]) {
    super(`the seed does not know what trigger(s) ${names.join(", ")} write; teach src/seed/bulk.ts before seeding`);
  }
}

export interface SchemaObject {
  type: "index" | "trigger";
  name: string;
  sql: string;
}

/**
 * Drops the explicit indexes and every trigger of a fresh database and returns their SQL, in
 * schema order. Per row, triggers cost more than the insert itself (a statement journal, a
 * counter upsert, a feed row and, for photos, a parent lookup), and building each index in one
 * sorted pass at the end beats keeping a dozen B-trees up to date row by row.
 */
export function setAsideSchemaObjects(db: Database): SchemaObject[] {
  const objects = db
    .query(
      "SELECT type, name, sql FROM sqlite_master WHERE type IN ('index', 'trigger') AND sql IS NOT NULL ORDER BY rowid",
    )
    .all() as SchemaObject[];
  const unknown = objects.filter((o) => o.type === "trigger" && !KNOWN_TRIGGERS.has(o.name)).map((o) => o.name);
  if (unknown.length > 0) throw new UnknownTriggerError(unknown);
  for (const o of objects) db.run(`DROP ${o.type.toUpperCase()} "${o.name.replaceAll('"', '""')}"`);
  return objects;
}

/** Recreates what setAsideSchemaObjects dropped: indexes first (a UNIQUE one fails on duplicates), then triggers. */
export function restoreSchemaObjects(db: Database, objects: readonly SchemaObject[]): void {
  for (const o of objects) if (o.type === "index") db.run(o.sql);
  for (const o of objects) if (o.type === "trigger") db.run(o.sql);
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
 * insertion order (so sequences match), counters once at the end. `at` stamps the change rows:
 * the triggers would use the wall clock, which no deterministic seed can.
 */
export class TriggerStandIn {
  private readonly changes: RowBuffer;
  private readonly propertyCounts = new Map<string, number>();
  private readonly leadCounts = new Map<string, number>();
  private readonly propertyDerived = new DerivedTallies();
  private readonly leadDerived = new DerivedTallies();

  constructor(
    private readonly db: Database,
    private readonly at: string,
  ) {
    this.changes = new RowBuffer(db, "changes", ["entity", "record_id", "change", "at"], 64);
  }

  propertyInserted(
    p: Dated & {
      id: string;
      isPublished: boolean;
      status: string;
      operationType: string;
      propertyType: string | null;
      highlight: string;
    },
  ): void {
    const propertyType = p.propertyType ?? "";
    this.propertyDerived.add(p, p.isPublished, [
      ["", ""],
      ["status", p.status],
      ["operation_type", p.operationType],
      ["property_type", propertyType],
      ["highlight", p.highlight],
    ]);
    if (!p.isPublished) return;
    this.changes.add(["properties", p.id, "upsert", this.at]);
    tally(this.propertyCounts, [p.status, p.operationType, propertyType, p.highlight].join(SEP));
  }

  leadInserted(l: Dated & { id: string; status: string; source: string; priority: string }): void {
    // Seeded leads have no owner: '' in the counters, as the triggers write a NULL created_by.
    this.leadDerived.add(l, true, [
      ["", ""],
      ["status", l.status],
    ]);
    this.changes.add(["leads", l.id, "upsert", this.at]);
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
    this.propertyDerived.write(this.db, "properties", "property");
    this.leadDerived.write(this.db, "leads", "lead");
  }
}
