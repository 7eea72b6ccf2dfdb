// Folding of text for the search keys (docs/reference/behaviour-partners.md §20): accents off,
// ASCII letters lower-cased, the same in SQL (checks, triggers) and in TypeScript (the keys the
// writers store, the values a caller sends), so both sides of a comparison are folded alike.

/** Accented letters as Brazilian (and Spanish, French) names write them, and their base letter. */
const FOLDS: readonly (readonly [string, string])[] = [
  ..."àáâãäå".split("").map((c) => [c, "a"] as const),
  ..."ÀÁÂÃÄÅ".split("").map((c) => [c, "a"] as const),
  ..."èéêë".split("").map((c) => [c, "e"] as const),
  ..."ÈÉÊË".split("").map((c) => [c, "e"] as const),
  ..."ìíîï".split("").map((c) => [c, "i"] as const),
  ..."ÌÍÎÏ".split("").map((c) => [c, "i"] as const),
  ..."òóôõö".split("").map((c) => [c, "o"] as const),
  ..."ÒÓÔÕÖ".split("").map((c) => [c, "o"] as const),
  ..."ùúûü".split("").map((c) => [c, "u"] as const),
  ..."ÙÚÛÜ".split("").map((c) => [c, "u"] as const),
  ["ç", "c"],
  ["Ç", "c"],
  ["ñ", "n"],
  ["Ñ", "n"],
  ["ý", "y"],
  ["ÿ", "y"],
  ["Ý", "y"],
];
const FOLD_MAP = new Map(FOLDS);

/**
 * `text` folded as the SQL of foldSql folds it: the letters of FOLDS replaced, then ASCII
 * lower-cased (SQLite's lower() without ICU touches ASCII only), spaces (as trim() does) cut at both ends.
 */
export function fold(text: string): string {
  const trimmed = text.replace(/^ +| +$/g, "");
  // Printable ASCII (most keys, every uf) has no letter of FOLDS: lower case is all there is to do.
  if (PRINTABLE_ASCII.test(trimmed)) return trimmed.toLowerCase();
  let out = "";
  for (const c of trimmed) out += FOLD_MAP.get(c) ?? (c >= "A" && c <= "Z" ? c.toLowerCase() : c);
  return out;
}

const PRINTABLE_ASCII = /^[ -~]*$/;

/**
 * The place keys a property row stores beside its place (migration 9), in the order of
 * PLACE_KEY_COLUMNS: written by every writer of properties with the place they fold, which the
 * schema checks.
 */
export const PLACE_KEY_COLUMNS = ["city_key", "neighborhood_key", "uf_key"] as const;

export function placeKeys(city: string | null, neighborhood: string | null, uf: string | null): (string | null)[] {
  return [city, neighborhood, uf].map((place) => (place === null ? null : fold(place)));
}

/**
 * The SQL expression folding `expression`. The schema's checks of the place keys and its triggers
 * use it (migration 9 is written with it): changing FOLDS needs a migration that rewrites the keys.
 */
export function foldSql(expression: string): string {
  let sql = `trim(${expression})`;
  for (const [from, to] of FOLDS) sql = `replace(${sql}, '${from}', '${to}')`;
  // Text of printable ASCII alone (most keys, every uf) skips the replacements: each one copies
  // the text, and the writes fold on every listing they index.
  return `CASE WHEN ${expression} GLOB '*[^ -~]*' THEN lower(${sql}) ELSE lower(trim(${expression})) END`;
}
