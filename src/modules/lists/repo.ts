// SQL for the read routes, built only from catalogue entries (never from caller text), each
// shape prepared once per tenant. Pages come out of SQLite as JSON text, ready to send.
import type { Statement } from "bun:sqlite";
import type { EntityCatalog, FieldSpec } from "../../catalog/index.ts";
import { projection } from "../../catalog/sql.ts";
import type { FilterSpec, RecordView } from "../../catalog/types.ts";
import type { Tenant } from "../../db/tenants.ts";
import {
  countedTotal,
  DRIVE_ANY,
  hasPlace,
  isOnePlace,
  isSearching,
  type Plan,
  placeSeeks,
  type Search,
  type SetName,
  SMALL_SET,
  searchConditions,
  setProbes,
  WALK_BOUND,
  walksCity,
  wordsOnly,
} from "../search/filters.ts";
import { holds, sortedRowids } from "../search/matches.ts";
import { pageWindow, sortKeysSql } from "../search/sort-keys.ts";
import { absorbed, matchOf, WORD_IDS_SQL } from "../search/terms.ts";
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
import { isDateSort, type ListFilters, type ListQuery, type Sort } from "./params.ts";

const MAX_STATEMENTS = 512;
/**
 * From this many rows in, a page is located through the per-day counters instead of walking
 * OFFSET index entries (about a day's worth of rows at a million listings over two years).
 */
export const DEEP_OFFSET = 1_000;

/** Published listings, from the facet counters (every one has a deal). */
const PUBLISHED_SQL = "SELECT coalesce(sum(n), 0) FROM property_facet_counts WHERE facet = 'operationType'";

/** Prepared statements of one tenant and entity, keyed by their shape. */
export class ListingRepo {
  private readonly statements = new Map<string, Statement>();
  /** Statements of recordWriting, on the write connection. */
  private readonly writingStatements = new Map<string, Statement>();
  /** What the current snapshot already asked: set sizes and counts, the word index's matches. */
  private probed: { counts: Map<string, number>; words: Map<string, WordSet> } | null = null;
  private readonly dayCounts: DayCounts;
  private readonly datePairs: DatePairs;

