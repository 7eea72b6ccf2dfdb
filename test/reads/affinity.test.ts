// Which reader thread a search prefers (src/reads/affinity.ts): the same words, however typed,
// name the same thread, and each one-letter prefix is warmed by exactly the thread it names.
import { describe, expect, test } from "bun:test";
import { preferredPlace, warmPrefixesOf } from "../../src/reads/affinity.ts";

describe("the thread a search's words prefer", () => {
  test("the same words in any case, accents or spacing name the same thread; no words, none", () => {
    const place = preferredPlace("q=S%C3%A3o%20Paulo&city=Recife", 3);
    expect(place).not.toBeNull();
    for (const q of ["sao paulo", "SÃO  PAULO", " São-Paulo "])
      expect(preferredPlace(`q=${encodeURIComponent(q)}`, 3)).toBe(place);
    expect(preferredPlace("city=Recife", 3)).toBeNull();
    expect(preferredPlace("q=%20%20", 3)).toBeNull();
    expect(preferredPlace("q=casa", 1)).toBeNull();
  });

  test("the one-letter prefixes are shared out: each warmed by the one thread that is sent it", () => {
    const places = 3;
    const warmed = Array.from({ length: places }, (_, place) => warmPrefixesOf(place, places));
    const all = warmed.flat();
    expect(all.length).toBe(36);
    expect(new Set(all).size).toBe(36);
    for (let place = 0; place < places; place++) {
      expect(warmed[place]!.length).toBeGreaterThan(0);
      for (const letter of warmed[place]!) expect(preferredPlace(`q=${letter.toUpperCase()}`, places)).toBe(place);
    }
  });
});
