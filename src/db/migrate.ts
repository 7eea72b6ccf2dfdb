// Versioned schema migrations, compiled into the binary. The schema version lives in the
// file itself (PRAGMA user_version): an older file is upgraded at open, a newer one refused.
import type { Database } from "bun:sqlite";
import init from "./migrations/001_init.sql" with { type: "text" };
import dayCounts from "./migrations/002_day_counts.sql" with { type: "text" };
import dateOrder from "./migrations/003_date_order.sql" with { type: "text" };
import webhooks from "./migrations/004_webhooks.sql" with { type: "text" };
import listingExtras from "./migrations/005_listing_extras.sql" with { type: "text" };
import feedRuns from "./migrations/006_feed_runs.sql" with { type: "text" };
import deliveryEvent from "./migrations/007_delivery_event.sql" with { type: "text" };
import leadOwners from "./migrations/008_lead_owners.sql" with { type: "text" };
import search from "./migrations/009_search.sql" with { type: "text" };
import changeStreams from "./migrations/010_change_streams.sql" with { type: "text" };
import leadAnonymizations from "./migrations/011_lead_anonymizations.sql" with { type: "text" };
import rebuildDateOrder from "./migrations/rebuild-date-order.sql" with { type: "text" };
import rebuildDayCounts from "./migrations/rebuild-day-counts.sql" with { type: "text" };
import rebuildSearchText from "./migrations/rebuild-search.sql" with { type: "text" };

/** Fills the word index from the properties (migration 9, and loads that set its triggers aside). */
export const REBUILD_SEARCH = rebuildSearchText;

/**
 * What each migration that keeps tables by triggers runs to fill them from the rows already
 * there; loads that set those triggers aside run them too (src/db/schema-objects.ts).
 */
export const REFILL_SQL: readonly string[] = [rebuildDayCounts, rebuildDateOrder, REBUILD_SEARCH];

/** Migrations in order; migration i (0-based) takes the schema from version i to i + 1. */
export const MIGRATIONS: readonly string[] = [
  init,
  `${dayCounts}\n${rebuildDayCounts}`,
  `${dateOrder}\n${rebuildDateOrder}`,
  webhooks,
  listingExtras,
  feedRuns,
  deliveryEvent,
  leadOwners,
  `${search}\n${REBUILD_SEARCH}`,
  changeStreams,
  leadAnonymizations,
];
export const SCHEMA_VERSION = MIGRATIONS.length;

export class SchemaTooNewError extends Error {
  constructor(readonly found: number) {
    super(
      `database schema version ${found} is newer than this partner-api understands (${SCHEMA_VERSION}); ` +
        "upgrade partner-api to serve it",
    );
  }
}

export function schemaVersion(db: Database): number {
  const row = db.query("PRAGMA user_version").get() as { user_version: number };
  return row.user_version;
}

/** Brings the schema up to SCHEMA_VERSION, one transaction per step. */
export function migrate(db: Database, migrations: readonly string[] = MIGRATIONS): void {
  const current = schemaVersion(db);
  if (current > migrations.length) throw new SchemaTooNewError(current);
  for (let version = current; version < migrations.length; version++) {
    db.transaction(() => {
      db.run(migrations[version]!);
      db.run(`PRAGMA user_version = ${version + 1}`);
    }).immediate();
  }
}
