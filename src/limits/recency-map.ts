// A Map of per-key limiter state kept in last-use order, so idle keys can be dropped from the
// front a few at a time and a hard cap can evict the least recently used.

/** `usedAt` is the whole second of the last reorder: a key moves at most once a second. */
export interface Recent {
  usedAt: number;
}

// Small fixed budgets keep every call O(1): an insert removes up to two idle keys, so idle
// keys never pile up faster than new ones arrive, and the per-second sweep drains the rest.
const SWEEP_ON_INSERT = 2;
const SWEEP_PER_SECOND = 16;

export class RecencyMap<V extends Recent> {
  readonly #entries = new Map<string, V>();
  readonly #maxKeys: number;
  readonly #isIdle: (entry: V, nowMs: number) => boolean;
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

  /** Marks a use. Moving only when the second changes keeps the hot path a single Map.get. */
  touch(key: string, entry: V, second: number): void {
    if (entry.usedAt === second) return;
    entry.usedAt = second;
    this.#entries.delete(key);
    this.#entries.set(key, entry);
  }

  add(key: string, entry: V, nowMs: number): void {
    this.#sweep(nowMs, SWEEP_ON_INSERT);
    if (this.#entries.size >= this.#maxKeys) {
      // Over the cap the least recently used key forgets its state: lenient to that key,
      // but memory stays bounded whatever the traffic.
      for (const oldest of this.#entries.keys()) {
        this.#entries.delete(oldest);
        break;
      }
    }
    this.#entries.set(key, entry);
  }

  delete(key: string): void {
    this.#entries.delete(key);
  }

  /** Called on every use; sweeps once per second so a quiet limiter still sheds idle keys. */
  tick(second: number, nowMs: number): void {
    if (second === this.#sweptAt) return;
    this.#sweptAt = second;
    this.#sweep(nowMs, SWEEP_PER_SECOND);
  }

  // The front holds the longest-unused keys; the first one still in use ends the sweep.
  #sweep(nowMs: number, budget: number): void {
    for (const [key, entry] of this.#entries) {
      if (budget-- === 0 || !this.#isIdle(entry, nowMs)) return;
      this.#entries.delete(key);
    }
  }
}
