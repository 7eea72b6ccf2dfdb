// The seed's side thread (src/seed/side-file.ts): it reports through shared memory, and what
// stops it stops the seed with its reason instead of leaving the main thread waiting.
import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { DEFAULT_AS_OF } from "../../src/seed/generator.ts";
import { awaitSideThread, startSideThread } from "../../src/seed/side-file.ts";
import { tempFolder } from "./helpers.ts";

const timeline = { startMs: Date.parse(DEFAULT_AS_OF) - 730 * 86_400_000, endMs: Date.parse(DEFAULT_AS_OF) };
const options = { properties: 300, leads: 500, seed: 42, asOf: DEFAULT_AS_OF };

describe("the seed's side thread", () => {
  test("writes its file and reports every lead written", () => {
    const folder = tempFolder();
    try {
      const path = folder.path("side.sqlite");
      const side = startSideThread(path, options, timeline);
      const reported: number[] = [];
      try {
        awaitSideThread(side.state, (leads) => reported.push(leads));
      } finally {
        side.stop();
      }
      expect(reported.at(-1)).toBe(options.leads);
      expect(reported).toEqual([...reported].sort((a, b) => a - b));
      expect(existsSync(path)).toBe(true);
    } finally {
      folder.remove();
    }
  });

  test("a failure there is thrown here, with its reason", () => {
    const side = startSideThread("/nonexistent-folder/side.sqlite", options, timeline);
    try {
      expect(() => awaitSideThread(side.state, () => {})).toThrow(/side thread failed: .*nonexistent-folder/);
    } finally {
      side.stop();
    }
  });
});
