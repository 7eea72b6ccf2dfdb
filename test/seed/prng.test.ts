// The seeded PRNG and its draws: reproducible, separated by stream, in range, and UUIDs of the right shape and order.
import { describe, expect, test } from "bun:test";
import { isoInstant, Prng, weightedItems, weightedKeys } from "../../src/seed/prng.ts";

const draws = (rng: Prng, n: number) => Array.from({ length: n }, () => rng.next());
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("reproducibility", () => {
  test("the same seed and stream give the same sequence", () => {
    expect(draws(new Prng(42, 1), 100)).toEqual(draws(new Prng(42, 1), 100));
  });

  test("another seed or another stream gives another sequence", () => {
    expect(draws(new Prng(43, 1), 10)).not.toEqual(draws(new Prng(42, 1), 10));
    expect(draws(new Prng(42, 2), 10)).not.toEqual(draws(new Prng(42, 1), 10));
  });

  test("seeds beyond 32 bits still differ", () => {
    expect(draws(new Prng(2 ** 40), 10)).not.toEqual(draws(new Prng(0), 10));
  });

  test("a seed that is not a safe integer is refused", () => {
    expect(() => new Prng(1.5)).toThrow(RangeError);
  });

  test("a known seed keeps its known first values (the data of every sandbox depends on it)", () => {
    expect(draws(new Prng(42, 0), 3)).toEqual([1028872839, 2516511472, 400437680]);
  });
});

describe("draws", () => {
  test("int is inclusive at both ends and stays in range", () => {
    const rng = new Prng(1);
    const seen = new Set<number>();
    for (let i = 0; i < 10_000; i++) {
      const x = rng.int(3, 7);
      expect(x >= 3 && x <= 7 && Number.isInteger(x)).toBe(true);
      seen.add(x);
    }
    expect([...seen].sort()).toEqual([3, 4, 5, 6, 7]);
  });

  test("float is in [0, 1) and roughly uniform", () => {
    const rng = new Prng(2);
    let sum = 0;
    for (let i = 0; i < 10_000; i++) {
      const x = rng.float();
      expect(x >= 0 && x < 1).toBe(true);
      sum += x;
    }
    expect(Math.abs(sum / 10_000 - 0.5)).toBeLessThan(0.02);
  });

  test("weighted choices follow their weights", () => {
    const rng = new Prng(3);
    const pick = weightedKeys({ a: 70, b: 20, c: 10 });
    const counts = { a: 0, b: 0, c: 0 };
    for (let i = 0; i < 20_000; i++) counts[pick(rng)]++;
    expect(counts.a / 20_000).toBeCloseTo(0.7, 1);
    expect(counts.b / 20_000).toBeCloseTo(0.2, 1);
    expect(counts.c / 20_000).toBeCloseTo(0.1, 1);
    expect(weightedItems(["only"], () => 1)(rng)).toBe("only");
  });

  test("instants are whole milliseconds, stored in toISOString form", () => {
    const rng = new Prng(4);
    const ms = rng.instantBetween(Date.parse("2024-01-01T00:00:00Z"), Date.parse("2024-01-02T00:00:00Z"));
    expect(Number.isInteger(ms)).toBe(true);
    expect(isoInstant(ms)).toMatch(/^2024-01-01T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });
});

describe("uuids", () => {
  test("uuid() is a version-4 UUID and does not repeat", () => {
    const rng = new Prng(5);
    const ids = Array.from({ length: 5_000 }, () => rng.uuid());
    for (const id of ids) expect(id).toMatch(UUID_V4);
    expect(new Set(ids).size).toBe(ids.length);
  });

  test("ascendingUuid() is a version-4 UUID that sorts in index order", () => {
    for (const count of [1, 2, 7, 1000, 250_000]) {
      const rng = new Prng(count);
      let previous = "";
      for (let index = 0; index < Math.min(count, 5_000); index++) {
        const id = rng.ascendingUuid(index, count);
        expect(id).toMatch(UUID_V4);
        expect(id > previous).toBe(true);
        previous = id;
      }
    }
  });

  test("ascending ids still spread over the whole range", () => {
    // Item i of 10 draws its first 32 bits from [i/10, (i+1)/10) of the range.
    const rng = new Prng(6);
    expect(rng.ascendingUuid(0, 10)[0]).toMatch(/[01]/);
    expect(rng.ascendingUuid(9, 10)[0]).toMatch(/[ef]/);
  });
});
