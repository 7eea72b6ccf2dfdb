// The search engine of one database: its listing index, built on first use and brought up to date
// before each search, the word index's matches of `q`, and the matches of a search's filters.
import type { RecordView } from "../catalog/types.ts";
import type { Tenant } from "../db/tenants.ts";
import { perTenant } from "../lib/per-tenant.ts";
import { type Bitset, ListingIndex } from "./listing-index.ts";
import type { ListFilters } from "./params.ts";
import { type Deadline, fewMatches, type Matches, matching } from "./scan.ts";

/** The word index's matches of the words' query, as rowids (SQLite builds the JSON: a row per match costs more in Bun). */
const WORD_ROWIDS_SQL = "SELECT json_group_array(rowid) FROM property_words WHERE property_words MATCH ?";
/**
 * A word index of a few listings' text, in this connection's own memory (a temporary table: a
 * read-only connection may write those), to ask which of them a query matches. The word index
 * itself cannot answer that for a prefix of two letters or more: it merges the lists of every word
 * the prefix begins once per listing asked (seconds for a thousand listings). Its columns and
 * tokenizer are the word index's (src/db/migrations/009_search.sql), so it matches exactly as
 * the word index does; it keeps no text (contentless) and is emptied after each use.
 */
const AMONG_TABLE_SQL = `CREATE VIRTUAL TABLE IF NOT EXISTS temp.words_among USING fts5(
  title, description, property_type, neighborhood, city, code, amenities,
  content = '', detail = none, columnsize = 0, tokenize = 'unicode61 remove_diacritics 2'
)`;
const AMONG_FILL_SQL = `INSERT INTO temp.words_among (rowid, title, description, property_type, neighborhood, city, code, amenities)
  SELECT rowid, title, description, property_type, neighborhood, city, code, amenities FROM properties
   WHERE rowid IN (SELECT value FROM json_each(?))`;
const AMONG_MATCH_SQL = "SELECT rowid FROM temp.words_among WHERE words_among MATCH ?";
const AMONG_EMPTY_SQL = "INSERT INTO temp.words_among (words_among) VALUES ('delete-all')";
/** Past this many listings written at once, the held word matches are dropped rather than asked again. */
const RETEST_AT_MOST = 20_000;
/**
 * How a search with words is answered. One whose other filters leave at most `candidatesAtMost`
 * listings tests those against the words (about 12 µs each) instead of reading the word index's
 * matches among every listing (up to 150 ms for a short prefix at a million listings). Tests set
 * it to 0 to answer every search the other way, from the matches held.
 */
export const wordSearch = { candidatesAtMost: 4_000 };
const CODE_SQL = "SELECT rowid FROM properties WHERE code = ? AND is_published = 1";
/** Word matches held per database (a bit per listing each: 125 kB at a million listings). */
const WORD_CACHE = 64;

class SearchEngine {
  private index: ListingIndex | null = null;
  /** Word matches by query, least recently used first; the warm ones are never dropped. */
  private readonly words = new Map<string, Bitset>();
  private readonly warm = new Set<string>();
  private amongReady = false;

  constructor(private readonly tenant: Tenant) {}

  /** The index as of the read transaction the caller is in: built, or brought up to date. */
  current(): ListingIndex {
    const db = this.tenant.read;
    const written = this.index === null ? [] : this.index.refresh();
    if (this.index === null || this.index.stale) {
      this.index = ListingIndex.build(db);
      this.words.clear();
      for (const match of this.warm) this.wordSlots(this.index, match);
    } else if (written.length > 0) {
      this.retest(this.index, written);
    }
    return this.index;
  }

  /**
   * Reads the matches of some words' queries now and holds them for good (kept current like the
   * others): a reader thread warms the one-letter prefixes the pool sends it (reads/affinity.ts),
   * the dearest to read at the first search that types one.
   */
  keepWarm(words: readonly string[]): void {
    const index = this.current();
    for (const word of words) {
      const match = matchOf([word]);
      this.warm.add(match);
      this.wordSlots(index, match);
    }
  }

