// Scenarios run on their own (webhooks, feed-run) keep a section of bench/RESULTS.md between two
// markers: a run replaces its own section and leaves the rest of the file as the last full run wrote it.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "./product.ts";

/** Replaces the text from `start` to `end` (markers included; `section` carries them) in RESULTS.md, or appends it. */
export function writeMarkedSection(start: string, end: string, section: string): void {
  const file = join(ROOT, "bench/RESULTS.md");
  const text = existsSync(file) ? readFileSync(file, "utf8") : "";
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  const next =
    from !== -1 && to > from
      ? text.slice(0, from) + section + text.slice(to + end.length)
      : `${text.trimEnd()}\n\n${section}\n`;
  writeFileSync(file, next);
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
