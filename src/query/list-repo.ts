// SQL for the read routes, built only from catalogue entries (never from caller text), each
// shape prepared once per tenant. Pages come out of SQLite as JSON text, ready to send.
import type { Statement } from "bun:sqlite";
import type { EntityCatalog, FieldSpec } from "../catalog/index.ts";
import { projection } from "../catalog/sql.ts";
import type { FilterSpec, RecordView } from "../catalog/types.ts";
import type { Tenant } from "../db/tenants.ts";
import { type Bound, tightestBounds } from "./bounds.ts";
import { impliedSortBound, matchingRunOf, sortKindOf } from "./date-order.ts";
import { DatePairs, pairPlanFor } from "./date-pairs.ts";
import {
  type DayCount,
  DayCounts,
  type DayPlan,
  dateColumnOf,
  dayPlanFor,
  dayReader,
  startOf,
  totalOf,
} from "./day-counts.ts";
import { isSearching } from "./filters.ts";
import { isDateSort, type ListFilters, type ListQuery, type Sort } from "./params.ts";
import { type Deadline, pageOf } from "./scan.ts";
import { searchEngineOf } from "./search-engine.ts";

const MAX_STATEMENTS = 512;
/**
 * From this many rows in, a page is located through the per-day counters instead of walking
 * OFFSET index entries (about a day's worth of rows at a million listings over two years).
 */
export const DEEP_OFFSET = 1_000;

/** Prepared statements of one tenant and entity, keyed by their shape. */
export class ListRepo {
  private readonly statements = new Map<string, Statement>();
  /** Statements of recordWriting, on the write connection. */
  private readonly writingStatements = new Map<string, Statement>();
  /** Whether a read transaction of snapshot() is open. */
  private inSnapshot = false;
  private readonly dayCounts: DayCounts;
  private readonly datePairs: DatePairs;

  constructor(
    private readonly tenant: Tenant,
    private readonly catalog: EntityCatalog,
    /** Tests lower it, to go through the deep-page paths on a small file. */
    private readonly deepOffset = DEEP_OFFSET,
  ) {
    this.dayCounts = new DayCounts(catalog, (shape, build) => this.prepare(shape, build));
    this.datePairs = new DatePairs(catalog, (shape, build) => this.prepare(shape, build));
  }

  private prepare(shape: string, build: () => string): Statement {
    let statement = this.statements.get(shape);
    if (statement === undefined) {
      if (this.statements.size >= MAX_STATEMENTS) {
        for (const old of this.statements.values()) old.finalize();
        this.statements.clear();
      }
      statement = this.tenant.read.prepare(build());
      this.statements.set(shape, statement);
    }
    return statement;
  }

  /**
   * The query's conditions (equality filters and dates; a search goes to the listing index), with
   * `extra` date bounds; of the date bounds only the tightest per side (bounds.ts).
   */
  where(query: ListFilters, extra: readonly Bound[] = []): { sql: string; params: (string | number)[] } {
    const { alias, visible } = this.catalog;
    const parts = [visible];
    const params: (string | number)[] = [];
    const driver = driverOf(query);
    for (const { spec, value } of query.filters) {
      // Their indexes list one value's rows in the date orders: beside the owner of leads, the
      // owner's index (which holds the status and both dates) drives.
      const aside = driver !== undefined && spec !== driver;
      parts.push(`${aside ? "+" : ""}${spec.column} = ?`);
      params.push(value);
    }
    const dates = query.dates.map(
      ({ spec, value }): Bound => ({ column: `${alias}.${spec.column}`, op: spec.op, value }),
    );
    for (const { column, op, value } of tightestBounds([...dates, ...extra])) {
      parts.push(`${column} ${op} ?`);
      params.push(value);
    }
    return { sql: parts.join(" AND "), params };
  }

  /**
   * Whether the counters, day counts and date orders answer: every list of leads, and a list of
   * every published listing in a date order. A list of listings with any filter is a search, made
   * by the listing index (properties/index.ts isPlainList says the same of the raw query).
   */
  private plain(query: ListQuery): boolean {
    if (!this.catalog.searchable) return true;
    return (
      isDateSort(query.sort) && !isSearching(query.search) && query.filters.length === 0 && query.dates.length === 0
    );
  }

  /**
   * A page of the list (JSON object texts, in order) and the exact total, read in one
   * snapshot so they agree even while writers commit. A search (search filters or a price or
   * area order) is answered by the listing index; `deadline` stops it past its time.
   */
  list(query: ListQuery, view: RecordView, deadline?: Deadline): { rows: string[]; total: number } {
    return this.snapshot(() => {
      if (!this.plain(query)) return this.searched(query, view, deadline);
      const days = dayReader(this.dayCounts);
      const total = this.total(query, days);
      const offset = (query.page - 1) * query.limit;
      // Past the end, nothing to read: an OFFSET would walk every matching row to find that out.
      const rows = offset >= total ? [] : this.pageRows(query, view, offset, total, days);
      return { rows, total };
    });
  }

