// A map with a cap on its keys: metrics label sets must stay bounded whatever the traffic, so
// once full, new keys share one overflow entry instead of growing the scrape.

export const OVERFLOW_LABEL = "(other)";

export class BoundedMap<V> {
  private readonly entries = new Map<string, V>();

  /** `create` makes the entry of a label value: the key itself, or OVERFLOW_LABEL past the cap. */
  constructor(
    private readonly maxKeys: number,
    private readonly create: (label: string) => V,
  ) {}

  /** The entry of `key`, created on first use, or the overflow entry once the cap is reached. */
  get(key: string): V {
    let entry = this.entries.get(key);
    if (entry === undefined) {
      const slot = this.entries.size < this.maxKeys ? key : OVERFLOW_LABEL;
      entry = this.entries.get(slot);
      if (entry === undefined) {
        entry = this.create(slot);
        this.entries.set(slot, entry);
      }
    }
    return entry;
  }

  values(): IterableIterator<V> {
    return this.entries.values();
  }
}
