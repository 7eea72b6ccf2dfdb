// Folding of text for the search keys (docs/reference/behaviour-partners.md §20): accents off,
// ASCII letters lower-cased, spaces around cut; the listing index folds the places and amenities
// it holds and the filters fold the values a caller sends, so both sides are folded alike.

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
 * `text` folded: the letters of FOLDS replaced, then ASCII lower-cased (other letters kept as
 * they are), spaces cut at both ends.
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
