// `import`: a feed into an agency database. Phase one reads, validates and compares the whole
// feed into a scratch staging database (no write lock; malformed XML aborts with nothing
// changed); phase two writes the differences (apply.ts): in short chunks that yield the write
// lock into an existing database, in one transaction into a new file. A new database file
// appears only once the import succeeded. Scheduled feed runs (crm-feeds/) go through here too.
import type { Database } from "bun:sqlite";
import { existsSync, linkSync } from "node:fs";
import { removeDatabaseFiles } from "../db/files.ts";
import { closeDatabase, openDatabase, openExistingDatabase } from "../db/open.ts";
import type { FetchLimits } from "../formats/fetch.ts";
import { FeedError, type FeedItem } from "../formats/listing.ts";
import { readNdjson } from "../formats/ndjson/reader.ts";
import { type FeedProgress, type FeedSource, openFeed } from "../formats/source.ts";
import { readVrsync } from "../formats/vrsync/reader.ts";
import { countByKind, type FeedWarning, type WarningKind } from "../formats/warnings.ts";
import { type ApplyCounts, type ApplyOptions, applyStaged } from "./apply.ts";
import { type StagedCopy, Staging } from "./staging.ts";

export interface Rejection {
  code: string | null;
  reason: string;
}

/** The outcome of an import, a plain value (the CLI prints it; scheduled feed runs keep it). */
export interface ImportSummary extends ApplyCounts {
  rejected: number;
  /** Warnings by kind (docs/reference/behaviour-extensions.md §16): values read as null or cleaned, repairs of the document. */
  warnings: Partial<Record<WarningKind, number>>;
  rejections: Rejection[];
  /** Every warning, feed-level ones (code null) first, then by line. */
  warningList: FeedWarning[];
}

export type ImportProgress =
  | { phase: "reading"; listings: number; bytes: FeedProgress }
  | { phase: "writing"; listings: number; total: number };

export interface ImportOptions {
  partial?: boolean;
  dryRun?: boolean;
  /** Refuse a listing on any warning, and the feed on any warning about it as a whole (the old exactness). */
  strict?: boolean;
  now?: () => Date;
  newId?: () => string;
  onProgress?: (progress: ImportProgress) => void;
  /** Bounds of an http(s) feed's download (default DEFAULT_FETCH_LIMITS). */
  limits?: FetchLimits;
  /** See ApplyOptions: the unpublishing guard, the lease check of each chunk, stopping between chunks. */
  maxUnpublishRatio?: number;
  inEachChunk?: ApplyOptions["inEachChunk"];
  signal?: AbortSignal;
  /** Internal: the database is a new file no one else sees, written in one transaction. */
  newFile?: boolean;
}

/** Under --strict, a warning refuses its listing: every warning named in the reason. */
function strictRefusal(line: number, warnings: readonly FeedWarning[]): string {
  return `line ${line}: ${warnings.map((w) => `${w.element}: ${w.message}${w.value === null ? "" : ` (got "${w.value}")`}`).join("; ")}`;
}

function duplicateWarning(code: string, copy: StagedCopy, message: string): FeedWarning {
  return { kind: "DUPLICATE_LISTING", code, line: copy.line, element: "Listing", value: code, message };
}

/** The copy at `copy.line` lost to the one at `winner`: the warning that says so. */
function supersededWarning(code: string, copy: StagedCopy, winner: number, winnerRefused: string | null): FeedWarning {
  const fate = copy.refusal === null ? "" : ` this copy was refused (${copy.refusal.replace(/^line \d+: /, "")});`;
  const later =
    winnerRefused === null
      ? `the copy at line ${winner} is imported`
      : `the copy at line ${winner} is refused too and reported`;
  return duplicateWarning(code, copy, `ListingID ${code} appears again at line ${winner}:${fate} ${later}`);
}

/**
 * Reads every item into staging. Returns the warnings; refusals stay in staging (a later copy
 * of the code may replace them), except those without a code.
 */
async function stage(
  items: AsyncIterable<FeedItem>,
  staging: Staging,
  notices: FeedWarning[],
  strict: boolean,
  report: (listings: number) => void,
  signal: AbortSignal | undefined,
): Promise<{ warnings: FeedWarning[]; uncoded: (Rejection & { line: number })[] }> {
  const warnings: FeedWarning[] = [];
  const uncoded: (Rejection & { line: number })[] = [];
  const refuseRepairs = () => {
    if (strict && notices.length > 0)
      throw new FeedError(
        `--strict: ${notices[0]!.message}${notices[0]!.line === null ? "" : ` (line ${notices[0]!.line})`}`,
      );
  };
  let seen = 0;
  for await (const item of items) {
    refuseRepairs();
    let code: string | null;
    let refusal: string | null = null;
    let listing = null;
    if (item.kind === "rejected") {
      code = item.code;
      refusal = item.reason;
    } else if (strict && item.warnings.length > 0) {
      code = item.listing.code;
      refusal = strictRefusal(item.line, item.warnings);
    } else {
      code = item.listing.code;
      listing = item.listing;
      warnings.push(...item.warnings);
    }
    if (code === null) {
      uncoded.push({ code: null, line: item.line, reason: refusal! });
    } else {
      const outcome = staging.add(code, item.line, listing, refusal);
      if (outcome.superseded !== null) warnings.push(supersededWarning(code, outcome.superseded, item.line, refusal));
      if (outcome.keptInstead !== null) {
        const current = { line: item.line, refusal };
        warnings.push(
          duplicateWarning(
            code,
            current,
            `ListingID ${code} appears again: this copy was refused (${refusal!.replace(/^line \d+: /, "")}); the copy at line ${outcome.keptInstead.line} is imported`,
          ),
        );
      }
    }
    if (++seen % 1000 === 0) {
      report(seen);
      signal?.throwIfAborted();
    }
  }
  refuseRepairs();
  staging.flush();
  return { warnings, uncoded };
}

