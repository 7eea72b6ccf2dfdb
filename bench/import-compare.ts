// `bun bench/import-compare.ts <other binary> [rounds]`: the `import` scenario (50,000 listings
// with 28 photos each, into a new database and again unchanged) run alternately by this build
// and another one (e.g. the commit before a schema change), so the ratio of their times comes
// from one session of the machine. Prints a Markdown table for bench/RESULTS.md.
import { join } from "node:path";
import { type ImportBenchResult, runImportBench } from "./lib/import-bench.ts";
import { BINARY, ensureBinary, ROOT } from "./lib/product.ts";
import { spread } from "./lib/stats.ts";

const other = process.argv[2];
if (!other) throw new Error("usage: bun bench/import-compare.ts <other binary> [rounds]");
const rounds = Number(process.argv[3] ?? 2);
ensureBinary((line) => console.error(line));
const results: Record<"this" | "other", ImportBenchResult[]> = { this: [], other: [] };
for (let round = 0; round < rounds; round++) {
  // Alternate which goes first, so a slow patch of the machine hits both.
  const order = round % 2 === 0 ? (["this", "other"] as const) : (["other", "this"] as const);
  for (const who of order) {
    const command = [who === "this" ? BINARY : other];
    results[who].push(
      await runImportBench({
        command,
        datasets: join(ROOT, "bench/datasets"),
        core: 0,
        log: (line) => console.error(`[${who} r${round + 1}] ${line}`),
      }),
    );
  }
}
const figure = (who: "this" | "other", run: number, key: "seconds" | "peakRssMiB") =>
  spread(results[who].map((r) => r.runs[run]![key]));
console.log(
  "| import | this build s (min–max) | other build s (min–max) | this / other | this peak RSS MiB | other peak RSS MiB |",
);
console.log("|---|---|---|---|---|---|");
for (const [run, label] of [
  [0, "into a new database"],
  [1, "again, unchanged"],
] as const) {
  const a = figure("this", run, "seconds");
  const b = figure("other", run, "seconds");
  const f = (s: { median: number; min: number; max: number }) =>
    `${s.median.toFixed(1)} (${s.min.toFixed(1)}–${s.max.toFixed(1)})`;
  console.log(
    `| ${label} | ${f(a)} | ${f(b)} | ${(a.median / b.median).toFixed(2)}× | ${figure("this", run, "peakRssMiB").median.toFixed(0)} | ${figure("other", run, "peakRssMiB").median.toFixed(0)} |`,
  );
}
