// A small seeded PRNG (sfc32) and the draws the seed generator needs; nothing here touches Math.random or the clock.

/** One 32-bit step of splitmix32: spreads a small seed over all bits of the sfc32 state. */
function splitmix32(state: number): [next: number, output: number] {
  const next = (state + 0x9e3779b9) | 0;
  let z = next;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
  return [next, (z ^ (z >>> 16)) >>> 0];
}

/** Slices of the 32-bit prefix range stay at least two wide, so float rounding never makes two ids tie. */
const MAX_ASCENDING = 2 ** 31;

/** Four hex digits per 16-bit value: a UUID is then eight lookups (ids are made by the million). */
const HEX4: readonly string[] = Array.from({ length: 0x10000 }, (_, value) => value.toString(16).padStart(4, "0"));

/** Formats four 32-bit words as a UUID, forcing the version (4) and variant (10xx) bits. */
function formatUuid(w0: number, w1: number, w2: number, w3: number): string {
  const versioned = ((w1 & 0x0fff) | 0x4000) >>> 0; // bits 48-51: version 4
  const variant = (((w2 >>> 16) & 0x3fff) | 0x8000) >>> 0; // bits 64-65: variant 10
  return `${HEX4[w0 >>> 16]}${HEX4[w0 & 0xffff]}-${HEX4[w1 >>> 16]}-${HEX4[versioned]}-${HEX4[variant]}-${HEX4[w2 & 0xffff]}${HEX4[w3 >>> 16]}${HEX4[w3 & 0xffff]}`;
}

/**
 * sfc32 (Chris Doty-Humphrey's Small Fast Counter): fast, passes PractRand to 2^40+, and every
 * operation is 32-bit integer arithmetic, so the same seed gives the same stream on every engine.
 */
export class Prng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  /**
   * `seed` may be any safe integer; `stream` separates independent sequences drawn from one
   * seed (properties and leads each get their own, so one count never shifts the other's data).
   */
  constructor(seed: number, stream = 0) {
    if (!Number.isSafeInteger(seed)) throw new RangeError(`seed must be a safe integer, got ${seed}`);
    let state =
      (seed >>> 0) ^ Math.imul(Math.floor(seed / 0x1_0000_0000) >>> 0, 0x27d4eb2d) ^ Math.imul(stream, 0x165667b1);
    const words: number[] = [];
    for (let i = 0; i < 4; i++) {
      const [next, output] = splitmix32(state);
      state = next;
      words.push(output);
    }
    [this.a, this.b, this.c, this.d] = words as [number, number, number, number];
    // The first outputs of a fresh sfc32 are still correlated with the seed; burn them.
    for (let i = 0; i < 12; i++) this.next();
  }

  /** A uniform unsigned 32-bit integer. */
  next(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** A uniform float in [0, 1). */
  float(): number {
    return this.next() / 0x1_0000_0000;
  }

  /** A uniform float in [min, max). */
  between(min: number, max: number): number {
    return min + (max - min) * this.float();
  }

  /** A uniform integer in [min, max], both inclusive. */
  int(min: number, max: number): number {
    return min + Math.floor(this.float() * (max - min + 1));
  }

  /** True with probability p. */
  chance(p: number): boolean {
    return this.float() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError("pick from an empty list");
    return items[Math.floor(this.float() * items.length)]!;
  }

  /** An RFC 9562 version-4 UUID whose random bits come from this stream. */
  uuid(): string {
    return formatUuid(this.next(), this.next(), this.next(), this.next());
  }

  /**
   * A version-4 UUID for item `index` of `count` that sorts after the ids of every lower index:
   * its first 32 bits are drawn inside the index's own slice of the 32-bit range, the rest are
   * random. Rows generated in index order then arrive in key order, so a B-tree keyed on the id
   * only ever grows at its right edge.
   */
  ascendingUuid(index: number, count: number): string {
    if (count > MAX_ASCENDING) throw new RangeError(`at most ${MAX_ASCENDING} ascending ids, asked for ${count}`);
    const sliceStart = Math.ceil((index * 0x1_0000_0000) / count);
    const sliceEnd = Math.ceil(((index + 1) * 0x1_0000_0000) / count);
    const prefix = sliceStart + Math.floor(this.float() * (sliceEnd - sliceStart));
    return formatUuid(prefix, this.next(), this.next(), this.next());
  }

  /** A whole-millisecond instant in [startMs, endMs]. */
  instantBetween(startMs: number, endMs: number): number {
    return this.int(startMs, endMs);
  }
}

/**
 * A weighted choice built once: a cumulative table searched linearly, which beats a binary
 * search for the short lists used here.
 */
export function weightedItems<T>(items: readonly T[], weightOf: (item: T) => number): (rng: Prng) => T {
  if (items.length === 0) throw new RangeError("weighted choice over no items");
  const total = items.reduce((sum, item) => sum + weightOf(item), 0);
  let running = 0;
  const bounds = items.map((item) => (running += weightOf(item)) / total);
  const last = items.length - 1;
  return (rng) => {
    const x = rng.float();
    for (let i = 0; i < last; i++) if (x < bounds[i]!) return items[i]!;
    return items[last]!;
  };
}

/** A weighted choice among the keys of a weight table (keys keep their declaration order). */
export function weightedKeys<K extends string>(weights: Readonly<Partial<Record<K, number>>>): (rng: Prng) => K {
  const keys = Object.keys(weights) as K[];
  return weightedItems(keys, (key) => weights[key] ?? 0);
}

/** An instant as stored everywhere in the schema: `toISOString()` form, milliseconds and Z. */
export function isoInstant(ms: number): string {
  return new Date(ms).toISOString();
}
