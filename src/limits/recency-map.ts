// Per-key limiter state in last-use order, so idle keys can be dropped from the old end a few
// at a time and a hard cap can evict the least recently used.

// Order lives in a linked list threaded through the entries, not in the Map's insertion order:
// JavaScriptCore's Map keeps deleted slots until it rehashes, and every new iterator walks over
// them, so "delete the first key" costs O(keys deleted so far), measured at tens of µs a call
// at 100,000 keys. Here the Map only looks keys up; every reorder and eviction is a few
// pointer writes plus at most one Map.delete.

/** What an entry carries so the map can order it. */
export interface Recent<V> {
  readonly key: string;
  newer: V | undefined;
  older: V | undefined;
}

// Fixed budgets keep every call O(1): an insert drops up to two idle keys, so idle keys never
// pile up faster than new ones arrive, and a sweep each second drains a quiet limiter.
const SWEEP_ON_INSERT = 2;
const SWEEP_PER_SECOND = 16;

export class RecencyMap<V extends Recent<V>> {
  readonly #entries = new Map<string, V>();
  readonly #maxKeys: number;
  readonly #isIdle: (entry: V, nowMs: number) => boolean;
  #oldest: V | undefined;
  #newest: V | undefined;
  #sweptAt = Number.NEGATIVE_INFINITY;

  /** `isIdle` says an entry carries no information any more (window empty, bucket full). */
  constructor(maxKeys: number, isIdle: (entry: V, nowMs: number) => boolean) {
    if (!Number.isInteger(maxKeys) || maxKeys < 1) throw new RangeError("maxKeys must be a positive integer");
    this.#maxKeys = maxKeys;
    this.#isIdle = isIdle;
  }

  get size(): number {
    return this.#entries.size;
  }

  get(key: string): V | undefined {
    return this.#entries.get(key);
  }

  /** Marks `entry` as the most recently used. */
  touch(entry: V): void {
    if (entry === this.#newest) return;
    this.#unlink(entry);
    this.#append(entry);
  }

  add(entry: V, nowMs: number): void {
    this.#sweep(nowMs, SWEEP_ON_INSERT);
    // Over the cap the least recently used key forgets its state: lenient to that key, but
    // memory stays bounded whatever the traffic.
    if (this.#entries.size >= this.#maxKeys && this.#oldest !== undefined) this.#remove(this.#oldest);
    this.#entries.set(entry.key, entry);
    this.#append(entry);
  }

  /** Called on every use; sweeps once a second so a quiet limiter still sheds idle keys. */
  tick(second: number, nowMs: number): void {
    if (second === this.#sweptAt) return;
    this.#sweptAt = second;
    this.#sweep(nowMs, SWEEP_PER_SECOND);
  }

  // The old end holds the longest-unused keys; the first one still holding state ends the sweep.
  #sweep(nowMs: number, budget: number): void {
    while (budget-- > 0 && this.#oldest !== undefined && this.#isIdle(this.#oldest, nowMs)) {
      this.#remove(this.#oldest);
    }
  }

  #remove(entry: V): void {
    this.#entries.delete(entry.key);
    this.#unlink(entry);
  }

  #unlink(entry: V): void {
    if (entry.older === undefined) this.#oldest = entry.newer;
    else entry.older.newer = entry.newer;
    if (entry.newer === undefined) this.#newest = entry.older;
    else entry.newer.older = entry.older;
    entry.older = entry.newer = undefined;
  }

  #append(entry: V): void {
    entry.older = this.#newest;
    if (this.#newest === undefined) this.#oldest = entry;
    else this.#newest.newer = entry;
    this.#newest = entry;
  }
}
