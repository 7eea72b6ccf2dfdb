// A map with a cap on its keys: metrics label sets must stay bounded whatever the traffic, so
// once full, new keys share one overflow entry instead of growing the scrape.

export const OVERFLOW_LABEL = "(other)";

export class BoundedMap<V> {
  private readonly entries = new Map<string, V>();

  constructor(
    private readonly maxKeys: number,
    private readonly create: () => V,
  ) {}

  /** The entry of `key`, created on first use, or the overflow entry once the cap is reached. */
  get(key: string): V {
    let entry = this.entries.get(key);
    if (entry === undefined) {
      const slot = this.entries.size < this.maxKeys ? key : OVERFLOW_LABEL;
      entry = this.entries.get(slot);
      if (entry === undefined) {
        entry = this.create();
        this.entries.set(slot, entry);
      }
    }
    return entry;
  }

  /** Entries sorted by key, so scrapes are stable and diffable. */
  sorted(): [string, V][] {
    return [...this.entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  }
}
