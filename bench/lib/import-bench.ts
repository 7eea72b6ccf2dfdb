// The import scenario: the realistic CRM feed (bench/lib/crm-feed.ts, 50,000 listings with 28
// photos each) imported by the product into a new database, then again unchanged, each run under
// `/usr/bin/time -v` (wall time and peak RSS of the process itself) pinned to one core.
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PHOTOS_PER_LISTING, REALISTIC_LISTINGS, writeCrmFeed } from "./crm-feed.ts";

export interface ImportRun {
  label: string;
  seconds: number;
  peakRssMiB: number;
  exitCode: number;
  summary: Record<string, unknown>;
}

export interface ImportBenchResult {
  command: string;
  listings: number;
  photos: number;
  feedMiB: number;
  runs: ImportRun[];
  databaseMiB: number;
}

/** The issue's targets: first import < 40 s and < 512 MiB; re-import unchanged < 25 s. */
export const IMPORT_TARGETS = { firstSeconds: 40, firstRssMiB: 512, againSeconds: 25 } as const;

/** The feed file for `listings` listings (codes after `codePrefix`), generated once into `datasets`. */
export async function ensureCrmFeed(
  datasets: string,
  listings: number,
  log: (line: string) => void,
  codePrefix = "",
): Promise<string> {
  mkdirSync(datasets, { recursive: true });
  const feed = join(datasets, `crm-feed-${codePrefix}${listings}x${PHOTOS_PER_LISTING}.xml`);
  if (!existsSync(feed)) {
    const started = performance.now();
    await writeCrmFeed(`${feed}.tmp`, listings, codePrefix);
    Bun.spawnSync(["mv", `${feed}.tmp`, feed]);
    log(
      `generated ${feed}: ${listings.toLocaleString("en-US")} listings, ${(statSync(feed).size / 1_048_576).toFixed(0)} MiB in ${((performance.now() - started) / 1000).toFixed(0)} s`,
    );
  }
  return feed;
}

/** "Elapsed (wall clock) time (h:mm:ss or m:ss): 0:31.42" → seconds. */
function wallSeconds(report: string): number {
  const clock = /Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): ([\d:.]+)/.exec(report)?.[1] ?? "";
  return clock.split(":").reduce((total, part) => total * 60 + Number(part), 0);
}

function peakRssMiB(report: string): number {
  return Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(report)?.[1] ?? NaN) / 1024;
}

async function timedImport(
  command: string[],
  db: string,
  feed: string,
  core: number,
  label: string,
): Promise<ImportRun> {
  // The report goes to a file: read through a pipe, it was sometimes cut short.
  const report = `${db}.time.txt`;
  const child = Bun.spawn(
    [
      "/usr/bin/time",
      "-v",
      "-o",
      report,
      "taskset",
      "-c",
      String(core),
      ...command,
      "import",
      "--db",
      db,
      feed,
      "--json",
    ],
    {
      stdout: "pipe",
      stderr: "pipe",
    },
  );
  const [stdout, stderr] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text()]);
  const exitCode = await child.exited;
  const timing = await Bun.file(report).text();
  if (exitCode !== 0)
    throw new Error(`import ${label} failed (exit ${exitCode}):\n${stderr}\n${timing}\n${stdout.slice(0, 2000)}`);
  const {
    rejections: _r,
    warningList: _w,
    ...summary
  } = JSON.parse(stdout.trim().split("\n").pop() || "{}") as Record<string, unknown>;
  return { label, seconds: wallSeconds(timing), peakRssMiB: peakRssMiB(timing), exitCode, summary };
}

/**
 * Imports the feed into a fresh database, then again unchanged. `command` runs the product
 * (the compiled binary, or `bun src/main.ts`); `taskset` keeps it on one core.
 */
export async function runImportBench(options: {
  command: string[];
  datasets: string;
  listings?: number;
  core: number;
  log: (line: string) => void;
}): Promise<ImportBenchResult> {
  const listings = options.listings ?? REALISTIC_LISTINGS;
  const feed = await ensureCrmFeed(options.datasets, listings, options.log);
  const dir = mkdtempSync(join(tmpdir(), "partner-api-import-bench-"));
  const db = join(dir, "agency.sqlite");
  const command = `/usr/bin/time -v -o <report> taskset -c ${options.core} ${options.command.join(" ")} import --db <new file> ${feed} --json`;
  options.log(`import: ${command}`);
  try {
    const runs: ImportRun[] = [];
    for (const label of ["into a new database", "again, unchanged"]) {
      const run = await timedImport(options.command, db, feed, options.core, label);
      options.log(
        `import ${label}: ${run.seconds.toFixed(1)} s, peak RSS ${run.peakRssMiB.toFixed(0)} MiB, exit ${run.exitCode}, ${JSON.stringify(run.summary)}`,
      );
      runs.push(run);
    }
    return {
      command,
      listings,
      photos: listings * PHOTOS_PER_LISTING,
      feedMiB: statSync(feed).size / 1_048_576,
      runs,
      databaseMiB: statSync(db).size / 1_048_576,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The scenario's section of RESULTS.md, with the targets' verdicts. */
export function importSection(result: ImportBenchResult): string {
  const [first, again] = result.runs;
  const verdict = (ok: boolean) => (ok ? "**met**" : "**missed**");
  const row = (run: ImportRun | undefined, limitS: number, limitMiB: number | null) =>
    run === undefined
      ? "| – | – | – | – |"
      : `| ${run.label} | ${run.seconds.toFixed(1)} s (< ${limitS} s: ${verdict(run.seconds < limitS)}) | ${run.peakRssMiB.toFixed(0)} MiB${limitMiB === null ? "" : ` (< ${limitMiB} MiB: ${verdict(run.peakRssMiB < limitMiB)})`} | \`${JSON.stringify(run.summary)}\` |`;
  return [
    `## Import: a realistic CRM feed (${result.listings.toLocaleString("en-US")} listings, ${result.photos.toLocaleString("en-US")} photos, ${result.feedMiB.toFixed(0)} MiB)`,
    "",
    `\`${result.command}\`, the product pinned to one core; the database ends at ${result.databaseMiB.toFixed(0)} MiB.`,
    "",
    "| run | wall time | peak RSS | summary |",
    "|---|---|---|---|",
    row(first, IMPORT_TARGETS.firstSeconds, IMPORT_TARGETS.firstRssMiB),
    row(again, IMPORT_TARGETS.againSeconds, null),
  ].join("\n");
}
