// The rule behind every test that needs an outside program: skipped with a notice where the
// program is absent, a failure where CI (REQUIRE_TOOLS) demands it.
import { afterEach, describe, expect, test } from "bun:test";
import { findTool, toolForTests, toolRequired } from "./tools.ts";

const saved = process.env.REQUIRE_TOOLS;
afterEach(() => {
  if (saved === undefined) delete process.env.REQUIRE_TOOLS;
  else process.env.REQUIRE_TOOLS = saved;
});

describe("outside programs for tests", () => {
  test("a program on PATH or at an absolute path is found", () => {
    expect(findTool(["/nonexistent/tool", "sh"])).toBe(Bun.which("sh"));
    expect(findTool(["/bin/sh"])).toBe("/bin/sh");
    expect(findTool(["/nonexistent/tool", "no-such-program-here"])).toBeNull();
  });

  test("an absent program skips its tests when CI does not require it, saying so on stderr", () => {
    delete process.env.REQUIRE_TOOLS;
    // Caught here, so the suite's own output shows only the notices of real skips.
    const written: string[] = [];
    const write = process.stderr.write;
    process.stderr.write = ((text: string) => written.push(String(text)) > 0) as typeof process.stderr.write;
    try {
      expect(toolForTests("no-such-program", ["no-such-program-here"], "install it")).toBeNull();
    } finally {
      process.stderr.write = write;
    }
    expect(written.join("")).toContain("*** SKIPPED: the tests that need no-such-program");
  });

  test("an absent program fails when REQUIRE_TOOLS names it, or says all", () => {
    process.env.REQUIRE_TOOLS = "chromium, no-such-program";
    expect(toolRequired("no-such-program")).toBe(true);
    expect(toolRequired("k6")).toBe(false);
    expect(() => toolForTests("no-such-program", ["no-such-program-here"], "install it")).toThrow(/REQUIRE_TOOLS/);
    process.env.REQUIRE_TOOLS = "all";
    expect(() => toolForTests("anything", ["no-such-program-here"], "install it")).toThrow(/REQUIRE_TOOLS/);
  });
});