  /** A search's page and total from the listing index: its matches, the page selected among them, then its rows. */
  private searched(query: ListQuery, view: RecordView, deadline?: Deadline): { rows: string[]; total: number } {
    const { index, matches } = searchEngineOf(this.tenant).matches(query, view, deadline);
    const slots = pageOf(index, matches, query.sort, (query.page - 1) * query.limit, query.limit);
    return {
      rows: this.rowsOf(
        query.fields,
        view,
        slots.map((slot) => index.rowid[slot]!),
      ),
      total: matches.count,
    };
  }

  /** The rows of `rowids` as `view` sees them, in that order. */
  private rowsOf(fields: readonly FieldSpec[], view: RecordView, rowids: readonly number[]): string[] {
    if (rowids.length === 0) return [];
    const { table, alias } = this.catalog;
    const statement = this.prepare(`rows-of|${view}|${fields.map((f) => f.name).join(",")}`, () => {
      return `SELECT ${alias}.rowid, ${projection(fields, view)} FROM ${table} ${alias} WHERE ${alias}.rowid IN (SELECT value FROM json_each(?))`;
    });
    const byRowid = new Map(statement.values(JSON.stringify(rowids)) as [number, string][]);
    // A row deleted since the index read it is left out, never sent as null.
    return rowids.map((rowid) => byRowid.get(rowid)).filter((row) => row !== undefined);
  }

  /** The page at `offset` (rows in, of `total`). */
  private pageRows(
    query: ListQuery,
    view: RecordView,
    offset: number,
    total: number,
    days: (plan: DayPlan) => DayCount[],
  ): string[] {
    const bound = impliedSortBound(this.catalog, query);
    const implied = bound !== null && this.datesInOrder() ? [bound] : [];
    // A list walked for a filter no index leads with (a lead status) passes rows of other values
    // between its own: its counters place every page but a first one without dates, which starts
    // at its edge day instead (below), with one counter row read.
    const placed = walkedOf(query) !== undefined && (offset > 0 || query.dates.length > 0);
    const start =
      offset < this.deepOffset && !placed ? { bounds: [], skip: offset } : this.deepStart(query, offset, total, days);
    if (start === null) return [];
    const sorted = this.sortedFromDriver(query);
    if (implied.length === 0 && start.bounds.length === 0 && start.skip > total / 2) {
      // A page walked to past the middle is the same rows counted from the other end of the list:
      // read the other way, the walk (or the sorter) passes only the rows after it instead of
      // nearly all of them. An owner's deep pages, which no day counter places, are found so.
      const fromEnd = total - start.skip - query.limit;
      const reversed: ListQuery = { ...query, sort: reverseOf(query.sort), limit: query.limit + Math.min(0, fromEnd) };
      const edge = this.edgeBounds(reversed);
      return edge === null ? [] : this.rowsFrom(reversed, view, edge, Math.max(0, fromEnd), sorted).reverse();
    }
    const edge = start.bounds.length === 0 ? this.edgeBounds(query) : [];
    if (edge === null) return [];
    return this.rowsFrom(query, view, [...implied, ...start.bounds, ...edge], start.skip, sorted);
  }

  /**
   * Where a list walked for a filter (walkedOf) can start: at the edge of that filter's days, the
   * newest day with a row of its value (the oldest, ascending) within the query's bounds on the
   * sort date. Every row before it has another value, so a walk skips the same rows from there.
   * No bound for any other list; null when no row has the value within those bounds.
   */
  private edgeBounds(query: ListQuery): Bound[] | null {
    const walked = walkedOf(query);
    if (walked === undefined) return [];
    const kind = sortKindOf(query);
    const dates = query.dates.filter((d) => d.spec.column === dateColumnOf(kind));
    const plan = dayPlanFor(this.catalog, { ...query, filters: [walked], dates }, kind);
    if (plan === null) return [];
    const descending = query.sort.startsWith("-");
    const day = this.dayCounts.edgeDay(plan, descending);
    return day === null ? null : [startOf(plan, [{ day, n: 1 }], 0, descending)!.start];
  }

  /**
   * A list led by a filter whose index is in the other date's order (an owner's leads by last
   * update): its page is sorted from that index's entries alone, then only the page's rows are
   * read. False otherwise: the sort's own index, or the driver's, lists the page in order.
   */
  private sortedFromDriver(query: ListQuery): boolean {
    const driver = driverOf(query);
    return driver !== undefined && driver.drives !== sortKindOf(query);
  }

