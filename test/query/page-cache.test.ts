// The page cache answers only for the generation a body was computed at, and stays bounded.
import { describe, expect, test } from "bun:test";
import { PageCache } from "../../src/query/page-cache.ts";

describe("PageCache", () => {
  test("a body is served only at the generation it was kept for", () => {
    const cache = new PageCache();
    cache.set("fields=id", 7, '{"data":[]}');
    expect(cache.get("fields=id", 7)).toBe('{"data":[]}');
    expect(cache.get("fields=id", 8)).toBeUndefined();
    expect(cache.get("fields=id&page=2", 7)).toBeUndefined();
    cache.set("fields=id", 8, '{"data":[1]}');
    expect(cache.get("fields=id", 7)).toBeUndefined();
    expect(cache.get("fields=id", 8)).toBe('{"data":[1]}');
  });

  test("bodies over 256 KiB are not kept", () => {
    const cache = new PageCache();
    cache.set("big", 1, "x".repeat(256 * 1024 + 1));
    expect(cache.get("big", 1)).toBeUndefined();
  });

  test("at most 16 M characters: the oldest entries go first", () => {
    const cache = new PageCache();
    const body = "y".repeat(200 * 1024);
    for (let i = 0; i < 100; i++) cache.set(`q=${i}`, 1, body); // 100 × 200 KiB ≈ 20 M characters
    expect(cache.get("q=0", 1)).toBeUndefined();
    expect(cache.get("q=99", 1)).toBe(body);
    let kept = 0;
    for (let i = 0; i < 100; i++) if (cache.get(`q=${i}`, 1) !== undefined) kept++;
    expect(kept).toBe(Math.floor((16 * 1024 * 1024) / (body.length + 4)));
  });

  test("at most 2,000 entries", () => {
    const cache = new PageCache();
    for (let i = 0; i < 2_500; i++) cache.set(`q=${i}`, 1, "{}");
    expect(cache.get("q=499", 1)).toBeUndefined();
    expect(cache.get("q=500", 1)).toBe("{}");
  });
});
