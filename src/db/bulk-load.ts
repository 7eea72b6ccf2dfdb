// Loading a file no one else can see (the seed, an import into a new file) without its indexes
// and triggers: set them aside, write what the triggers would have written (change log,
// counters) from the rows, refill the derived tables in one pass, put everything back.
import type { Database } from "bun:sqlite";
import { RowBuffer } from "./row-buffer.ts";
import { putBack, refillOf, type SchemaObject, type SetAside, schemaObjects, setAside } from "./schema-objects.ts";

type Entity = "properties" | "leads";
const PREFIX = { properties: "property", leads: "lead" } as const satisfies Record<Entity, string>;

/** The tables an entity's tallies fill (EntityTallies.rows). */
const tallyTables = (entity: Entity) =>
  [`${PREFIX[entity]}_counts`, `${PREFIX[entity]}_days`, `${PREFIX[entity]}_date_pairs`] as const;

/** The tables a bulk load writes rows into itself. */
const LOADED_TABLES: ReadonlySet<string> = new Set(["properties", "photos", "leads"]);

/** Every table TriggerStandIn writes: the change log, its streams and the tallies. */
const STAND_IN_TABLES: ReadonlySet<string> = new Set([
  "changes",
  "change_streams",
  "date_order_exceptions",
  ...tallyTables("properties"),
  ...tallyTables("leads"),
]);

/**
 * Whether TriggerStandIn stands in for a trigger, read from the schema: a trigger on a table the
 * load writes (the loaded tables, or the change log, whose own trigger numbers it) whose every
 * write lands in a table the stand-in writes. For a load that inserts each property unpublished,
 * adds its photos, then publishes it, and inserts each lead, those triggers write one change row
 * per published property and per lead, number it, and count both; the stand-in writes exactly
 * that (what it counts by is read from the schema too: standInShape).
 *
 * A new trigger that writes these tables some other way (a second change row, another counter)
 * is set aside like the others and its rows would go unwritten: test/seed/bulk.test.ts loads the
 * same rows through this path and row by row with every trigger live, compares every table, and
 * fails until the stand-in is taught what the new trigger writes.
 */
function stoodInFor(o: SchemaObject): boolean {
  return (
    o.type === "trigger" &&
    o.writes.size > 0 &&
    (LOADED_TABLES.has(o.table) || STAND_IN_TABLES.has(o.table)) &&
    [...o.writes].every((table) => STAND_IN_TABLES.has(table))
  );
}

/** Triggers that write tables the stand-in does not write and no refill rewrites. */
export class UnknownTriggerError extends Error {
  constructor(readonly names: readonly string[]) {
    super(`the seed does not know what trigger(s) ${names.join(", ")} write; teach src/db/bulk-load.ts before seeding`);
  }
}

/** A trigger that writes no table only checks the rows written (a RAISE): it stays through a load. */
const check = (o: SchemaObject) => o.type === "trigger" && o.writes.size === 0;

/** Neither stood in for nor refilled: left alone, such a trigger would write rows a bulk load knows nothing of. */
const unknown = (o: SchemaObject) => o.type === "trigger" && !check(o) && !stoodInFor(o) && refillOf(o) === null;

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
  const refilled = new Set(aside.objects.filter((o) => o.type === "trigger" && !stoodInFor(o)).map((o) => refillOf(o)));
  return { ...aside, refills: aside.refills.filter((refill) => refilled.has(refill)) };
}

/**
 * For an import into a new file, once its rows are written: what the set-aside triggers would
 * have written for them (one change row per published property, in rowid order, stamped `at`;
 * the counters), then putBack. Only creations happen in a new file, each written unpublished,
 * given its photos, then published, as TriggerStandIn assumes.
 */
