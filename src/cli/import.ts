// `partner-api import --db FILE FEED [--partial] [--dry-run] [--strict] [--json] [--timeout D]
// [--max-bytes N]`: exit 0 (warnings alone too), or 1 when any listing was rejected or the feed
// could not be read (docs/reference/behaviour-extensions.md §11, §16).
import { ConcurrentChangeError } from "../agency/apply.ts";
import { type ImportProgress, type ImportSummary, importFeed, type Rejection } from "../agency/import.ts";
import { readingLine, writingLine } from "../agency/progress.ts";
import { parseDuration } from "../config/duration.ts";
import { databaseFileNamed } from "../db/files.ts";
import { NotAPartnerDatabaseError } from "../db/open.ts";
import { DEFAULT_FETCH_LIMITS, type FetchLimits } from "../formats/fetch.ts";
import { FeedError } from "../formats/listing.ts";
import type { FeedWarning } from "../formats/warnings.ts";
import { assertWritable, explainDatabaseError } from "../writable.ts";
import { integerFlag, parseFlags, UsageError } from "./args.ts";

const SHOWN = 50;

function warningLine({ kind, code, line, element, value, message }: FeedWarning): string {
  const where = [code ?? "(feed)", line === null ? null : `line ${line}`, element]
    .filter((part) => part !== null)
    .join(" ");
  return `  warning ${kind} ${where}: ${message}${value === null ? "" : ` (got "${value}")`}`;
}

/** Up to SHOWN lines of a list, then how many more there are. */
function shown<T>(items: readonly T[], line: (item: T) => string): string[] {
  const more = items.length - SHOWN;
  return [...items.slice(0, SHOWN).map(line), ...(more > 0 ? [`  … and ${more} more (--json lists them all)`] : [])];
}

/** The summary's counts on one line: what `import` prints first, and `feeds run` and `feeds status` for each run. */
export function countsLine(
  summary: Pick<ImportSummary, "created" | "updated" | "unchanged" | "unpublished" | "rejected" | "warnings">,
): string {
  const kinds = Object.entries(summary.warnings);
  const byKind = kinds.map(([kind, n]) => `${kind} ${n}`).join(", ");
  const warnings = kinds.reduce((sum, [, n]) => sum + (n ?? 0), 0);
  return (
    `${summary.created} created, ${summary.updated} updated, ${summary.unchanged} unchanged, ` +
    `${summary.unpublished} unpublished, ${summary.rejected} rejected, ${warnings} warnings` +
    (byKind === "" ? "" : ` (${byKind})`)
  );
}

/** A rejection as the summaries list it. */
export function rejectionLine({ code, reason }: Rejection): string {
  return `  rejected ${code ?? "(no code)"}: ${reason}`;
}

function humanSummary(summary: ImportSummary, dryRun: boolean): string {
  const lines = [
    `${dryRun ? "dry run (nothing written): would have " : ""}${countsLine(summary)}`,
    ...shown(summary.rejections, rejectionLine),
    ...shown(summary.warningList, warningLine),
  ];
  return lines.join("\n") + "\n";
}

function terminalProgress(): ((progress: ImportProgress) => void) | undefined {
  if (process.stderr.isTTY !== true) return undefined;
  return (progress) => {
    const line =
      progress.phase === "reading"
        ? readingLine(progress.listings, progress.bytes)
        : writingLine(progress.listings, progress.total);
    process.stderr.write(`\r\x1b[2K${line}`);
  };
}

/** --timeout and --max-bytes: the bounds of an http(s) feed's download, over the defaults. */
function fetchLimits(timeout: string | undefined, maxBytes: string | undefined): FetchLimits {
  const timeoutMs = timeout === undefined ? DEFAULT_FETCH_LIMITS.timeoutMs : parseDuration(timeout);
  if (timeoutMs === null || timeoutMs < 1000)
    throw new UsageError(`--timeout must be a duration of at least 1s (30s, 15m, 1h…), got "${timeout}"`);
  const bytes = integerFlag(maxBytes, "max-bytes", 1) ?? DEFAULT_FETCH_LIMITS.maxBytes;
  return { ...DEFAULT_FETCH_LIMITS, timeoutMs, maxBytes: bytes };
}

export async function importCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseFlags(
    args,
    {
      db: { type: "string" },
      partial: { type: "boolean" },
      "dry-run": { type: "boolean" },
      strict: { type: "boolean" },
      json: { type: "boolean" },
      timeout: { type: "string" },
      "max-bytes": { type: "string" },
    },
    true,
  );
  if (!values.db) throw new UsageError("--db FILE is required");
  if (positionals.length !== 1)
    throw new UsageError("give exactly one FEED: a VRSync or NDJSON file path, or an http(s) URL");
  // Reading one of the database's own files as the feed would open it behind SQLite's back.
  const named = databaseFileNamed(positionals[0]!, values.db);
  if (named !== null)
    throw new UsageError(`FEED ${positionals[0]} is the database's own file ${named}: give the feed's path or URL`);
  const dryRun = values["dry-run"] === true;
  const limits = fetchLimits(values.timeout, values["max-bytes"]);
  assertWritable(values.db, "the database", { sqlite: true });
  const onProgress = terminalProgress();
  let summary: ImportSummary;
  try {
    summary = await importFeed(values.db, positionals[0]!, {
      partial: values.partial === true,
      dryRun,
      strict: values.strict === true,
      onProgress,
      limits,
    });
  } catch (error) {
    if (onProgress) process.stderr.write("\r\x1b[2K");
    if (error instanceof NotAPartnerDatabaseError) throw new UsageError(error.message);
    // An existing file SQLite opened read-only refuses only the first write: named here, with the fix.
    if (!(error instanceof FeedError || error instanceof ConcurrentChangeError))
      throw explainDatabaseError(error, values.db);
    // The feed as a whole is unusable: nothing was imported.
    process.stderr.write(`partner-api import: ${error.message}\n`);
    if (values.json) process.stdout.write(JSON.stringify({ error: error.message }) + "\n");
    return 1;
  }
  if (onProgress) process.stderr.write("\r\x1b[2K");
  process.stdout.write(values.json ? JSON.stringify(summary) + "\n" : humanSummary(summary, dryRun));
  return summary.rejected > 0 ? 1 : 0;
}
