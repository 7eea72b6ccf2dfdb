// Deep pages of a list filtered on one date and ordered by the other, from the date pairs the
// triggers keep (schema 3): visible rows per day of one date and per third of a month of the
// other (its first 9 characters, 'YYYY-MM-D').
//
// For `updatedBefore=X` under created order, the rows of a created day that match are those
// of its pairs whose third is before X's, plus those updated within X's own third before X,
// counted in the updated index (ten days of rows at most). That gives the matching rows per
// day of the order, and so the day a deep page starts on (startOf), as for any other list.
import type { EntityCatalog } from "../catalog/index.ts";
import { sortKindOf } from "./date-order.ts";
import { type DateKind, type DayCount, dateColumnOf, type Prepare } from "./day-counts.ts";
import type { ListQuery } from "./params.ts";

/** Past every date that starts with a given prefix. */
const END_OF_PREFIX = "~";
const PREFIX_LENGTH = 9;

export interface PairPlan {
  /** The date of the list's order: the pairs' `kind`. */
  kind: DateKind;
  /** The order's date and the filtered one, as SQL over the entity's alias. */
  sortColumn: string;
  filterColumn: string;
  op: "<" | ">";
  value: string;
}

/** The plan of a list with no equality filter and one date filter, on the date it is not ordered by. */
export function pairPlanFor(catalog: EntityCatalog, query: ListQuery): PairPlan | null {
  if (query.filters.length > 0 || query.dates.length !== 1) return null;
  const { spec, value } = query.dates[0]!;
  const kind = sortKindOf(query);
  const sortColumn = dateColumnOf(kind);
  if (spec.column === sortColumn) return null;
  return {
    kind,
    sortColumn: `${catalog.alias}.${sortColumn}`,
    filterColumn: `${catalog.alias}.${spec.column}`,
    op: spec.op,
    value,
  };
}

export class DatePairs {
  constructor(
    private readonly catalog: EntityCatalog,
    private readonly prepare: Prepare,
  ) {}

  /** Matching rows per day of the list's order, oldest day first. */
  days(plan: PairPlan): DayCount[] {
    const { table, alias, visible, pairsTable } = this.catalog;
    const prefix = plan.value.slice(0, PREFIX_LENGTH);
    const whole = this.prepare(`pairs|${plan.op}`, () => {
      return `SELECT day, sum(n) FROM ${pairsTable} WHERE kind = ? AND other ${plan.op} ? GROUP BY day ORDER BY day`;
    });
    // The bound's own third: from its start up to the bound, or from the bound to its end.
    const [low, high] = plan.op === "<" ? [prefix, plan.value] : [plan.value, prefix + END_OF_PREFIX];
    const lowOp = plan.op === "<" ? ">=" : ">";
    const partial = this.prepare(`pairs-partial|${plan.sortColumn}|${plan.filterColumn}|${lowOp}`, () => {
      return (
        `SELECT substr(${plan.sortColumn}, 1, 10) AS day, count(*) FROM ${table} ${alias} ` +
        `WHERE ${visible} AND ${plan.filterColumn} ${lowOp} ? AND ${plan.filterColumn} < ? GROUP BY day`
      );
    });
    const perDay = new Map<string, number>();
    for (const [day, n] of whole.values(plan.kind, prefix) as [string, number][]) perDay.set(day, n);
    for (const [day, n] of partial.values(low, high) as [string, number][]) perDay.set(day, (perDay.get(day) ?? 0) + n);
    return [...perDay]
      .filter(([, n]) => n > 0)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([day, n]) => ({ day, n }));
  }
}
