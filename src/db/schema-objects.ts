// Loading a file no one else can see without keeping its indexes and derived tables up to date
// row by row: set them aside, load, put them back. Read from sqlite_master, never from a list,
// so an index or trigger a later migration adds is set aside and put back the same way.
//
// A trigger that only keeps tables a refill rewrites whole (the rebuild-*.sql of the migrations
// that made them) is set aside, and the refill does in one pass what it would have done per row.
// Every other trigger (the change log, the totals) stays unless the loader stands in for it.
import type { Database } from "bun:sqlite";
import { REFILL_SQL } from "./migrate.ts";

export interface SchemaObject {
  type: "index" | "trigger";
  name: string;
  /** The table the index or trigger is on. */
  table: string;
  sql: string;
  /** Indexes: whether the index is UNIQUE (a constraint, and what lookups during a load use). */
  unique: boolean;
  /** Triggers: the tables their body writes. */
  writes: ReadonlySet<string>;
}

/** A statement list that refills some derived tables from what the tables hold. */
export interface Refill {
  sql: string;
  /** The tables it writes, all of them whole. */
  tables: ReadonlySet<string>;
}

/** SQL without its comments, so a word in one is not taken for a statement. */
const withoutComments = (sql: string) => sql.replace(/--[^\n]*/g, "");

/**
 * The tables a run of statements writes: targets of INSERT / REPLACE INTO, UPDATE … SET and
 * DELETE FROM (an upsert's DO UPDATE SET names no table).
 */
export function writtenTables(sql: string): Set<string> {
  const tables = new Set<string>();
  const target = /\b(?:(?:INSERT|REPLACE)(?:\s+OR\s+\w+)?\s+INTO|DELETE\s+FROM|UPDATE(?:\s+OR\s+\w+)?)\s+"?(\w+)"?/gi;
  for (const match of withoutComments(sql).matchAll(target))
    if (match[1]!.toUpperCase() !== "SET") tables.add(match[1]!);
  return tables;
}

/** The refills of every table the migrations keep by triggers. */
export const REFILLS: readonly Refill[] = REFILL_SQL.map((sql) => ({ sql, tables: writtenTables(sql) }));

/** The refill that rewrites every table a trigger writes; null for a trigger that writes elsewhere, or nothing. */
export function refillOf(trigger: SchemaObject): Refill | null {
  if (trigger.writes.size === 0) return null;
  return REFILLS.find((refill) => [...trigger.writes].every((table) => refill.tables.has(table))) ?? null;
}

/** The explicit indexes and every trigger, in schema order. */
export function schemaObjects(db: Database): SchemaObject[] {
  const rows = db
    .query(
      'SELECT type, name, tbl_name AS "table", sql FROM sqlite_master ' +
        "WHERE type IN ('index', 'trigger') AND sql IS NOT NULL ORDER BY rowid",
    )
    .all() as { type: "index" | "trigger"; name: string; table: string; sql: string }[];
  return rows.map((row) => ({
    ...row,
    unique: row.type === "index" && /^\s*CREATE\s+UNIQUE\b/i.test(row.sql),
    writes: row.type === "trigger" ? writtenTables(row.sql.slice(row.sql.search(/\bBEGIN\b/i))) : new Set(),
  }));
}

/** Objects dropped for a load, and the refills that will stand in for their triggers. */
export interface SetAside {
  objects: readonly SchemaObject[];
  refills: readonly Refill[];
}

/**
 * Drops `objects` (from schemaObjects) and returns what putBack needs: every refill a dropped
 * trigger relies on, in the order of REFILLS.
 */
export function setAside(db: Database, objects: readonly SchemaObject[]): SetAside {
  const needed = new Set(objects.filter((o) => o.type === "trigger").map((o) => refillOf(o)));
  for (const o of objects) db.run(`DROP ${o.type.toUpperCase()} "${o.name.replaceAll('"', '""')}"`);
  return { objects, refills: REFILLS.filter((refill) => needed.has(refill)) };
}

/**
 * Puts back what setAside dropped: the refills first (their tables whole, from what the load
 * wrote: each reads the rows in one scan, where an index of the load's tables would have the
 * planner look every row up from it instead), then the indexes (a UNIQUE one fails on
 * duplicates), then the triggers.
 */
export function putBack(db: Database, aside: SetAside): void {
  for (const refill of aside.refills) db.run(refill.sql);
  for (const o of aside.objects) if (o.type === "index") db.run(o.sql);
  for (const o of aside.objects) if (o.type === "trigger") db.run(o.sql);
}