  /**
   * Keeps the word matches held current: the listings written since are asked of a word index of
   * their own text (a few rowids per refresh), so a common prefix stays answered from memory
   * however often listings change. Slots of removed listings need nothing: no search reads a dead slot.
   */
  private retest(index: ListingIndex, rowids: readonly number[]): void {
    if (this.words.size === 0) return;
    if (rowids.length > RETEST_AT_MOST) {
      this.words.clear();
      for (const match of this.warm) this.wordSlots(index, match);
      return;
    }
    const words = Math.ceil(index.size / 32);
    this.among(rowids, (matchingAmong) => {
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
        for (const rowid of matchingAmong(match)) {
          const slot = index.slotFor(rowid);
          bits[slot >>> 5]! |= 1 << (slot & 31);
        }
      }
    });
  }

  /**
   * Runs `use` with a function that answers which of `rowids` (published listings) a word
   * query matches, from a word index of their text alone (AMONG_TABLE_SQL), emptied after.
   */
  private among<T>(rowids: readonly number[], use: (matchingAmong: (match: string) => number[]) => T): T {
    const db = this.tenant.read;
    if (!this.amongReady) {
      db.run(AMONG_TABLE_SQL);
      this.amongReady = true;
    }
    db.query(AMONG_FILL_SQL).run(JSON.stringify(rowids));
    try {
      return use((match) => (db.query(AMONG_MATCH_SQL).values(match) as [number][]).map(([rowid]) => rowid));
    } finally {
      db.query(AMONG_EMPTY_SQL).run();
    }
  }

  /** The slots of the listings whose text matches the word query `match`, held for the next searches. */
  private wordSlots(index: ListingIndex, match: string): Bitset {
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
    if (this.words.size >= WORD_CACHE + this.warm.size) {
      for (const held of this.words.keys()) {
        if (this.warm.has(held)) continue;
        this.words.delete(held);
        break;
      }
    }
    this.words.set(match, bits);
    return bits;
  }

  /** The listings matching `filters` as `view` sees them. Call inside a read transaction. */
  matches(filters: ListFilters, view: RecordView, deadline?: Deadline): { index: ListingIndex; matches: Matches } {
    const index = this.current();
    const code = filters.filters.find((f) => f.spec.param === "code")?.value;
    // The code filter names one listing at most (a unique index): its slot alone is tested.
    let slot: number | null = null;
    if (code !== undefined) {
      const rowid = (this.tenant.read.query(CODE_SQL).values(code) as [number][])[0]?.[0];
      slot = rowid === undefined ? -1 : index.slotFor(rowid);
    }
    if (filters.search.words.length === 0)
      return { index, matches: matching(index, filters, view, null, slot, deadline) };
    const match = matchOf(filters.search.words);
    if (!this.words.has(match)) {
      // Few listings left by the other filters: only they are tested against the words.
      const few = fewMatches(index, filters, view, slot, wordSearch.candidatesAtMost, deadline);
      if (few !== null) return { index, matches: this.wordsAmong(index, few, match) };
    }
    return { index, matches: matching(index, filters, view, this.wordSlots(index, match), slot, deadline) };
  }

  /** Of some matches, those whose text matches the word query `match`, in the same order. */
  private wordsAmong(index: ListingIndex, candidates: Matches, match: string): Matches {
    if (candidates.count === 0) return candidates;
    const rowids = Array.from(candidates.slots.subarray(0, candidates.count), (slot) => index.rowid[slot]!);
    const matched = new Set(this.among(rowids, (matchingAmong) => matchingAmong(match)));
    let count = 0;
    for (let i = 0; i < candidates.count; i++) {
      const slot = candidates.slots[i]!;
      if (matched.has(index.rowid[slot]!)) candidates.slots[count++] = slot;
    }
    return { slots: candidates.slots, count };
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
