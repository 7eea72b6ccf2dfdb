// A page of a text search's matches in a price or area order, found from their sort keys
// (migration 9's `property_sort_keys`: each published listing's price and area by rowid) instead
// of their rows: the keys say which matches the page holds, and only those are read, ties by id
// settled among them.

/** The matches' rowids and their keys in the same order, two JSON arrays (a LEFT JOIN keeps them aligned). */
export const sortKeysSql = (column: "price" | "area"): string =>
  `SELECT json_group_array(j.value), json_group_array(k.${column}) FROM json_each(?) j ` +
  "LEFT JOIN property_sort_keys k ON k.property = j.value";

/**
 * The matches a page can hold, and how many of them to skip: every match whose key lies between
 * the keys of the page's first and last match (in the order's terms: listings without the key
 * last, either way), which are the page's matches and those tied with its first or last on the
 * key, and of them the ones before the page. Sorted by key and id, `skip` of them, then the page.
 * Null when a key is not a number (SQLite would order it after every number): the caller sorts the rows.
 */
export function pageWindow(
  ids: readonly number[],
  keys: readonly unknown[],
  descending: boolean,
  offset: number,
  limit: number,
): { candidates: number[]; skip: number } | null {
  const n = keys.length;
  // Ascending in every case: a descending order's keys negated, a missing key after all of them.
  const order = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const key = keys[i];
    if (key === null) order[i] = Number.POSITIVE_INFINITY;
    else if (typeof key === "number") order[i] = descending ? -key : key;
    else return null;
  }
  if (offset >= n) return { candidates: [], skip: 0 };
  const sorted = order.slice().sort();
  const first = sorted[offset]!;
  const last = sorted[Math.min(offset + limit, n) - 1]!;
  const candidates: number[] = [];
  for (let i = 0; i < n; i++) if (order[i]! >= first && order[i]! <= last) candidates.push(ids[i]!);
  return { candidates, skip: offset - sorted.indexOf(first) };
}