export function finishPropertyLoad(db: Database, aside: SetAside, at: string): void {
  const shape = standInShape(db);
  const stand = new TriggerStandIn(db, at, shape);
  // The columns the counters read, under the names the stand-in reads them by.
  const columns = new Set(["id", "is_published", "created_at", "updated_at", ...columnsCounted(shape, "properties")]);
  const rows = db.query<StoodInRecord & { isPublished: number }, []>(
    `SELECT ${[...columns].map((c) => `${c} AS ${fieldOf(c)}`).join(", ")} FROM properties ORDER BY rowid`,
  );
  for (const row of rows.iterate()) stand.propertyInserted({ ...row, isPublished: row.isPublished === 1 });
  rows.finalize();
  stand.finish();
  putBack(db, aside);
}

/**
 * What the stand-in counts, read from the schema so a migration that adds a counted column needs
 * no change here: the day counters' (kind, dim) pairs of `day_dimensions`, and the columns
 * `property_counts` and `lead_counts` count by. Plain data, so a generator thread can tally too.
 */
export interface StandInShape {
  days: Record<Entity, [kind: string, dim: string][]>;
  counts: Record<Entity, string[]>;
}

export function standInShape(db: Database): StandInShape {
  const days: StandInShape["days"] = { properties: [], leads: [] };
  const pairs = db.query("SELECT entity, kind, dim FROM day_dimensions ORDER BY entity, kind, dim").values() as [
    Entity,
    string,
    string,
  ][];
  for (const [entity, kind, dim] of pairs) days[entity]?.push([kind, dim]);
  const countedBy = (table: string) =>
    (db.query(`PRAGMA table_info(${table})`).all() as { name: string }[]).map((c) => c.name).filter((c) => c !== "n");
  return { days, counts: { properties: countedBy("property_counts"), leads: countedBy("lead_counts") } };
}

/** Every column the counters of `entity` read. */
function columnsCounted(shape: StandInShape, entity: Entity): string[] {
  return [...shape.days[entity].map(([, dim]) => dim).filter((dim) => dim !== ""), ...shape.counts[entity]];
}

/** The field of a loaded record that holds a column: its name in camelCase (property_type → propertyType). */
function fieldOf(column: string): string {
  return column.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());
}

/** A loaded row as the stand-in reads it: the columns the counters read, by fieldOf name (NULL as null). */
export interface StoodInRecord {
  id: string;
  createdAt: string;
  updatedAt: string;
}

/** A counted column's value as the triggers store it: NULL counts as ''. A row without the field is a loader's bug. */
function valueOf(record: StoodInRecord, field: string): string {
  const value = (record as unknown as Record<string, unknown>)[field];
  if (value === undefined) throw new Error(`the bulk load's rows carry no ${field}, which a counter counts`);
  return value === null ? "" : String(value);
}

type PrefixKey = number | string;

/**
 * The day of a stored date (its first 10 characters: the per-day counters) or its third of a
 * month (9: the date pairs), as a number read from its digits: a Map keyed by a new substring
 * per row hashed each one anew and made the counters a sixth of a seed's records phase. A date
 * not in the stored form (digits and dashes where they go) keys by its prefix itself.
 */
class DatePrefixes {
  private readonly names = new Map<PrefixKey, string>();

  constructor(private readonly length: 9 | 10) {}

  key(date: string): PrefixKey {
    let key = 0;
    for (let i = 0; i < this.length; i++) {
      const code = date.charCodeAt(i);
      if (i === 4 || i === 7) {
        if (code !== 45) return this.odd(date); // '-'
        continue;
      }
      if (!(code >= 48 && code <= 57)) return this.odd(date);
      key = key * 10 + (code - 48);
    }
    if (!this.names.has(key)) this.names.set(key, date.slice(0, this.length));
    return key;
  }

  /** The prefix a key stands for. */
  name(key: PrefixKey): string {
    return this.names.get(key)!;
  }

  private odd(date: string): string {
    const prefix = date.slice(0, this.length);
    this.names.set(prefix, prefix);
    return prefix;
  }
}

/** Counts per tuple of strings, kept as nested maps: no key string is built per row. */
type Level = Map<string, Level | number>;

