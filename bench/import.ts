// Import benchmark on its own: `bun bench/import.ts [--listings N] [--bin dist/partner-api]`
// generates the realistic CRM feed (bench/lib/crm-feed.ts; default 50,000 listings with 28
// photos each, about 290 MB) into bench/datasets/ (gitignored), then times the real CLI (`bun
// src/main.ts`, or the compiled binary) importing it into a new database and again unchanged,
// under /usr/bin/time -v. `bun run bench --only import` runs the same scenario with the binary.
import { join } from "node:path";
import { parseArgs } from "node:util";
import { importSection, runImportBench } from "./lib/import-bench.ts";

const { values } = parseArgs({
  options: { listings: { type: "string" }, bin: { type: "string" }, core: { type: "string" } },
});
const result = await runImportBench({
  command: values.bin === undefined ? [process.execPath, "src/main.ts"] : [values.bin],
  datasets: join(import.meta.dir, "datasets"),
  listings: values.listings === undefined ? undefined : Number(values.listings),
  core: Number(values.core ?? 0),
  log: (line) => console.log(line),
});
console.log(`\n${importSection(result)}`);
