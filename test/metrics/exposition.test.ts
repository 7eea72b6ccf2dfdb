import { describe, expect, test } from "bun:test";
import { Exposition, formatValue } from "../../src/metrics/exposition.ts";

describe("Prometheus text exposition", () => {
  test("a family is its HELP and TYPE lines followed by its samples", () => {
    const text = new Exposition()
      .family("jobs_total", "counter", "Jobs done.")
      .sample("jobs_total", [["queue", "a"]], 3)
      .sample("jobs_total", [], 4)
      .toString();
    expect(text).toBe('# HELP jobs_total Jobs done.\n# TYPE jobs_total counter\njobs_total{queue="a"} 3\njobs_total 4\n');
  });

  test("label values escape backslash, double quote and newline", () => {
    const text = new Exposition().family("x", "gauge", "x").sample("x", [["v", 'a\\b"c\nd']], 1).toString();
    expect(text).toContain('x{v="a\\\\b\\"c\\nd"} 1');
  });

  test("HELP text escapes backslash and newline", () => {
    expect(new Exposition().family("x", "gauge", "a\\b\nc").toString()).toStartWith("# HELP x a\\\\b\\nc\n");
  });

  test("infinities and NaN are written the way Prometheus parses them", () => {
    expect(formatValue(Infinity)).toBe("+Inf");
    expect(formatValue(-Infinity)).toBe("-Inf");
    expect(formatValue(NaN)).toBe("NaN");
    expect(formatValue(0.25)).toBe("0.25");
  });

  test("declaring a family twice is refused: it would invalidate the whole scrape", () => {
    const out = new Exposition().family("x", "gauge", "x");
    expect(() => out.family("x", "gauge", "x")).toThrow(/declared twice/);
  });
});
