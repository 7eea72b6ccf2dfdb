// Durations as the config writes them ("30s", "15m", "1h30m").
import { describe, expect, test } from "bun:test";
import { formatDuration, parseDuration } from "../../src/config/duration.ts";

describe("durations", () => {
  test("units add up, and are written back in their shortest form", () => {
    expect(parseDuration("30s")).toBe(30_000);
    expect(parseDuration("1h30m")).toBe(5_400_000);
    expect(parseDuration("1d")).toBe(86_400_000);
    expect(parseDuration("250ms")).toBe(250);
    expect(formatDuration(5_400_000)).toBe("1h30m");
    for (const bad of ["", "15", "m", "1.5m", "-1m", "15 m", "1w"]) expect(parseDuration(bad)).toBeNull();
  });
});