function bump(level: Level, keys: readonly string[]): void {
  let node = level;
  const last = keys.length - 1;
  for (let i = 0; i < last; i++) {
    let next = node.get(keys[i]!) as Level | undefined;
    if (next === undefined) node.set(keys[i]!, (next = new Map()));
    node = next;
  }
  node.set(keys[last]!, ((node.get(keys[last]!) as number | undefined) ?? 0) + 1);
}

function bump2<A, B>(level: Map<A, Map<B, number>>, a: A, b: B): void {
  let inner = level.get(a);
  if (inner === undefined) level.set(a, (inner = new Map()));
  inner.set(b, (inner.get(b) ?? 0) + 1);
}

/** Every (tuple…, n) of a Level, depth first. */
function* entries(level: Level, prefix: string[] = []): Generator<(string | number)[]> {
  for (const [key, value] of level)
    if (typeof value === "number") yield [...prefix, key, value];
    else yield* entries(value, [...prefix, key]);
}

/** The rows the stand-in's counters come to, table by table: plain data a thread can post. */
interface TallyRows {
  tables: { table: string; columns: string[]; rows: (string | number)[][] }[];
  exceptions: Record<Entity, number>;
}

/** One day counter: its kind's date, its dim's field (null for the overall count), value → day → n. */
interface DayCounter {
  kind: string;
  dim: string;
  created: boolean;
  field: string | null;
  counts: Map<string, Map<PrefixKey, number>>;
}

/**
 * What the stood-in triggers count for one entity, tallied in memory as the load goes: rows per
 * day of each date (overall and per counted column), rows per day of one date and third of a
 * month of the other, the records updated before they were created, and the counters by their
 * columns. The same sums as rebuild-day-counts.sql and rebuild-date-order.sql, without their
 * sorts of millions of rows.
 */
class EntityTallies {
  private readonly days: DayCounter[];
  private readonly countFields: string[];
  private readonly counts: Level = new Map();
  private readonly dayKeys = new DatePrefixes(10);
  private readonly thirdKeys = new DatePrefixes(9);
  private readonly pairs = {
    created: new Map<PrefixKey, Map<PrefixKey, number>>(),
    updated: new Map<PrefixKey, Map<PrefixKey, number>>(),
  };
  exceptions = 0;

  constructor(
    private readonly entity: Entity,
    shape: StandInShape,
  ) {
    this.days = shape.days[entity].map(([kind, dim]) => {
      if (kind !== "created" && kind !== "updated") throw new Error(`unknown day counter kind ${kind}`);
      return { kind, dim, created: kind === "created", field: dim === "" ? null : fieldOf(dim), counts: new Map() };
    });
    this.countFields = shape.counts[entity].map(fieldOf);
  }

  /** `visible`: whether the triggers count the record (a published property, any lead). */
  add(record: StoodInRecord, visible: boolean): void {
    const { createdAt, updatedAt } = record;
    if (createdAt > updatedAt) this.exceptions++;
    if (!visible) return;
    const createdDay = this.dayKeys.key(createdAt);
    const updatedDay = this.dayKeys.key(updatedAt);
    for (const day of this.days)
      bump2(day.counts, day.field === null ? "" : valueOf(record, day.field), day.created ? createdDay : updatedDay);
    bump2(this.pairs.created, createdDay, this.thirdKeys.key(updatedAt));
    bump2(this.pairs.updated, updatedDay, this.thirdKeys.key(createdAt));
    bump(
      this.counts,
      this.countFields.map((field) => valueOf(record, field)),
    );
  }

  rows(shape: StandInShape): TallyRows["tables"] {
    const [countsTable, daysTable, pairsTable] = tallyTables(this.entity);
    const days: (string | number)[][] = [];
    for (const { kind, dim, counts } of this.days)
      for (const [value, perDay] of counts)
        for (const [day, n] of perDay) days.push([kind, dim, value, this.dayKeys.name(day), n]);
    const pairs: (string | number)[][] = [];
    for (const kind of ["created", "updated"] as const)
      for (const [day, others] of this.pairs[kind])
        for (const [other, n] of others) pairs.push([kind, this.dayKeys.name(day), this.thirdKeys.name(other), n]);
    return [
      { table: countsTable, columns: [...shape.counts[this.entity], "n"], rows: [...entries(this.counts)] },
      { table: daysTable, columns: ["kind", "dim", "value", "day", "n"], rows: days },
      { table: pairsTable, columns: ["kind", "day", "other", "n"], rows: pairs },
    ];
  }
}

