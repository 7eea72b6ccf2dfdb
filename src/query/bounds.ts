// Date bounds of a list's SQL. A list can collect several bounds on one side of one date: the
// caller's filter, one implied by a filter on the other date (date-order.ts), the start of a
// deep page (day-counts.ts). SQLite starts an index range at one bound per side and only
// checks the others row by row, and it does not know which is tighter: given
// `updated_at > X AND updated_at > D` it may walk from X past half a million rows to D. So
// only the tightest bound of each side goes into the SQL.

export interface Bound {
  /** The date column, as SQL over the entity's alias. */
  column: string;
  op: "<" | "<=" | ">" | ">=";
  value: string;
}

function isUpper(bound: Bound): boolean {
  return bound.op === "<" || bound.op === "<=";
}

/** Whether `a` admits no date that `b` excludes (on the same column and side). */
function tighter(a: Bound, b: Bound): boolean {
  if (a.value !== b.value) return isUpper(a) ? a.value < b.value : a.value > b.value;
  return a.op === "<" || a.op === ">"; // at the same value, the strict one
}

/** The tightest bound per column and side, in the order each side first appears. */
export function tightestBounds(bounds: readonly Bound[]): Bound[] {
  const kept = new Map<string, Bound>();
  for (const bound of bounds) {
    const side = `${bound.column}${isUpper(bound) ? "<" : ">"}`;
    const current = kept.get(side);
    if (current === undefined || tighter(bound, current)) kept.set(side, bound);
  }
  return [...kept.values()];
}
