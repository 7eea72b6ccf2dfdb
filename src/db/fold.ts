// Folding of text for the search keys (docs/reference/behaviour-partners.md §20): accents off,
// ASCII letters lower-cased, the same in SQL (generated columns, triggers) and in TypeScript
// (the values a caller sends), so both sides of a comparison are folded alike.

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
  let out = "";
  for (const c of text.replace(/^ +| +$/g, "")) out += FOLD_MAP.get(c) ?? (c >= "A" && c <= "Z" ? c.toLowerCase() : c);
  return out;
}

/**
 * The SQL expression folding `expression`. The schema's generated columns and triggers use it
 * (migration 9 is written with it): changing FOLDS needs a migration that rebuilds them.
 */
export function foldSql(expression: string): string {
  let sql = `trim(${expression})`;
  for (const [from, to] of FOLDS) sql = `replace(${sql}, '${from}', '${to}')`;
  // Text of printable ASCII alone (most keys, every uf) skips the replacements: each one copies
  // the text, and the writes fold on every listing they index.
  return `CASE WHEN ${expression} GLOB '*[^ -~]*' THEN lower(${sql}) ELSE lower(trim(${expression})) END`;
}