/** The counting half of the stand-in: no database, so a generator thread can keep it beside its rows. */
export class StandInTallies {
  private readonly properties: EntityTallies;
  private readonly leads: EntityTallies;

  constructor(private readonly shape: StandInShape) {
    this.properties = new EntityTallies("properties", shape);
    this.leads = new EntityTallies("leads", shape);
  }

  /** A property as loaded: counted when published. */
  property(p: StoodInRecord, isPublished: boolean): void {
    this.properties.add(p, isPublished);
  }

  /** A lead as loaded: always counted. */
  lead(l: StoodInRecord): void {
    this.leads.add(l, true);
  }

  rows(): TallyRows {
    return {
      tables: [...this.properties.rows(this.shape), ...this.leads.rows(this.shape)],
      exceptions: { properties: this.properties.exceptions, leads: this.leads.exceptions },
    };
  }
}

/** Writes what StandInTallies counted; once, after the last row, inside a transaction. */
function writeTallies(db: Database, tallies: TallyRows): void {
  for (const { table, columns, rows } of tallies.tables) {
    const insert = db.prepare(
      `INSERT INTO ${table} (${columns.join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`,
    );
    for (const row of rows) insert.run(...row);
    insert.finalize();
  }
  const exceptions = db.prepare("UPDATE date_order_exceptions SET n = ? WHERE entity = ?");
  for (const entity of ["properties", "leads"] as const) exceptions.run(tallies.exceptions[entity], entity);
  exceptions.finalize();
}

/** The columns of a change row, as the stand-in writes them. */
const CHANGE_COLUMNS = ["entity", "record_id", "change", "at", "number"] as const;

/**
 * Writes the rows the set-aside triggers would have written, as the load goes: change rows in
 * insertion order (so sequences match), numbered in their entity's stream as migration 10's
 * trigger numbers them (the loaded leads have no owner, so no owner's stream), counters once at
 * the end. `at` stamps the change rows: the triggers would use the wall clock, which no
 * deterministic seed can.
 */
export class TriggerStandIn {
  private readonly changes: RowBuffer;
  private readonly tallies: StandInTallies;
  /** The last number of each entity's stream, from where the file's streams stand. */
  private readonly streams = new Map<"properties" | "leads", number>();
  private readonly streamsAtStart: ReadonlyMap<string, number>;

  constructor(
    private readonly db: Database,
    private readonly at: string,
    shape: StandInShape = standInShape(db),
  ) {
    this.changes = new RowBuffer(db, "changes", CHANGE_COLUMNS, 64);
    this.tallies = new StandInTallies(shape);
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

  propertyInserted(p: StoodInRecord & { isPublished: boolean }): void {
    this.tallies.property(p, p.isPublished);
    if (p.isPublished) this.changes.add(["properties", p.id, "upsert", this.at, this.next("properties")]);
  }

  // Seeded leads have no owner: numbered in the stream of all leads only.
  leadInserted(l: StoodInRecord): void {
    this.tallies.lead(l);
    this.changes.add(["leads", l.id, "upsert", this.at, this.next("leads")]);
  }

  /** Writes buffered change rows; call before each commit. */
  flush(): void {
    this.changes.flush();
  }

  /** Writes every counter and where each stream stands; call once, after the last row, inside a transaction. */
  finish(): void {
    this.flush();
    this.changes.finalize();
    writeTallies(this.db, this.tallies.rows());
    const stream = this.db.prepare(
      "INSERT INTO change_streams (entity, owner, last) VALUES (?, '', ?) " +
        "ON CONFLICT (entity, owner) DO UPDATE SET last = excluded.last",
    );
    for (const [entity, last] of this.streams) stream.run(entity, last);
    stream.finalize();
  }
}
