// Totals and deep-page positions from the per-day counters the triggers keep (schema 2).
//
// A list whose rows are "every visible record" or "those with one value of a counted column",
// bounded by dates on one column, is a run of whole days plus at most two partial days at the
// bounds. Whole days come from the counters (a few hundred rows, whatever the table size);
// the partial days are counted in the index, a day's worth of entries at most. That gives the
// exact total, and, walking the days in the list's order, the day where a deep page starts:
// the page is then read from that day on, skipping only rows of that day, instead of walking
// OFFSET entries from the first row.
import type { Statement } from "bun:sqlite";
import type { EntityCatalog } from "../catalog/index.ts";
import type { Bound } from "./bounds.ts";
import type { ListQuery } from "./params.ts";

export type DateKind = "created" | "updated";

/** The column of a date kind. */
export function dateColumnOf(kind: DateKind): "created_at" | "updated_at" {
  return kind === "updated" ? "updated_at" : "created_at";
}

export interface DayPlan {
  kind: DateKind;
  /** The date column the days are of, as SQL over the entity's alias. */
  column: string;
  /** `dim` and `value` of the counters: both '' for every visible record. */
  dim: string;
  value: string;
  /** SQL of the equality filter the counters stand for, or null. */
  filterSql: string | null;
  after: string | null;
  before: string | null;
}

export interface DayCount {
  day: string;
  n: number;
}

/** Greater than any character of a stored date: `day + END_OF_DAY` is past all of that day's dates. */
const END_OF_DAY = "~";

/**
 * The plan for a query, when its rows are one counted slice: at most one equality filter, one
 * that has day counters, and date bounds on at most one column. `kind` asks for days of that
 * column (a page's sort); null when the query's dates are on the other one.
 */
export function dayPlanFor(catalog: EntityCatalog, query: ListQuery, kind?: DateKind): DayPlan | null {
  if (query.filters.length > 1) return null;
  const filter = query.filters[0];
  if (filter !== undefined && filter.spec.dayDimension === undefined) return null;
  const columns = new Set(query.dates.map((d) => d.spec.column));
  if (columns.size > 1) return null;
  const column = [...columns][0] ?? dateColumnOf(kind ?? "created");
  const planKind = column === "updated_at" ? "updated" : "created";
  if (kind !== undefined && kind !== planKind) return null;
  let after: string | null = null;
  let before: string | null = null;
  for (const { spec, value } of query.dates) {
    if (spec.op === ">") after = value;
    else before = value;
  }
  return {
    kind: planKind,
    column: `${catalog.alias}.${column}`,
    dim: filter?.spec.dayDimension ?? "",
    value: filter?.value ?? "",
    filterSql: filter === undefined ? null : `${filter.spec.column} = ?`,
    after,
    before,
  };
}

export type Prepare = (shape: string, build: () => string) => Statement;

export class DayCounts {
  constructor(
    private readonly catalog: EntityCatalog,
    private readonly prepare: Prepare,
  ) {}

  /** Visible matching rows per day, oldest day first; the days at the bounds counted exactly within them. */
  days(plan: DayPlan): DayCount[] {
    if (plan.after !== null && plan.before !== null && plan.after >= plan.before) return []; // bounds that exclude everything
    const firstDay = plan.after?.slice(0, 10) ?? null;
    const lastDay = plan.before?.slice(0, 10) ?? null;
    if (firstDay !== null && firstDay === lastDay) {
      return [{ day: firstDay, n: this.countBetween(plan, plan.after!, plan.before!) }];
    }
    const whole = this.prepare(`days|${this.catalog.daysTable}`, () => {
      return `SELECT day, n FROM ${this.catalog.daysTable} WHERE kind = ? AND dim = ? AND value = ? AND day > ? AND day < ? AND n > 0 ORDER BY day`;
    });
    const middle = (
      whole.values(plan.kind, plan.dim, plan.value, firstDay ?? "", lastDay ?? END_OF_DAY) as [string, number][]
    ).map(([day, n]) => ({ day, n }));
    const days: DayCount[] = [];
    if (firstDay !== null) days.push({ day: firstDay, n: this.countBetween(plan, plan.after!, firstDay + END_OF_DAY) });
    days.push(...middle);
    // Every date of the last day sorts after the bare day ('2025-01-31' < '2025-01-31T…').
    if (lastDay !== null) days.push({ day: lastDay, n: this.countBetween(plan, lastDay, plan.before!) });
    return days;
  }