  constructor(
    private readonly tenant: Tenant,
    private readonly catalog: EntityCatalog,
    /** Tests lower it, to go through the deep-page paths on a small file. */
    private readonly deepOffset = DEEP_OFFSET,
    /** Tests lower it, to walk the orders' indexes and test every set row by row on a small file. */
    private readonly smallSet = SMALL_SET,
    /** Tests set it to 0, to sort every few matches of the word index instead of walking. */
    private readonly walkBound = WALK_BOUND,
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
   * The query's conditions as `view` sees the records, with `extra` date bounds; of the date
   * bounds only the tightest per side (bounds.ts).
   */
  where(
    query: ListFilters,
    view: RecordView,
    extra: readonly Bound[] = [],
    plan: Plan = DRIVE_ANY,
  ): { sql: string; params: (string | number)[] } {
    const { alias, visible } = this.catalog;
    const parts = [visible];
    const params: (string | number)[] = [];
    const driver = driverOf(query);
    for (const { spec, value } of query.filters) {
      // Their indexes list one value's rows in the date orders, and the deal's in the price orders:
      // walking, they serve; under a place, the place's index drives, and beside the owner of
      // leads, the owner's index (which holds the status and both dates).
      // Under states or cities, their indexes seek the deal (search/filters.ts placeSeeks).
      const seeks = plan.placeDrives === true && placeSeeks(query.search) && spec.param === "operationType";
      const aside = (plan.placeDrives && !seeks) || (driver !== undefined && spec !== driver);
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
    const search = searchConditions(query.search, view, plan);
    parts.push(...search.parts);
    params.push(...search.params);
    return { sql: parts.join(" AND "), params };
  }

  /** Whether the counters, day counts and date orders can answer: not under search filters or sorts. */
  private plain(query: ListQuery): boolean {
    return isDateSort(query.sort) && !isSearching(query.search);
  }

  /**
   * A page of the list (JSON object texts, in order) and the exact total, read in one
   * snapshot so they agree even while writers commit.
   */
  list(asked: ListQuery, view: RecordView): { rows: string[]; total: number } {
    const query = { ...asked, ...absorbed(asked) };
    return this.snapshot(() => {
      const days = dayReader(this.dayCounts);
      const total = this.total(query, view, days);
      const offset = (query.page - 1) * query.limit;
      // Past the end, nothing to read: an OFFSET would walk every matching row to find that out.
      const rows = offset >= total ? [] : this.pageRows(query, view, offset, total, days);
      return { rows, total };
    });
  }

  /** The page at `offset` (rows in, of `total`). */
  private pageRows(
    query: ListQuery,
    view: RecordView,
    offset: number,
    total: number,
    days: (plan: DayPlan) => DayCount[],
  ): string[] {
    // Search filters and orders: a few matches are sorted, many are read along the order's index.
    if (!this.plain(query)) {
      const words = query.search.words.length > 0 ? this.wordSet(query.search) : null;
      if (words !== null && wordsOnly(query)) {
        const walked = this.walkedPage(query, view, offset, words);
        if (walked !== null) return walked;
        const keyed = isDateSort(query.sort) ? null : this.keyedPage(query, view, offset, words.ids);
        if (keyed !== null) return keyed;
      }
      const big = this.bigSets(query, view);
      const ids = words?.ids;
      return this.rowsFrom(
        query,
        view,
        [],
        offset,
        total > this.smallSet
          ? { walk: true, big, cityWalk: walksCity(query.search, query.sort), words: ids }
          : { walk: false, big, placeDrives: hasPlace(query.search), words: ids },
      );
    }
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
   * read. Null otherwise: the sort's own index, or the driver's, lists the page in order.
   */
  private sortedFromDriver(query: ListQuery): Plan | null {
    const driver = driverOf(query);
    if (driver === undefined || driver.drives === sortKindOf(query)) return null;
    return { walk: false, big: new Set(), placeDrives: false };
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
    plan: Plan | null = null,
  ): string[] {
    const { table, alias } = this.catalog;
    const where = this.where(query, view, bounds, plan ?? DRIVE_ANY);
    const names = query.fields.map((f) => f.name).join(",");
    // The SQL is built from catalogue entries only, so the WHERE text itself names the shape.
    // A search's few matches are sorted (but one place's index lists them in date order already).
    const sorted = plan !== null && !plan.walk && !(isDateSort(query.sort) && isOnePlace(query.search));
    const statement = this.prepare(`page|${view}|${names}|${query.sort}|${sorted}|${where.sql}`, () => {
      const order = this.orderBy(query.sort, sorted);
      if (plan === null)
        return `SELECT ${projection(query.fields, view)} FROM ${table} ${alias} WHERE ${where.sql} ORDER BY ${order} LIMIT ? OFFSET ?`;
      // A search finds and orders its page by rowid first (from an index alone where one covers
      // the conditions, as a city's does), then reads only the page's rows.
      const page = `SELECT ${alias}.rowid FROM ${table} ${alias} WHERE ${where.sql} ORDER BY ${order} LIMIT ? OFFSET ?`;
      return `SELECT ${projection(query.fields, view)} FROM ${table} ${alias} WHERE ${alias}.rowid IN (${page}) ORDER BY ${this.orderBy(query.sort, true)}`;
    });
    return (statement.values(...where.params, query.limit, skip) as [string][]).map((row) => row[0]);
  }

  /**
   * The ORDER BY of a sort, ties by id. Price and area put listings without the value last
   * either way, in the terms of migration 9's indexes (one read forwards, one backwards).
   */
  private orderBy(sort: ListQuery["sort"], sorted: boolean): string {
    const { alias } = this.catalog;
    const direction = sort.startsWith("-") ? "DESC" : "ASC";
    // Sorting a few matches, `+` keeps the planner off the order's index, which would test rows
    // one by one across the whole list to find them.
    const w = sorted ? "+" : "";
    if (isDateSort(sort))
      return `${w}${alias}.${dateColumnOf(sortKindOf({ sort }))} ${direction}, ${alias}.id ${direction}`;
    const column = `${w}${alias}.${sort.endsWith("price") ? "deal_price" : "search_area"}`;
    return `${column} IS NULL, ${column} ${direction}, ${alias}.id ${direction}`;
  }

  /**
   * The page of a search the word index alone decides, found along the order's index: its first
   * `walkBound` entries (in a price or area order, no more than the matches), each tested against
   * the matches held in memory (search/matches.ts); no row read but the page's. Read in stretches,
   * the first twice what the page should need if the words and the order had nothing to do with
   * each other, each next one twice the last. Null when the page does not lie within them
   * (search/filters.ts WALK_BOUND), or is not expected to.
   */
  private walkedPage(query: ListQuery, view: RecordView, offset: number, words: WordSet): string[] | null {
    const published = (this.prepare("published", () => PUBLISHED_SQL).values() as [number][])[0]![0];
    // A price or area page is found from the matches' sort keys otherwise (keyedPage), at about
    // seven entries' cost a match: that walk passes at most as many entries as there are matches.
    const bound = isDateSort(query.sort) ? this.walkBound : Math.min(this.walkBound, words.size);
    const wanted = offset + query.limit;
    if (wanted * published > (bound / 4) * words.size) return null;
    const { table, alias, visible } = this.catalog;
    const walk = this.prepare(`walk|${query.sort}`, () => {
      const entries = `SELECT ${alias}.rowid AS r FROM ${table} ${alias} WHERE ${visible} ORDER BY ${this.orderBy(query.sort, false)} LIMIT ? OFFSET ?`;
      return `SELECT json_group_array(r) FROM (${entries})`;
    });
    words.sorted ??= sortedRowids(words.ids);
    const found: number[] = [];
    let from = 0;
    let stretch = Math.ceil((2 * wanted * published) / Math.max(1, words.size));
    while (from < bound) {
      const n = Math.min(stretch, bound - from);
      const entries = JSON.parse((walk.values(n, from) as [string][])[0]![0]) as number[];
      for (const rowid of entries) if (holds(words.sorted, rowid) && found.push(rowid) === wanted) break;
      if (found.length === wanted || entries.length < n) return this.pageOf(query, view, found.slice(offset), 0);
      from += n;
      stretch *= 2;
    }
    return null;
  }

  /**
   * The page of a search the word index alone decides, in a price or area order, from its
   * matches' sort keys (search/sort-keys.ts): only the matches it can hold are read. Null when a
   * key is not a number.
   */
  private keyedPage(query: ListQuery, view: RecordView, offset: number, ids: string): string[] | null {
    const column = query.sort.endsWith("price") ? "price" : "area";
    const [matches, keys] = (
      this.prepare(`sort-keys|${column}`, () => sortKeysSql(column)).values(ids) as [string, string][]
    )[0]!;
    const window = pageWindow(JSON.parse(matches), JSON.parse(keys), query.sort.startsWith("-"), offset, query.limit);
    return window === null ? null : this.pageOf(query, view, window.candidates, window.skip);
  }

  /** The rows of `rowids` in the query's order, `skip` of them skipped, at most a page. */
  private pageOf(query: ListQuery, view: RecordView, rowids: readonly number[], skip: number): string[] {
    const { table, alias } = this.catalog;
    const names = query.fields.map((f) => f.name).join(",");
    const statement = this.prepare(`rows-of|${view}|${names}|${query.sort}`, () => {
      return `SELECT ${projection(query.fields, view)} FROM ${table} ${alias} WHERE ${alias}.rowid IN (SELECT value FROM json_each(?)) ORDER BY ${this.orderBy(query.sort, true)} LIMIT ? OFFSET ?`;
    });
    return (statement.values(JSON.stringify(rowids), query.limit, skip) as [string][]).map((row) => row[0]);
  }

  /**
   * The word index's matches of a search, asked once per snapshot: their number and their
   * rowids, which the count, the facets and the page then test instead of asking the index again.
   */
  private wordSet(search: Search): WordSet {
    const match = matchOf(search);
    const known = this.probed?.words.get(match);
    if (known !== undefined) return known;
    const [size, ids] = (this.prepare("word-ids", () => WORD_IDS_SQL).values(match) as [number, string][])[0]!;
    const set = { size, ids };
    this.probed?.words.set(match, set);
    return set;
  }

  /** How a count or a group reads the matches: from the place's index when there is one, or the smallest set. */
  private driving(query: ListFilters, view: RecordView): Plan {
    const words = query.search.words.length > 0 ? this.wordSet(query.search).ids : undefined;
    return { walk: false, big: this.bigSets(query, view), placeDrives: hasPlace(query.search), words };
  }

  /** The sets of a search too big to drive a query from (search/filters.ts setProbes). */
  private bigSets(query: ListFilters, view: RecordView): Set<SetName> {
    const big = new Set<SetName>();
    for (const { set, sql, params } of setProbes(query.search, view, this.smallSet)) {
      if (this.probe(sql, params) > this.smallSet) big.add(set);
    }
    if (query.search.words.length > 0 && this.wordSet(query.search).size > this.smallSet) big.add("words");
    return big;
  }

  /** A count, asked once per snapshot: a set's size is often the total as well. */
  private probe(sql: string, params: (string | number)[]): number {
    const key = `${sql}|${JSON.stringify(params)}`;
    const known = this.probed?.counts.get(key);
    if (known !== undefined) return known;
    const n = (this.prepare(`probe|${sql}`, () => sql).values(...params) as [number][])[0]![0];
    this.probed?.counts.set(key, n);
    return n;
  }

  /**
   * Exact total of the matching rows. Equality filters alone are answered from the counters the
   * triggers keep (a few rows whatever the table size), dates on one column with at most one
   * counted filter from the per-day counters; anything else counts the index range.
   */
  private total(query: ListQuery, view: RecordView, days: (plan: DayPlan) => DayCount[]): number {
    if (isSearching(query.search)) {
      if (wordsOnly(query)) return this.wordSet(query.search).size;
      const counted = query.filters.length === 0 && query.dates.length === 0 ? countedTotal(query.search) : null;
      return counted === null ? this.count(query, view) : this.probe(counted.sql, counted.params);
    }
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
    return this.count(query, view);
  }

  /** The matching rows counted through the indexes. */
  count(asked: ListFilters, view: RecordView): number {
    const query = absorbed(asked);
    if (wordsOnly(query)) return this.wordSet(query.search).size;
    const where = this.where(query, view, [], this.driving(query, view));
    const statement = this.prepare(`count|${view}|${where.sql}`, () => {
      return `SELECT count(*) FROM ${this.catalog.table} ${this.catalog.alias} WHERE ${where.sql}`;
    });
    return (statement.values(...where.params) as [number][])[0]![0];
  }

  /**
   * The matching rows' number and, when at most `smallSet`, their rowids as a JSON array, read in
   * one pass (groupedOf then reads those rows alone); past that, the number counted through the
   * indexes and no rowids.
   */
  matching(asked: ListFilters, view: RecordView): { total: number; ids: string | null } {
    const query = absorbed(asked);
    if (wordsOnly(query)) {
      const words = this.wordSet(query.search);
      return { total: words.size, ids: words.size <= this.smallSet ? words.ids : null };
    }
    const { table, alias } = this.catalog;
    const where = this.where(query, view, [], this.driving(query, view));
    const statement = this.prepare(`matching|${view}|${where.sql}`, () => {
      return `SELECT count(*), json_group_array(r) FROM (SELECT ${alias}.rowid AS r FROM ${table} ${alias} WHERE ${where.sql} LIMIT ?)`;
    });
    const [n, ids] = (statement.values(...where.params, this.smallSet + 1) as [number, string][])[0]!;
    return n <= this.smallSet ? { total: n, ids } : { total: this.count(asked, view), ids: null };
  }

  /** Rows of `sql` (as for grouped) over the records `ids` names, a JSON array of rowids. */
  groupedOf<Row>(shape: string, ids: string, sql: (where: string) => string, extra: (string | number)[] = []): Row[] {
    const statement = this.prepare(`grouped-of|${shape}`, () =>
      sql(`${this.catalog.alias}.rowid IN (SELECT value FROM json_each(?))`),
    );
    return statement.all(ids, ...extra) as Row[];
  }

  /**
   * Rows of `sql` (selecting from the entity's table under its alias, with `{where}` where the
   * conditions go) under `query`'s conditions: the facets' group counts.
   */
  grouped<Row>(
    shape: string,
    asked: ListFilters,
    view: RecordView,
    sql: (where: string) => string,
    extra: (string | number)[] = [],
  ): Row[] {
    const query = absorbed(asked);
    const where = this.where(query, view, [], this.driving(query, view));
    const statement = this.prepare(`grouped|${shape}|${view}|${where.sql}`, () => sql(where.sql));
    return statement.all(...where.params, ...extra) as Row[];
  }

  /** Runs `read` in one snapshot of the database. */
  snapshot<T>(read: () => T): T {
    if (this.probed !== null) return read();
    this.probed = { counts: new Map(), words: new Map() };
    try {
      return this.tenant.read.transaction(read).deferred();
    } finally {
      this.probed = null;
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

/** The word index's matches of a search: how many, and their rowids as a JSON array. */
interface WordSet {
  size: number;
  ids: string;
  /** The same rowids sorted, once a walk needs them (search/matches.ts). */
  sorted?: Float64Array;
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