  /**
   * Where a deep page starts: the bounds that start the list on the day it is in and the rows
   * of that day to skip, found with the day counters of the sort date, or, for a date filter on
   * the other date, with the date pairs (date-pairs.ts) or, beside an equality filter, through
   * the run of rows that all match it (date-order.ts). Otherwise the rows before it are walked.
   * Null when the list is shorter than `offset`.
   */
  private deepStart(
    query: ListQuery,
    offset: number,
    total: number,
    days: (plan: DayPlan) => DayCount[],
  ): { bounds: Bound[]; skip: number } | null {
    const descending = query.sort.startsWith("-");
    const onItsDay = (plan: Pick<DayPlan, "column" | "after" | "before">, counts: DayCount[], at: number) => {
      const found = startOf(plan, counts, at, descending);
      return found === null ? null : { bounds: [found.start], skip: found.skip };
    };
    const walk = { bounds: [], skip: offset };

    const plan = dayPlanFor(this.catalog, query, sortKindOf(query));
    if (plan !== null) return onItsDay(plan, days(plan), offset);
    const pairs = pairPlanFor(this.catalog, query);
    if (pairs !== null)
      return onItsDay({ column: pairs.sortColumn, after: null, before: null }, this.datePairs.days(pairs), offset);
    const run = matchingRunOf(this.catalog, query);
    if (run === null || !this.datesInOrder()) return walk;
    const runDays = days(run.plan);
    const inRun = totalOf(runDays);
    // A leading run: the page is in it, or past it in the rest (walked from the run's end).
    // A trailing one: the page is in the rest (walked from the top), or in the run.
    if (run.leading && offset >= inRun) return { bounds: [run.rest], skip: offset - inRun };
    const runOffset = run.leading ? offset : offset - (total - inRun);
    return runOffset < 0 ? walk : onItsDay(run.plan, runDays, runOffset);
  }

  /** Whether no record of the entity was last updated before it was created (schema 3's count). */
  private datesInOrder(): boolean {
    const statement = this.prepare("date-order", () => "SELECT n FROM date_order_exceptions WHERE entity = ?");
    return (statement.values(this.catalog.entity) as [number][])[0]?.[0] === 0;
  }

  /**
   * Rows of the list, skipping `skip` rows from its beginning or from where `bounds` start
   * it: a bound the filters imply (date-order.ts), the day a deep page starts on.
   */
  private rowsFrom(
    query: ListQuery,
    view: RecordView,
    bounds: readonly Bound[],
    skip: number,
    sorted = false,
  ): string[] {
    const { table, alias } = this.catalog;
    const where = this.where(query, bounds);
    const names = query.fields.map((f) => f.name).join(",");
    // The SQL is built from catalogue entries only, so the WHERE text itself names the shape.
    const statement = this.prepare(`page|${view}|${names}|${query.sort}|${sorted}|${where.sql}`, () => {
      const order = this.orderBy(query.sort, sorted);
      if (!sorted)
        return `SELECT ${projection(query.fields, view)} FROM ${table} ${alias} WHERE ${where.sql} ORDER BY ${order} LIMIT ? OFFSET ?`;
      // Sorted from the driver's index entries: the page by rowid first, then only the page's rows read.
      const page = `SELECT ${alias}.rowid FROM ${table} ${alias} WHERE ${where.sql} ORDER BY ${order} LIMIT ? OFFSET ?`;
      return `SELECT ${projection(query.fields, view)} FROM ${table} ${alias} WHERE ${alias}.rowid IN (${page}) ORDER BY ${this.orderBy(query.sort, true)}`;
    });
    return (statement.values(...where.params, query.limit, skip) as [string][]).map((row) => row[0]);
  }

  /** The ORDER BY of a date sort, ties by id. */
  private orderBy(sort: ListQuery["sort"], sorted: boolean): string {
    const { alias } = this.catalog;
    const direction = sort.startsWith("-") ? "DESC" : "ASC";
    // Sorting a few rows, `+` keeps the planner off the order's index, which would test rows
    // one by one across the whole list to find them.
    const w = sorted ? "+" : "";
    return `${w}${alias}.${dateColumnOf(sortKindOf({ sort }))} ${direction}, ${alias}.id ${direction}`;
  }