/** Imports feed items into an open database (the two phases above). */
export async function importItems(
  db: Database,
  items: AsyncIterable<FeedItem>,
  options: ImportOptions = {},
  bytes?: FeedProgress,
  notices: FeedWarning[] = [],
): Promise<ImportSummary> {
  // Time-ordered (v7) ids append to the id index rather than scattering over it.
  const newId = options.newId ?? (() => Bun.randomUUIDv7());
  // A smaller page cache than the server's: an import touches each page about once, and the
  // memory is better left to the server sharing the machine (the OS caches the file anyway).
  db.run("PRAGMA cache_size = -16384");
  const staging = new Staging(db, newId);
  try {
    const progress = options.onProgress;
    const staged = await stage(
      items,
      staging,
      notices,
      options.strict === true,
      (listings) => progress?.({ phase: "reading", listings, bytes: bytes ?? { bytesRead: 0, totalBytes: null } }),
      options.signal,
    );
    const rejections = [
      ...staged.uncoded,
      ...staging.refusals().map(({ code, line, refusal }) => ({ code, line, reason: refusal })),
    ]
      .sort((a, b) => a.line - b.line)
      .map(({ code, reason }) => ({ code, reason }));
    const total = staging.counts.create + staging.counts.update;
    const counts = await applyStaged(db, staging, {
      partial: options.partial === true,
      dryRun: options.dryRun === true,
      now: (options.now?.() ?? new Date()).toISOString(),
      newId,
      onWrite: (listings) => progress?.({ phase: "writing", listings, total }),
      chunked: options.newFile !== true,
      maxUnpublishRatio: options.maxUnpublishRatio,
      inEachChunk: options.inEachChunk,
      signal: options.signal,
    });
    const byLine = (a: FeedWarning, b: FeedWarning) => (a.line ?? 0) - (b.line ?? 0);
    const warningList = [...notices.sort(byLine), ...staged.warnings.sort(byLine)];
    return { ...counts, rejected: rejections.length, warnings: countByKind(warningList), rejections, warningList };
  } finally {
    await staging.drop();
  }
}

/** The listings of an opened feed, read by the reader of its format. */
export function feedItems(feed: FeedSource): {
  items: AsyncIterable<FeedItem>;
  progress: FeedProgress;
  notices: FeedWarning[];
} {
  return {
    items: feed.format === "vrsync" ? readVrsync(feed.text, feed.notices) : readNdjson(feed.text),
    progress: feed.progress,
    notices: feed.notices,
  };
}

/**
 * Imports FEED (a path or an http(s) URL, VRSync or NDJSON) into the database at dbPath,
 * creating it if missing. Throws FeedError when the feed cannot be read as a whole.
 */
export async function importFeed(
  dbPath: string,
  location: string,
  options: ImportOptions = {},
): Promise<ImportSummary> {
  const read = async () => feedItems(await openFeed(location, { limits: options.limits, signal: options.signal }));
  if (existsSync(dbPath)) {
    const db = openExistingDatabase(dbPath); // refused before any byte of the feed is fetched
    try {
      const feed = await read();
      return await importItems(db, feed.items, options, feed.progress, feed.notices);
    } finally {
      closeDatabase(db);
    }
  }
  const feed = await read(); // an unreadable feed creates no file
  // Built beside the target and linked into place when complete: a server never sees a half-made file.
  const tmpPath = `${dbPath}.import-${process.pid}`;
  removeDatabaseFiles(tmpPath);
  try {
    const db = openDatabase(tmpPath);
    let summary: ImportSummary;
    try {
      // Nobody can see this file until it is linked into place: write it without the WAL (which
      // would hold every page twice, then copy it over at close) and without fsyncs. Without
      // foreign key checks too: each listing's photos are written right after it (a parent
      // lookup per photo otherwise).
      db.run("PRAGMA journal_mode = MEMORY");
      db.run("PRAGMA synchronous = OFF");
      db.run("PRAGMA foreign_keys = OFF");
      summary = await importItems(db, feed.items, { ...options, newFile: true }, feed.progress, feed.notices);
      db.run("PRAGMA foreign_keys = ON");
      db.run("PRAGMA journal_mode = WAL");
      db.run("PRAGMA synchronous = FULL");
    } finally {
      closeDatabase(db);
    }
    if (options.dryRun !== true) linkSync(tmpPath, dbPath); // refuses if the file appeared meanwhile
    return summary;
  } finally {
    removeDatabaseFiles(tmpPath);
  }
}
