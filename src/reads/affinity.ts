// Which reader thread a search prefers. Each thread holds the word matches of the searches it ran
// (search/engine.ts), so a search with words goes, when it is free, to the thread its words name:
// the same `q` meets the same thread and its held matches, and the threads hold three times as
// many distinct ones as if every search went anywhere. A one-letter prefix, the dearest to read,
// is read by its thread before the thread takes any job (warmPrefixesOf).

/** The letters and digits a `q` may be cut down to while a visitor types. */
const ONE_LETTER = [..."abcdefghijklmnopqrstuvwxyz0123456789"];

/** `q` as the word index compares it (case, accents and spacing aside), or null when there is none. */
function wordsOf(rawQuery: string): string | null {
  const q = new URLSearchParams(rawQuery).get("q");
  if (q === null) return null;
  const key = q
    .normalize("NFD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word !== "")
    .join(" ");
  return key === "" ? null : key;
}

const placeOfKey = (key: string, places: number): number => Number(Bun.hash.wyhash(key) % BigInt(places));

/** The place in the pool of the thread a read prefers (its `q`'s), or null for any. */
export function preferredPlace(rawQuery: string, places: number): number | null {
  const key = wordsOf(rawQuery);
  return key === null || places < 2 ? null : placeOfKey(key, places);
}

/** The one-letter prefixes the thread at `place` of `places` keeps warm: those preferredPlace sends it. */
export function warmPrefixesOf(place: number, places: number): string[] {
  return ONE_LETTER.filter((letter) => places < 2 || placeOfKey(letter, places) === place);
}
