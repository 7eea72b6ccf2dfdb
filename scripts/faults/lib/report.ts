// Figures of a run: printed as they come, and the final summary kept as JSON beside the scripts
// (scripts/faults/results/<name>.json) so RESULTS.md can quote a real run.
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const RESULTS = join(import.meta.dir, "..", "results");

export function log(message: string, figures?: Record<string, unknown>): void {
  const stamp = new Date().toISOString().slice(11, 19);
  console.log(`[${stamp}] ${message}${figures ? ` ${JSON.stringify(figures)}` : ""}`);
}

/**
 * Prints the summary, writes it to results/<name>.json, and sets the exit code from `ok`. A
 * passing run removes its temporary folder; a failing one keeps it for inspection.
 */
export function finish(name: string, ok: boolean, summary: Record<string, unknown>, dir?: string): void {
  const record = { script: name, ok, finishedAt: new Date().toISOString(), ...summary };
  mkdirSync(RESULTS, { recursive: true });
  writeFileSync(join(RESULTS, `${name}.json`), JSON.stringify(record, null, 2) + "\n");
  console.log(JSON.stringify(record, null, 2));
  if (ok && dir !== undefined) rmSync(dir, { recursive: true, force: true });
  console.log(ok ? `${name}: PASS` : `${name}: FAIL${dir ? ` (files kept in ${dir})` : ""}`);
  process.exitCode = ok ? 0 : 1;
}
