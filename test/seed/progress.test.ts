// The seed's terminal progress line: silent when stderr is not a terminal, one redraw per whole percent when it is.
import { describe, expect, test } from "bun:test";
import { terminalProgress } from "../../src/seed/progress.ts";

describe("terminal progress", () => {
  test("is off when stderr is not a terminal", () => {
    expect(terminalProgress("seed", false)).toBeUndefined();
  });

  test("redraws one line per whole percent and ends it at 100 %", () => {
    const out: string[] = [];
    const report = terminalProgress("seed", true, (text) => out.push(text))!;
    report(10, 1000);
    report(11, 1000); // still 1 %: no redraw
    report(500, 1000);
    report(1000, 1000);
    expect(out).toEqual([
      "\rseed: 1% (10/1,000 records)",
      "\rseed: 50% (500/1,000 records)",
      "\rseed: 100% (1,000/1,000 records)",
      "\n",
    ]);
  });
});
