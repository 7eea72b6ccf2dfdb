// Leads by origin (docs/operators/console.md#the-routes): per month, source and partner, the
// leads by status; counts only. A scan of the months asked for, so it runs in a reader thread
// (src/reads/), never on the event loop.
import type { Database } from "bun:sqlite";

export interface OriginRow {
  month: string;
  source: string;
  partner: string | null;
  status: string;
  n: number;
}

/** The counts of leads created from `from` (an ISO date-time) on, newest month first, as JSON. */
export function leadOriginCounts(db: Database, from: string): string {
  const rows = db
    .query(
      `SELECT substr(created_at, 1, 7) AS month, source, created_by AS partner, status, count(*) AS n
       FROM leads WHERE created_at >= ? GROUP BY 1, 2, 3, 4 ORDER BY 1 DESC, 2, 3`,
    )
    .all(from) as OriginRow[];
  return JSON.stringify(rows);
}