  /**
   * Exact total of the matching rows. Equality filters alone are answered from the counters the
   * triggers keep (a few rows whatever the table size), dates on one column with at most one
   * counted filter from the per-day counters; anything else counts the index range.
   */
  private total(query: ListQuery, days: (plan: DayPlan) => DayCount[]): number {
    const fromCounters = query.dates.length === 0 && query.filters.every((f) => f.spec.countColumn !== undefined);
    if (fromCounters) {
      const columns = query.filters.map((f) => f.spec.countColumn!);
      const statement = this.prepare(`counters|${columns.join(",")}`, () => {
        const where = columns.length > 0 ? ` WHERE ${columns.map((c) => `${c} = ?`).join(" AND ")}` : "";
        return `SELECT coalesce(sum(n), 0) FROM ${this.catalog.countsTable}${where}`;
      });
      return (statement.values(...query.filters.map((f) => f.value)) as [number][])[0]![0];
    }
    const plan = dayPlanFor(this.catalog, query);
    if (plan !== null) return totalOf(days(plan));
    return this.count(query);
  }

  /** The matching rows counted through the indexes. */
  private count(query: ListFilters): number {
    const where = this.where(query);
    const statement = this.prepare(`count|${where.sql}`, () => {
      return `SELECT count(*) FROM ${this.catalog.table} ${this.catalog.alias} WHERE ${where.sql}`;
    });
    return (statement.values(...where.params) as [number][])[0]![0];
  }

  /** Runs `read` in one snapshot of the database (one read transaction; nested calls join it). */
  snapshot<T>(read: () => T): T {
    if (this.inSnapshot) return read();
    this.inSnapshot = true;
    try {
      return this.tenant.read.transaction(read).deferred();
    } finally {
      this.inSnapshot = false;
    }
  }

  /** One visible record as JSON text, or null; with `owner`, only a lead that client created. */
  record(id: string, fields: readonly FieldSpec[], view: RecordView, owner: string | null = null): string | null {
    const statement = this.prepare(this.recordShape(fields, view, owner), () => this.recordSql(fields, view, owner));
    return recordOf(statement, id, owner);
  }

  /**
   * record() read on the write connection, inside the write transaction under way: the record as
   * the write just made left it, before any later write of the same batch changes it again.
   */
  recordWriting(
    id: string,
    fields: readonly FieldSpec[],
    view: RecordView,
    owner: string | null = null,
  ): string | null {
    const shape = this.recordShape(fields, view, owner);
    let statement = this.writingStatements.get(shape);
    if (statement === undefined) {
      // Few shapes ever (the funnel's one): no bound needed.
      statement = this.tenant.write.prepare(this.recordSql(fields, view, owner));
      this.writingStatements.set(shape, statement);
    }
    return recordOf(statement, id, owner);
  }

  private recordShape(fields: readonly FieldSpec[], view: RecordView, owner: string | null): string {
    return `record|${view}|${owner === null ? "" : "own"}|${fields.map((f) => f.name).join(",")}`;
  }

  private recordSql(fields: readonly FieldSpec[], view: RecordView, owner: string | null): string {
    const { table, alias, visible } = this.catalog;
    const own = owner === null ? "" : ` AND ${alias}.created_by = ?`;
    return `SELECT ${projection(fields, view)} FROM ${table} ${alias} WHERE ${alias}.id = ? AND ${visible}${own}`;
  }

  /** Distinct non-null values of a counted column among visible records, sorted. */
  distinctValues(column: string): string[] {
    const statement = this.prepare(`distinct|${column}`, () => {
      return `SELECT DISTINCT ${column} FROM ${this.catalog.countsTable} WHERE n > 0 AND ${column} <> '' ORDER BY 1`;
    });
    return (statement.values() as [string][]).map((row) => row[0]);
  }
}

/** The filter whose index leads the query (catalog/types.ts FilterSpec.drives), if it has one. */
function driverOf(query: ListFilters): FilterSpec | undefined {
  return query.filters.find((f) => f.spec.drives !== undefined)?.spec;
}

/**
 * The filter a list is walked for and placed by: one that no index leads with and that has
 * per-day counters (catalog/types.ts FilterSpec.inDateIndexes), in a list no other filter's
 * index drives.
 */
function walkedOf(query: ListFilters): ListQuery["filters"][number] | undefined {
  if (driverOf(query) !== undefined) return undefined;
  return query.filters.find((f) => f.spec.inDateIndexes === true && f.spec.dayDimension !== undefined);
}

/** The same order the other way round (ties by id reversed too, so a page's rows are the same). */
function reverseOf(sort: Sort): Sort {
  return (sort.startsWith("-") ? sort.slice(1) : `-${sort}`) as Sort;
}

/** The JSON text of the one row a record statement finds, or null. */
function recordOf(statement: Statement, id: string, owner: string | null): string | null {
  const row = (owner === null ? statement.values(id) : statement.values(id, owner))[0] as [string] | undefined;
  return row ? row[0] : null;
}
