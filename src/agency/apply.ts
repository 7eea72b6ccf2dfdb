// The write phase of an import: the staged creations and updates, then the unpublishing of what
// the feed no longer lists, in one transaction. Comparison happened while staging; under the
// write lock only a check that nothing moved since, and the writes themselves.
import type { Database } from "bun:sqlite";
import { FeedError } from "../feeds/listing.ts";
import { PropertyRows } from "./rows.ts";
import type { Staging } from "./staging.ts";

export interface ApplyCounts {
  created: number;
  updated: number;
  unchanged: number;
  unpublished: number;
}

export interface ApplyOptions {
  /** Leave properties missing from the feed published. */
  partial: boolean;
  /** Count, write nothing, take no write lock. */
  dryRun: boolean;
  /** The instant stamped on created and changed properties (ISO, milliseconds, Z). */
  now: string;
  newId: () => string;
  onWrite?: (done: number) => void;
}

/** Another writer changed properties the import had compared: applying the plan could undo its work. */
export class ConcurrentChangeError extends Error {
  constructor(codes: readonly string[]) {
    super(`properties changed while the feed was being read (another import?): ${codes.join(", ")}; nothing was imported, run it again`);
  }
}

/** Published properties with a code the feed does not carry (rejected listings count as carried). */
const MISSING = "is_published = 1 AND code IS NOT NULL AND code NOT IN (SELECT code FROM staging.import_listings)";

/**
 * A full import of a feed without a single listing would take the whole catalogue down; that is
 * what a CRM's failed export looks like, not an agency's intent, so it is refused.
 */
function refuseEmptyFeed(db: Database, staging: Staging): void {
  const listed = Object.values(staging.counts).reduce((a, b) => a + b, 0);
  if (listed > 0) return;
  const published = (db.query(`SELECT count(*) AS n FROM properties WHERE ${MISSING}`).get() as { n: number }).n;
  if (published > 0) {
    throw new FeedError(`the feed lists no listings: a full import would unpublish all ${published} published properties; nothing was changed`);
  }
}

export function applyStaged(db: Database, staging: Staging, options: ApplyOptions): ApplyCounts {
  const counts: ApplyCounts = { created: staging.counts.create, updated: staging.counts.update, unchanged: staging.counts.unchanged, unpublished: 0 };
  if (!options.partial) refuseEmptyFeed(db, staging);
  if (options.dryRun) {
    if (!options.partial) counts.unpublished = (db.query(`SELECT count(*) AS n FROM properties WHERE ${MISSING}`).get() as { n: number }).n;
    return counts;
  }
  const rows = new PropertyRows(db);
  try {
    // IMMEDIATE takes the write lock up front, so the check and the writes see one state.
    db.transaction(() => {
      const stale = staging.stale();
      if (stale.length > 0) throw new ConcurrentChangeError(stale);
      let done = 0;
      for (const write of staging.writes()) {
        if (write.action === "create") rows.create(options.newId(), write.listing, write.digest, write.photos, options.now);
        else if (write.action === "update") rows.replace(write.storedId, write.listing, write.digest, write.photos, options.now);
        else rows.redigest(write.storedId, write.digest);
        if (++done % 1000 === 0) options.onWrite?.(done);
      }
      if (!options.partial) counts.unpublished = db.run(`UPDATE properties SET is_published = 0 WHERE ${MISSING}`).changes;
    }).immediate();
  } finally {
    rows.finalize();
  }
  return counts;
}