  /**
   * The newest day (the oldest, `descending` false) within the plan's bounds, their own days
   * included whole, on which a counted row falls; null when none does. One counter row read.
   */
  edgeDay(plan: DayPlan, descending: boolean): string | null {
    const statement = this.prepare(`edge-day|${this.catalog.daysTable}|${descending}`, () => {
      return (
        `SELECT day FROM ${this.catalog.daysTable} WHERE kind = ? AND dim = ? AND value = ? AND day >= ? AND day <= ? ` +
        `AND n > 0 ORDER BY day ${descending ? "DESC" : "ASC"} LIMIT 1`
      );
    });
    const firstDay = plan.after?.slice(0, 10) ?? "";
    const lastDay = plan.before?.slice(0, 10) ?? END_OF_DAY;
    const row = statement.values(plan.kind, plan.dim, plan.value, firstDay, lastDay)[0] as [string] | undefined;
    return row?.[0] ?? null;
  }

  private countBetween(plan: DayPlan, low: string, high: string): number {
    const { table, alias, visible } = this.catalog;
    const filter = plan.filterSql === null ? "" : ` AND ${plan.filterSql}`;
    const statement = this.prepare(`day-count|${plan.column}|${plan.filterSql}`, () => {
      return `SELECT count(*) FROM ${table} ${alias} WHERE ${visible} AND ${plan.column} > ? AND ${plan.column} < ?${filter}`;
    });
    const params = plan.filterSql === null ? [low, high] : [low, high, plan.value];
    return (statement.values(...params) as [number][])[0]![0];
  }
}

/**
 * The days of each plan, read once: within one snapshot a deep page's total and its start
 * need the same days. Use a fresh reader per snapshot; its answers are only valid there.
 */
export function dayReader(counts: DayCounts): (plan: DayPlan) => DayCount[] {
  const read = new Map<string, DayCount[]>();
  return (plan) => {
    const key = JSON.stringify([plan.kind, plan.dim, plan.value, plan.after, plan.before]);
    let days = read.get(key);
    if (days === undefined) {
      days = counts.days(plan);
      read.set(key, days);
    }
    return days;
  };
}

export function totalOf(days: readonly DayCount[]): number {
  let total = 0;
  for (const { n } of days) total += n;
  return total;
}

/**
 * Where the row at `offset` is, in the list's order: the bound that starts the list at its
 * day and the rows of that day to skip. On the day of one of the plan's bounds the list
 * starts at that bound itself: the rows of that day outside it were not counted, so they must
 * not be skipped over (date-order.ts reads lists whose own filter is on the other date).
 * Null when the list has fewer rows than that.
 */
export function startOf(
  plan: Pick<DayPlan, "column" | "after" | "before">,
  days: readonly DayCount[],
  offset: number,
  descending: boolean,
): { start: Bound; skip: number } | null {
  let before = 0;
  for (const { day, n } of descending ? [...days].reverse() : days) {
    if (before + n > offset) {
      const skip = offset - before;
      if (descending) {
        const dayEnd = day + END_OF_DAY;
        return {
          start: {
            column: plan.column,
            op: "<",
            value: plan.before !== null && plan.before < dayEnd ? plan.before : dayEnd,
          },
          skip,
        };
      }
      return {
        start: { column: plan.column, op: ">", value: plan.after !== null && plan.after > day ? plan.after : day },
        skip,
      };
    }
    before += n;
  }
  return null;
}
