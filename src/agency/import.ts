// `import`: a feed into an agency database. Phase one reads, validates and compares the whole
// feed into a scratch staging database (no write lock; malformed XML aborts with nothing
// changed); phase two writes the differences in one transaction. A new database file appears
// only once the import succeeded.
import type { Database } from "bun:sqlite";
import { existsSync, linkSync, rmSync } from "node:fs";
import { closeDatabase, openDatabase, openExistingDatabase } from "../db/open.ts";
import type { FeedItem } from "../feeds/listing.ts";
import { readNdjson } from "../feeds/ndjson/reader.ts";
import { type FeedProgress, openFeed } from "../feeds/source.ts";
import { readVrsync } from "../feeds/vrsync/reader.ts";
import { applyStaged, type ApplyCounts } from "./apply.ts";
import { Staging } from "./staging.ts";

export interface Rejection {
  code: string | null;
  reason: string;
}

export interface ImportSummary extends ApplyCounts {
  rejected: number;
  rejections: Rejection[];
}

export type ImportProgress =
  | { phase: "reading"; listings: number; bytes: FeedProgress }
  | { phase: "writing"; listings: number; total: number };

export interface ImportOptions {
  partial?: boolean;
  dryRun?: boolean;
  now?: () => Date;
  newId?: () => string;
  onProgress?: (progress: ImportProgress) => void;
}

/** Reads every item into staging; returns the rejections (bad listings and repeated codes). */
async function stage(items: AsyncIterable<FeedItem>, staging: Staging, report: (listings: number) => void): Promise<Rejection[]> {
  const rejections: Rejection[] = [];
  let seen = 0;
  for await (const item of items) {
    if (item.kind === "rejected") {
      rejections.push({ code: item.code, reason: item.reason });
      if (item.code !== null && !staging.add(item.code, null)) continue;
    } else if (!staging.add(item.listing.code, item.listing)) {
      rejections.push({ code: item.listing.code, reason: "the code appears more than once in the feed; only its first listing counts" });
    }
    if (++seen % 1000 === 0) report(seen);
  }
  staging.flush();
  return rejections;
}

/** Imports feed items into an open database (the two phases above). */
export async function importItems(db: Database, items: AsyncIterable<FeedItem>, options: ImportOptions = {}, bytes?: FeedProgress): Promise<ImportSummary> {
  // Time-ordered (v7) ids append to the id index rather than scattering over it.
  const newId = options.newId ?? (() => Bun.randomUUIDv7());
  // A smaller page cache than the server's: an import touches each page about once, and the
  // memory is better left to the server sharing the machine (the OS caches the file anyway).
  db.run("PRAGMA cache_size = -16384");
  const staging = new Staging(db, newId);
  try {
    const progress = options.onProgress;
    const rejections = await stage(items, staging, (listings) => progress?.({ phase: "reading", listings, bytes: bytes ?? { bytesRead: 0, totalBytes: null } }));
    const total = staging.counts.create + staging.counts.update;
    const counts = applyStaged(db, staging, {
      partial: options.partial === true,
      dryRun: options.dryRun === true,
      now: (options.now?.() ?? new Date()).toISOString(),
      newId,
      onWrite: (listings) => progress?.({ phase: "writing", listings, total }),
    });
    return { ...counts, rejected: rejections.length, rejections };
  } finally {
    staging.drop();
  }
}

function removeDatabaseFiles(path: string): void {
  for (const suffix of ["", "-wal", "-shm", "-journal"]) rmSync(path + suffix, { force: true });
}

/**
 * Imports FEED (a path or an http(s) URL, VRSync or NDJSON) into the database at dbPath,
 * creating it if missing. Throws FeedError when the feed cannot be read as a whole.
 */
export async function importFeed(dbPath: string, location: string, options: ImportOptions = {}): Promise<ImportSummary> {
  const read = async () => {
    const feed = await openFeed(location);
    return { items: feed.format === "vrsync" ? readVrsync(feed.text) : readNdjson(feed.text), progress: feed.progress };
  };
  if (existsSync(dbPath)) {
    const db = openExistingDatabase(dbPath); // refused before any byte of the feed is fetched
    try {
      const feed = await read();
      return await importItems(db, feed.items, options, feed.progress);
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
      summary = await importItems(db, feed.items, options, feed.progress);
    } finally {
      closeDatabase(db);
    }
    if (options.dryRun !== true) linkSync(tmpPath, dbPath); // refuses if the file appeared meanwhile
    return summary;
  } finally {
    removeDatabaseFiles(tmpPath);
  }
}
