// `partner-api export --db FILE --format vrsync|ndjson [--entity properties|leads] [--since ISO]
// [--out FILE] [--json]`: the data on stdout (or FILE), the summary beside it.
import type { Database } from "bun:sqlite";
import { renameSync, rmSync } from "node:fs";
import { type ExportSummary, exportLeads, exportProperties, type Sink } from "../agency/export.ts";
import { exportLine } from "../agency/progress.ts";
import { databaseFileNamed } from "../db/files.ts";
import { NotAPartnerDatabaseError, openExistingDatabase } from "../db/open.ts";
import { parseDateBound } from "../query/params.ts";
import { parseFlags, UsageError } from "./args.ts";

/** Writes are buffered; past this many pending bytes the export waits for the disk or the pipe. */
const HIGH_WATER = 1 << 20;

interface ClosableSink extends Sink {
  end(): Promise<void>;
}

function fileSink(writer: Bun.FileSink): ClosableSink {
  let pending = 0;
  return {
    async write(text) {
      const written = writer.write(text);
      if (typeof written !== "number") await written;
      pending += text.length;
      if (pending >= HIGH_WATER) {
        await writer.flush();
        pending = 0;
      }
    },
    async end() {
      await writer.end();
    },
  };
}

function parseOptions(args: string[]) {
  const { values } = parseFlags(args, {
    db: { type: "string" },
    format: { type: "string" },
    entity: { type: "string" },
    since: { type: "string" },
    out: { type: "string" },
    json: { type: "boolean" },
  });
  if (!values.db) throw new UsageError("--db FILE is required");
  const entity = values.entity ?? "properties";
  if (entity !== "properties" && entity !== "leads")
    throw new UsageError(`--entity must be properties or leads, got "${entity}"`);
  const format = values.format ?? (entity === "leads" ? "ndjson" : undefined);
  if (format === undefined) throw new UsageError("--format vrsync|ndjson is required");
  if (format !== "vrsync" && format !== "ndjson")
    throw new UsageError(`--format must be vrsync or ndjson, got "${format}"`);
  if (entity === "leads" && format !== "ndjson") throw new UsageError("leads are exported as NDJSON only");
  let since: string | null = null;
  if (values.since !== undefined) {
    since = parseDateBound(values.since, "after");
    if (since === null)
      throw new UsageError(`--since must be an ISO 8601 date-time with a zone, got "${values.since}"`);
  }
  // Written over one of the database's own files, an export would replace the database.
  const named = values.out === undefined ? null : databaseFileNamed(values.out, values.db);
  if (named !== null)
    throw new UsageError(`--out ${values.out} is the database's own file ${named}: choose another path`);
  return { db: values.db, entity, format, since, out: values.out ?? null, json: values.json === true } as const;
}

function humanSummary(summary: ExportSummary, out: string | null): string {
  const byId =
    summary.idAsListingId > 0 ? ` (${summary.idAsListingId} without a code, written with their id as ListingID)` : "";
  const skipped =
    summary.skipped > 0 ? `; ${summary.skipped} left out: no ListingID or Title, or text XML cannot carry` : "";
  return `exported ${summary.exported} ${summary.entity} as ${summary.format}${out === null ? "" : ` to ${out}`}${byId}${skipped}\n`;
}

export async function exportCommand(args: string[]): Promise<number> {
  const options = parseOptions(args);
  let db: Database;
  try {
    db = openExistingDatabase(options.db);
  } catch (error) {
    if (error instanceof NotAPartnerDatabaseError) throw new UsageError(error.message);
    throw error;
  }
  // A file is written beside its target and renamed when complete: a reader never sees half an export.
  const tmpPath = options.out === null ? null : `${options.out}.tmp-${process.pid}`;
  const sink = fileSink(tmpPath === null ? Bun.stdout.writer() : Bun.file(tmpPath).writer());
  const onTerminal = process.stderr.isTTY === true;
  const onProgress = onTerminal
    ? (done: number, total: number) => void process.stderr.write(`\r\x1b[2K${exportLine(done, total)}`)
    : undefined;
  let summary: ExportSummary;
  try {
    summary =
      options.entity === "leads"
        ? await exportLeads(db, sink, { since: options.since, onProgress })
        : await exportProperties(db, options.format, sink, { since: options.since, onProgress });
    await sink.end();
    if (tmpPath !== null) renameSync(tmpPath, options.out!);
  } catch (error) {
    // The reader went away (`export … | head`): stop quietly, as Unix tools do.
    if ((error as NodeJS.ErrnoException).code === "EPIPE") return 1;
    throw error;
  } finally {
    db.close(); // read only: no checkpoint to wait for while the server writes
    if (tmpPath !== null) rmSync(tmpPath, { force: true });
    if (onTerminal) process.stderr.write("\r\x1b[2K");
  }
  // With the data on stdout, the summary goes to stderr, and only when someone is there to read it.
  const text = options.json ? JSON.stringify(summary) + "\n" : humanSummary(summary, options.out);
  if (options.out !== null) process.stdout.write(text);
  else if (options.json || onTerminal) process.stderr.write(text);
  return 0;
}
