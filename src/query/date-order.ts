// Lists filtered on one date and ordered by the other.
//
// A record is never updated before it is created, so while no stored record breaks that
// order (schema 3 keeps the count of those that do), a filter on one date says something
// about the other:
// - `updatedBefore=X` implies `created_at < X`, and `createdAfter=X` implies `updated_at > X`:
//   added to the query, the scan of the sort date's index starts at X instead of walking every
//   newer (or older) entry only to reject it;
// - every record created after `updatedAfter=X` matches it, and every record updated before
//   `createdBefore=X` matches it: under the other date's order these records make one run at
//   an end of the list, counted by that date's per-day counters, so a deep page inside the run
//   is located like any other deep page (day-counts.ts), and one past it starts at X. Used
//   beside an equality filter; without one the date pairs locate every deep page (date-pairs.ts).
// A feed can still carry records updated before they were created; while one is stored these
// shortcuts are off and such lists are read the plain way, just as exactly.
import type { EntityCatalog } from "../catalog/index.ts";
import type { Bound } from "./bounds.ts";
import { type DateKind, type DayPlan, dayPlanFor } from "./day-counts.ts";
import type { ListQuery } from "./params.ts";

export function sortKindOf(query: Pick<ListQuery, "sort">): DateKind {
  return query.sort.endsWith("updatedAt") ? "updated" : "created";
}

/** The bound on the sort date that the query's filter on the other date implies, or null. */
export function impliedSortBound(catalog: EntityCatalog, query: ListQuery): Bound | null {
  const sortKind = sortKindOf(query);
  for (const { spec, value } of query.dates) {
    if (sortKind === "created" && spec.param === "updatedBefore")
      return { column: `${catalog.alias}.created_at`, op: "<", value };
    if (sortKind === "updated" && spec.param === "createdAfter")
      return { column: `${catalog.alias}.updated_at`, op: ">", value };
  }
  return null;
}

/**
 * The records of a list that all match its one date filter, as a run at one end of the list:
 * `plan` counts them by the sort date's days; `leading` says whether they come first in the
 * list's order; `rest` is the bound that starts the list at the first record after the run,
 * when the run leads.
 */
export interface MatchingRun {
  plan: DayPlan;
  leading: boolean;
  rest: Bound;
}

export function matchingRunOf(catalog: EntityCatalog, query: ListQuery): MatchingRun | null {
  if (query.dates.length !== 1) return null;
  const base = dayPlanFor(catalog, query);
  if (base === null) return null;
  const { spec, value } = query.dates[0]!;
  const sortKind = sortKindOf(query);
  const descending = query.sort.startsWith("-");
  if (sortKind === "created" && spec.param === "updatedAfter") {
    const column = `${catalog.alias}.created_at`;
    return {
      plan: { ...base, kind: "created", column, after: value, before: null },
      leading: descending,
      rest: { column, op: "<=", value },
    };
  }
  if (sortKind === "updated" && spec.param === "createdBefore") {
    const column = `${catalog.alias}.updated_at`;
    return {
      plan: { ...base, kind: "updated", column, after: null, before: value },
      leading: !descending,
      rest: { column, op: ">=", value },
    };
  }
  return null;
}
