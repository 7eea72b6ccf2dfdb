// bench/RESULTS.md is rendered from the recorded runs in bench/results/, never edited: the page
// must be exactly what its recorded sections render, and a run replaces only its own section.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  markerId,
  RESULTS_FILE,
  RESULTS_HEADER,
  recordedSections,
  recordSection,
  renderResults,
} from "../../bench/lib/sections.ts";

const dir = mkdtempSync(join(tmpdir(), "pa-bench-results-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("bench/RESULTS.md", () => {
  test("is exactly what bench/results/ renders (edit a recorded section, then `bun bench/render-results.ts`)", () => {
    expect(readFileSync(RESULTS_FILE, "utf8")).toBe(renderResults());
  });

  test("keeps the figures recorded so far: the full run first, every scenario's section, the notes", () => {
    const ids = recordedSections().map((s) => s.id);
    expect(ids[0]).toBe("full-run");
    for (const id of ["webhooks", "feed-run", "portal-feed", "inbound", "own-leads", "status-lists", "search"])
      expect(ids).toContain(id);
  });
});

describe("recording a run", () => {
  const results = join(dir, "results");
  const page = join(dir, "RESULTS.md");

  test("a section replaces its own file only, a new one goes last, and the page is rendered again", () => {
    rmSync(results, { recursive: true, force: true });
    mkdirSync(results);
    writeFileSync(join(results, "10-full-run.md"), "# Results\n");
    writeFileSync(join(results, "20-webhooks.md"), "<!-- webhooks:start -->\nold\n<!-- webhooks:end -->\n");
    writeFileSync(join(results, "30-notes.md"), "notes by hand\n");
    recordSection("webhooks", "<!-- webhooks:start -->\nnew\n<!-- webhooks:end -->", results, page);
    recordSection("inbound", "<!-- inbound:start -->\nfirst\n<!-- inbound:end -->", results, page);
    expect(readdirSync(results).sort()).toEqual(["10-full-run.md", "20-webhooks.md", "30-notes.md", "31-inbound.md"]);
    expect(readFileSync(page, "utf8")).toBe(
      [
        RESULTS_HEADER,
        "# Results",
        "<!-- webhooks:start -->\nnew\n<!-- webhooks:end -->",
        "notes by hand",
        "<!-- inbound:start -->\nfirst\n<!-- inbound:end -->",
      ].join("\n\n") + "\n",
    );
  });

  test("a section is named by its start marker, and a bad name is refused", () => {
    expect(markerId("<!-- feed-run-one-core:start -->")).toBe("feed-run-one-core");
    expect(() => markerId("<!-- search -->")).toThrow();
    expect(() => recordSection("../escape", "x", results, page)).toThrow();
  });
});
