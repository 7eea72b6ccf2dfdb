// The control database's size after a million requests (docs/operators/console.md, "What the
// agency sees"): the compiled sandbox, whose control database records every request's figures
// and keeps the last `usage.requestLogRows` of them (200,000 by default), is sent plain pages by
// wrk until a million have been answered; then its control file and WAL are measured, and the
// request log's rows counted. The file must stay bounded by the log's size, not grow with the
// requests.
//
//   bun bench/request-log-size.ts [--requests 1000000]
//
// Prints its Markdown section and records it for bench/RESULTS.md (bench/results/*-request-log-size.md).
import { Database } from "bun:sqlite";
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { freePort, launch } from "./harness/launch.ts";
import { issueToken } from "./lib/api.ts";
import { BINARY, DATASET_1K, ensureBinary, seedCommand } from "./lib/product.ts";
import { recordSection } from "./lib/sections.ts";
import { runWrk } from "./lib/wrk.ts";

const { values } = parseArgs({ options: { requests: { type: "string", default: "1000000" } } });
const WANTED = Number(values.requests);
const SERVER_CORE = 0;
const LOAD_CORE = 1;

const log = (line: string) => console.error(line);
const version = ensureBinary(log);
const dir = mkdtempSync(join(tmpdir(), "pa-request-log-"));
const db = join(dir, "agency.sqlite");
const control = join(dir, "sandbox-control.sqlite");
const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(1);
const sizeOf = (path: string) => (existsSync(path) ? statSync(path).size : 0);

try {
  const seeded = Bun.spawnSync(seedCommand(DATASET_1K, db), { stdout: "ignore", stderr: "pipe" });
  if (seeded.exitCode !== 0) throw new Error(seeded.stderr.toString());
  const port = freePort();
  const server = await launch({
    name: "sandbox",
    argv: [BINARY, "sandbox", "--db", db, "--port", String(port), "--rate-limit", "1000000000"],
    port,
    core: SERVER_CORE,
    stderrFile: join(dir, "server.stderr.log"),
  });
  const token = await issueToken(server.base);
  let requests = 0;
  let non2xx = 0;
  const rounds: string[] = [];
  while (requests < WANTED) {
    const run = await runWrk({
      url: `${server.base}/v1/properties?fields=id,title&limit=5`,
      script: "bearer.lua",
      connections: 50,
      durationS: 20,
      core: LOAD_CORE,
      env: { BENCH_TOKEN: token },
    });
    requests += run.requests;
    non2xx += run.non2xx;
    rounds.push(`${Math.round(run.rps)}`);
    log(`${requests.toLocaleString("en")} requests so far`);
  }
  // The recorder writes its batches twice a second: a moment for the last one, then a clean stop.
  await Bun.sleep(2_000);
  await server.stop();
  const [fileBytes, walBytes] = [sizeOf(control), sizeOf(`${control}-wal`)];
  const file = new Database(control, { readonly: true });
  const count = (sql: string) => (file.query(sql).get() as { n: number }).n;
  const logRows = count("SELECT coalesce(sum(n), 0) AS n FROM request_log");
  const pages = count("SELECT page_count AS n FROM pragma_page_count()");
  const free = count("SELECT freelist_count AS n FROM pragma_freelist_count()");
  const pageSize = count("SELECT page_size AS n FROM pragma_page_size()");
  file.close();

  const lines = [
    "## The control database after a million requests (`bench/request-log-size.ts`)",
    "",
    `- Date: ${new Date().toISOString()}; ${version}; ${cpus().length} cores (${cpus()[0]?.model ?? "?"}), load average at end ${loadavg()
      .map((n) => n.toFixed(2))
      .join(" ")}.`,
    `- The compiled sandbox (usage recorded, the request log's default of 200,000 rows) on core ${SERVER_CORE}; wrk on core ${LOAD_CORE}, 50 connections, plain pages (\`/v1/properties?fields=id,title&limit=5\`) in runs of 20 s until ${WANTED.toLocaleString("en")} had been answered (req/s per run: ${rounds.join(", ")}).`,
    "",
    "| measure | value |",
    "|---|---|",
    `| requests answered (non-2xx) | ${requests.toLocaleString("en")} (${non2xx}) |`,
    `| request log rows kept | ${logRows.toLocaleString("en")} |`,
    `| control database file after the server stopped | ${mib(fileBytes)} MiB (${pages.toLocaleString("en")} pages of ${pageSize} bytes, ${free.toLocaleString("en")} of them free) |`,
    `| its WAL | ${mib(walBytes)} MiB |`,
    `| file per kept row | ${(fileBytes / Math.max(1, logRows)).toFixed(0)} bytes |`,
    "",
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
  recordSection("request-log-size", lines.join("\n"));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
