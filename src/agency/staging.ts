// The read phase of an import: each listing of the feed is compared with the stored property of
// its code and its fate (create, update, unchanged) written to a staging database, a scratch
// file in the system's temporary directory attached to the import's connection and deleted
// after. That costs disk, not memory, and takes no write lock: the server keeps creating leads
// while a 100,000-listing feed is read.
import type { Database, Statement } from "bun:sqlite";
import { statSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { removeDatabaseFiles } from "../db/files.ts";
import type { Listing } from "../formats/listing.ts";
import { assignPhotoIds, contentEqual, listingDigest, photosEqual } from "./compare.ts";
import { PropertyRows, type StoredPhoto } from "./rows.ts";

const BATCH = 2_000;
const WRITE_PAGE = 500;
/**
 * Listings between full garbage collections. Parsing leaves much short-lived garbage and the
 * engine grows its heap lazily; collecting now and then keeps a 100,000-listing import about
 * 50 MB smaller, for a few percent of its time, on a machine it shares with the server.
 */
const COLLECT_EVERY = 20_000;

export type Action = "create" | "update" | "unchanged" | "rejected";

/** A copy of a listing the feed carried: where it was, and why it was refused if it was. */
export interface StagedCopy {
  line: number;
  /** Null when the copy could be imported. */
  refusal: string | null;
}

/**
 * What staging a copy of a code did to the copies before it: the last importable copy wins
 * (docs/reference/behaviour-extensions.md §16). `superseded` is the earlier copy this one replaced; `keptInstead` the earlier
 * importable copy that stays, when this one was refused.
 */
export interface StagingOutcome {
  superseded: StagedCopy | null;
  keptInstead: StagedCopy | null;
}

/** The stored property a write was planned against, as it was then. */
export interface PlannedAgainst {
  code: string | null;
  updatedAt: string;
  published: boolean;
}

/**
 * A staged write: a new listing, new content for a stored one (the gallery to write, null: keep
 * it), or only the digest of unchanged content found equal by comparison. `code` is the feed's.
 */
export type PlannedWrite =
  | { action: "create"; code: string; listing: Listing; digest: string; photos: StoredPhoto[] }
  | {
      action: "update";
      code: string;
      storedId: string;
      against: PlannedAgainst;
      listing: Listing;
      digest: string;
      photos: StoredPhoto[] | null;
    }
  | { action: "redigest"; code: string; storedId: string; against: PlannedAgainst; digest: string };

export class Staging {
  private readonly insert: Statement;
  private readonly staged: Statement<{ line: number; refusal: string | null; action: Action }, [string]>;
  private readonly rows: PropertyRows;
  private readonly taken: Statement<{ n: number }, [string]>;
  private readonly unmoved: Statement<{ n: number }, [string, string | null, string, number]>;
  private pending = 0;
  readonly counts: Record<Action, number> = { create: 0, update: 0, unchanged: 0, rejected: 0 };

  private readonly path = join(tmpdir(), `partner-api-import-${process.pid}-${crypto.randomUUID()}.sqlite`);

  constructor(
    private readonly db: Database,
    private readonly newId: () => string,
  ) {
    // A file of its own rather than a TEMP table: the connection keeps temp_store = MEMORY, so
    // the statement journals of the write phase stay in memory (on disk they made writes 2x slower).
    // Created here: ATTACH inherits the connection's open flags, and a served file is opened without "create".
    writeFileSync(this.path, "", { flag: "wx", mode: 0o600 });
    db.run("ATTACH DATABASE ? AS staging", [this.path]);
    // Scratch data: no journal; a crash loses only this file.
    db.run("PRAGMA staging.journal_mode = OFF");
    // An fsync at each batch's commit all the same, not for safety: written back 2,000 listings at
    // a time, the file never piles up hundreds of MB of dirty pages that the kernel then writes
    // out at once (30 s after they were written), in a burst that made the server's own commits
    // wait 100-200 ms for the disk (perf: their fsync behind the writeback, bench feed-run).
    db.run("PRAGMA staging.synchronous = NORMAL");
    db.run("PRAGMA staging.cache_size = -8192"); // 8 MiB
    // stored_*: the state the plan was made against, checked again under the write lock.
    db.run(
      "CREATE TABLE staging.import_listings (seq INTEGER PRIMARY KEY, code TEXT NOT NULL UNIQUE, line INTEGER NOT NULL, " +
        "refusal TEXT, action TEXT NOT NULL, stored_id TEXT, stored_code TEXT, stored_updated_at TEXT, stored_published INTEGER, " +
        "listing TEXT, digest TEXT, redigest INTEGER NOT NULL DEFAULT 0, photo_ids TEXT)",
    );
    this.staged = db.prepare("SELECT line, refusal, action FROM staging.import_listings WHERE code = ?");
    // A later copy replaces the staged one in place (keeping its place in feed order).
    this.insert = db.prepare(
      "INSERT INTO staging.import_listings (code, line, refusal, action, stored_id, stored_code, stored_updated_at, stored_published, " +
        "listing, digest, redigest, photo_ids) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (code) DO UPDATE SET " +
        "line = excluded.line, refusal = excluded.refusal, action = excluded.action, stored_id = excluded.stored_id, " +
        "stored_code = excluded.stored_code, stored_updated_at = excluded.stored_updated_at, " +
        "stored_published = excluded.stored_published, listing = excluded.listing, digest = excluded.digest, " +
        "redigest = excluded.redigest, photo_ids = excluded.photo_ids",
    );
    this.rows = new PropertyRows(db);
    // The state each write was planned against, checked again under the write lock.
    this.taken = db.prepare("SELECT 1 AS n FROM properties WHERE code = ?1 OR (id = ?1 AND code IS NULL)");
    this.unmoved = db.prepare(
      "SELECT 1 AS n FROM properties WHERE id = ? AND code IS ? AND updated_at = ? AND is_published = ?",
    );
  }

  /**
   * Plans one copy of a listing of the feed at `line`: the listing, or null with the reason it
   * was refused (then a full import leaves the stored property alone). The last copy of a code
   * that can be imported wins; a refused copy never replaces an importable one.
   */
  add(code: string, line: number, feedListing: Listing | null, refusal: string | null = null): StagingOutcome {
    if (this.pending === 0) this.db.run("BEGIN");
    const before = this.staged.get(code);
    const earlier = before === null ? null : { line: before.line, refusal: before.refusal };
    if (earlier !== null && earlier.refusal === null && feedListing === null) {
      this.step();
      return { superseded: null, keptInstead: earlier };
    }
    if (before !== null) this.counts[before.action]--;
    const stored = feedListing === null ? null : this.rows.byListingId(code);
    // A property without a code, named by its id, stays without one.
    const listing =
      feedListing !== null && stored !== null && stored.code === null ? { ...feedListing, code: null } : feedListing;
    const json = listing === null ? null : JSON.stringify(listing);
    const digest = json === null ? null : listingDigest(json);
    let action: Action = "rejected";
    let photos: StoredPhoto[] | null = null;
    let redigest = false;
    if (listing !== null && stored === null) {
      action = "create";
      photos = assignPhotoIds(listing.photos, [], this.newId);
    } else if (listing !== null && stored !== null) {
      // The digest of what the last import wrote settles most comparisons without reading the property back.
      const current = stored.digest === digest ? null : this.rows.listingOf(stored.id);
      // Re-publishing a listing that had been taken down is a change too.
      action = stored.published && (current === null || contentEqual(current, listing)) ? "unchanged" : "update";
      redigest = action === "unchanged" && current !== null;
      if (action === "update" && current !== null && !photosEqual(current.photos, listing.photos)) {
        photos = assignPhotoIds(listing.photos, current.photos, this.newId);
      }
    }
    const write = action === "create" || action === "update";
    this.insert.run(
      code,
      line,
      refusal,
      action,
      stored?.id ?? null,
      stored?.code ?? null,
      stored?.updatedAt ?? null,
      // The gallery to write is the listing's own photos with these ids (not staged twice).
      stored === null ? null : Number(stored.published),
      write ? json : null,
      digest,
      redigest ? 1 : 0,
      photos === null ? null : JSON.stringify(photos.map((photo) => photo.id)),
    );
    this.counts[action]++;
    this.step();
    return { superseded: earlier, keptInstead: null };
  }

  private step(): void {
    if (++this.pending >= BATCH) this.flush();
    this.tidy();
  }

  /** The refused listings that no importable copy replaced: code, line and reason, in feed order. */
  refusals(): { code: string; line: number; refusal: string }[] {
    return this.db
      .query<{ code: string; line: number; refusal: string }, []>(
        "SELECT code, line, refusal FROM staging.import_listings WHERE action = 'rejected' ORDER BY line",
      )
      .all();
  }

  flush(): void {
    if (this.pending > 0) this.db.run("COMMIT");
    this.pending = 0;
  }

  private handled = 0;

  private tidy(): void {
    if (++this.handled % COLLECT_EVERY === 0) Bun.gc(true);
  }

  /**
   * Staged creations and updates, in feed order. Read in pages, not through one open cursor:
   * a write while a statement is still reading needs a statement journal, a temporary file
   * here, which made every write several times slower.
   */
  *writes(): Generator<PlannedWrite> {
    type Row = {
      seq: number;
      code: string;
      action: Action;
      stored_id: string;
      stored_code: string | null;
      stored_updated_at: string;
      stored_published: number;
      listing: string;
      digest: string;
      photo_ids: string | null;
    };
    const page = this.db.prepare<Row, [number]>(
      "SELECT seq, code, action, stored_id, stored_code, stored_updated_at, stored_published, listing, digest, photo_ids " +
        "FROM staging.import_listings " +
        `WHERE seq > ? AND (action IN ('create', 'update') OR redigest = 1) ORDER BY seq LIMIT ${WRITE_PAGE}`,
    );
    try {
      let after = 0;
      for (let rows = page.all(after); rows.length > 0; rows = page.all(after)) {
        for (const row of rows) {
          this.tidy();
          const against = {
            code: row.stored_code,
            updatedAt: row.stored_updated_at,
            published: row.stored_published === 1,
          };
          if (row.action !== "create" && row.action !== "update") {
            yield { action: "redigest", code: row.code, storedId: row.stored_id, against, digest: row.digest };
            continue;
          }
          const listing = JSON.parse(row.listing) as Listing;
          const ids = row.photo_ids === null ? null : (JSON.parse(row.photo_ids) as string[]);
          const photos = ids === null ? null : listing.photos.map((photo, i) => ({ ...photo, id: ids[i]! }));
          if (row.action === "create")
            yield { action: "create", code: row.code, listing, digest: row.digest, photos: photos ?? [] };
          else
            yield {
              action: "update",
              code: row.code,
              storedId: row.stored_id,
              against,
              listing,
              digest: row.digest,
              photos,
            };
        }
        after = rows[rows.length - 1]!.seq;
      }
    } finally {
      page.finalize();
    }
  }

  /**
   * Whether the stored property a write was planned against changed since (another import ran
   * meanwhile): its updated_at, visibility or code moved, or a code planned as new now exists.
   * Asked inside the transaction that makes the write.
   */
  isStale(planned: PlannedWrite): boolean {
    if (planned.action === "create") return this.taken.get(planned.code) !== null;
    const { code, updatedAt, published } = planned.against;
    return this.unmoved.get(planned.storedId, code, updatedAt, published ? 1 : 0) === null;
  }

  async drop(): Promise<void> {
    if (this.pending > 0) this.db.run("ROLLBACK");
    this.pending = 0;
    this.insert.finalize();
    this.staged.finalize();
    this.taken.finalize();
    this.unmoved.finalize();
    this.rows.finalize();
    this.db.run("DETACH DATABASE staging");
    await shrinkGradually(this.path);
    removeDatabaseFiles(this.path);
  }
}

/** How much of the staging file is freed at a time when it goes, and the pause between. */
const SHRINK_STEP_BYTES = 32 * 1024 * 1024;
const SHRINK_PAUSE_MS = 20;

/**
 * Frees the staging file (hundreds of MB after a big feed) a step at a time before removing it:
 * on a disk that discards freed blocks at once, removing it whole queued a burst that made the
 * server's commit fsyncs wait 50-90 ms.
 */
export async function shrinkGradually(path: string, step = SHRINK_STEP_BYTES): Promise<void> {
  let size = statSync(path).size;
  while (size > step) {
    size -= step;
    truncateSync(path, size);
    await Bun.sleep(SHRINK_PAUSE_MS);
  }
}
