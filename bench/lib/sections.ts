// bench/RESULTS.md is never edited: it is rendered from the recorded runs in bench/results/, one
// file per section (`NN-<id>.md`, in the order of NN): the last full run's report, each scenario
// that keeps a section of its own (webhooks, feed-run…), and the notes written beside them. A run
// replaces its own file and renders the page again; test/bench/results.test.ts fails when the
// page and the files disagree (an edit by hand).
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "./product.ts";

export const RESULTS_DIR = join(ROOT, "bench/results");
export const RESULTS_FILE = join(ROOT, "bench/RESULTS.md");

/** The first line of the page, so nobody mistakes it for a file to edit. */
export const RESULTS_HEADER =
  "<!-- Rendered from bench/results/*.md by the bench's runner (bench/lib/sections.ts): do not edit; `bun bench/render-results.ts` renders it again. -->";

/** A recorded section's file name: two digits giving its place, then its id. */
const FILE = /^(\d\d)-([a-z0-9-]+)\.md$/;

/** The recorded sections, in page order. */
export function recordedSections(dir = RESULTS_DIR): { id: string; file: string }[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => FILE.test(name))
    .sort()
    .map((name) => ({ id: FILE.exec(name)![2]!, file: join(dir, name) }));
}

/** The page: the header, then every recorded section, a blank line between them. */
export function renderResults(dir = RESULTS_DIR): string {
  const sections = recordedSections(dir).map(({ file }) => readFileSync(file, "utf8").trim());
  return `${[RESULTS_HEADER, ...sections].join("\n\n")}\n`;
}

/** Writes bench/RESULTS.md from the recorded sections. */
export function writeResults(dir = RESULTS_DIR, file = RESULTS_FILE): void {
  writeFileSync(file, renderResults(dir));
}

/**
 * Records what a run wrote as section `id` (its own file kept, or a new one placed last) and
 * renders the page again.
 */
export function recordSection(id: string, text: string, dir = RESULTS_DIR, file = RESULTS_FILE): void {
  if (!/^[a-z0-9-]+$/.test(id)) throw new Error(`a section id is lower-case words and digits, got ${id}`);
  const sections = recordedSections(dir);
  const existing = sections.find((s) => s.id === id)?.file;
  const last = Math.max(0, ...sections.map((s) => Number(FILE.exec(s.file.split("/").pop()!)![1])));
  const path = existing ?? join(dir, `${String(Math.min(99, last + 1)).padStart(2, "0")}-${id}.md`);
  writeFileSync(path, `${text.trim()}\n`);
  writeResults(dir, file);
}

/** The id in a section's start marker: `<!-- webhooks:start -->` is webhooks. */
export function markerId(start: string): string {
  const id = /^<!-- ([a-z0-9-]+):start -->$/.exec(start)?.[1];
  if (id === undefined) throw new Error(`not a section's start marker: ${start}`);
  return id;
}

/** Records a scenario's section (its markers included in `section`) and renders the page again. */
export function writeMarkedSection(start: string, _end: string, section: string): void {
  recordSection(markerId(start), section);
}

/** A section between its markers: its lines, then the commands that produced it, indented as code. */
export function markedSection(
  start: string,
  end: string,
  lines: readonly string[],
  commands: readonly string[],
): string {
  return [start, ...lines, "", "Commands:", "", ...commands.map((c) => `    ${c}`), end].join("\n");
}
