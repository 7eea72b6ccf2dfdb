// The search engine of one database: its listing index, built on first use and brought up to date
// before each search, the word index's matches of `q`, and the matches of a search's filters.
import type { RecordView } from "../catalog/types.ts";
import type { Tenant } from "../db/tenants.ts";
import { perTenant } from "../lib/per-tenant.ts";
import { type Bitset, ListingIndex } from "./listing-index.ts";
import type { ListFilters } from "./params.ts";
import { type Deadline, type Matches, matching } from "./scan.ts";

/** The word index's matches of the words' query, as rowids (SQLite builds the JSON: a row per match costs more in Bun). */
const WORD_ROWIDS_SQL = "SELECT json_group_array(rowid) FROM property_words WHERE property_words MATCH ?";
/** Which of some rowids the word index matches (json_each: the rowids as one JSON array). */
const WORD_RETEST_SQL =
  "SELECT rowid FROM property_words WHERE property_words MATCH ? AND rowid IN (SELECT value FROM json_each(?))";
/** Past this many listings written at once, the held word matches are dropped rather than asked again. */
const RETEST_AT_MOST = 20_000;
const CODE_SQL = "SELECT rowid FROM properties WHERE code = ? AND is_published = 1";
/** Word matches held per database (a bit per listing each: 125 kB at a million listings). */
const WORD_CACHE = 32;

class SearchEngine {
  private index: ListingIndex | null = null;
  private readonly words = new Map<string, Bitset>();

  constructor(private readonly tenant: Tenant) {}

  /** The index as of the read transaction the caller is in: built, or brought up to date. */
  current(): ListingIndex {
    const db = this.tenant.read;
    const written = this.index === null ? [] : this.index.refresh();
    if (this.index === null || this.index.stale) {
      this.index = ListingIndex.build(db);
      this.words.clear();
    } else if (written.length > 0) {
      this.retest(this.index, written);
    }
    return this.index;
  }

  /**
   * Keeps the word matches held current: the listings written since are asked of the word index
   * again (a few rowids per held query), so a common prefix stays answered from memory however
   * often listings change. Slots of removed listings need nothing: no search reads a dead slot.
   */
  private retest(index: ListingIndex, rowids: readonly number[]): void {
    if (rowids.length > RETEST_AT_MOST) {
      this.words.clear();
      return;
    }
    const ids = JSON.stringify(rowids);
    const words = Math.ceil(index.size / 32);
    for (const [match, held] of this.words) {
      let bits = held;
      if (bits.length < words) {
        bits = new Uint32Array(words);
        bits.set(held);
        this.words.set(match, bits);
      }
      for (const rowid of rowids) {
        const slot = index.slotFor(rowid);
        bits[slot >>> 5]! &= ~(1 << (slot & 31));
      }
      for (const [rowid] of this.tenant.read.query(WORD_RETEST_SQL).values(match, ids) as [number][]) {
        const slot = index.slotFor(rowid);
        bits[slot >>> 5]! |= 1 << (slot & 31);
      }
    }
  }

  /** The slots of the listings whose text holds every word (the last one as a prefix). */
  wordSlots(index: ListingIndex, words: readonly string[]): Bitset {
    const match = matchOf(words);
    const known = this.words.get(match);
    if (known !== undefined) {
      // Most recently used last: the first one is the one to drop.
      this.words.delete(match);
      this.words.set(match, known);
      return known;
    }
    const rowids = JSON.parse((this.tenant.read.query(WORD_ROWIDS_SQL).values(match) as [string][])[0]![0]) as number[];
    const bits = new Uint32Array(Math.ceil(index.size / 32));
    for (const rowid of rowids) {
      const slot = index.slotFor(rowid);
      if (slot >= 0) bits[slot >>> 5]! |= 1 << (slot & 31);
    }
    if (this.words.size >= WORD_CACHE) this.words.delete(this.words.keys().next().value!);
    this.words.set(match, bits);
    return bits;
  }

  /** The listings matching `filters` as `view` sees them. Call inside a read transaction. */
  matches(filters: ListFilters, view: RecordView, deadline?: Deadline): { index: ListingIndex; matches: Matches } {
    const index = this.current();
    const words = filters.search.words.length > 0 ? this.wordSlots(index, filters.search.words) : null;
    const code = filters.filters.find((f) => f.spec.param === "code")?.value;
    // The code filter names one listing at most (a unique index): its slot alone is tested.
    let slot: number | null = null;
    if (code !== undefined) {
      const rowid = (this.tenant.read.query(CODE_SQL).values(code) as [number][])[0]?.[0];
      slot = rowid === undefined ? -1 : index.slotFor(rowid);
    }
    return { index, matches: matching(index, filters, view, words, slot, deadline) };
  }
}

/** The search engine of a database (one per open tenant). */
export const searchEngineOf = perTenant((tenant) => new SearchEngine(tenant));

/**
 * The word index's query of the words of `q`: each quoted (so no word is an operator), the last
 * one as a prefix. A word given twice is asked once, and the prefix not at all when the same word
 * is asked whole (the whole word implies it): a repeated word costs nothing more.
 */
function matchOf(words: readonly string[]): string {
  const quoted = (w: string) => `"${w.replaceAll('"', '""')}"`;
  // As the word index compares them: case and accents aside (its tokenizer's remove_diacritics).
  const keyOf = (w: string) => w.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase();
  const whole = new Map<string, string>();
  for (const word of words.slice(0, -1)) if (!whole.has(keyOf(word))) whole.set(keyOf(word), quoted(word));
  const last = words[words.length - 1]!;
  const terms = [...whole.values()];
  if (!whole.has(keyOf(last))) terms.push(`${quoted(last)}*`);
  return terms.join(" ");
}
