// The figures of what the agency sees (docs/operators/console.md#what-the-agency-sees): each
// client's counters by day, its last request, and the request log, in the control database.
// Written in batches by the recorder of each process (src/usage/recorder.ts), read by the admin API.
import type { Database } from "bun:sqlite";
import { type PackedRequests, type RequestLogRow, requestsOf } from "./request-log.ts";

export interface LastSeen {
  at: number;
  ip: string | null;
  route: string | null;
}

export interface RequestLogFilter {
  client?: string;
  /** Only these clients (an admin of some databases); an empty list matches nothing. */
  clients?: string[];
  /** An exact status (404), or a class ("4xx"). */
  status?: { from: number; to: number };
  ip?: string;
  since?: number;
  until?: number;
}

/** One attempt of a webhook delivery. */
export interface AttemptRow {
  database: string;
  subscriptionId: string;
  deliveryId: string;
  at: number;
  status: number | null;
  ms: number;
  error: string | null;
  /** The first KiB of the answer's body. */
  answer: string | null;
}

/** One run of a CRM feed. */
export interface FeedRunRow {
  id?: number;
  feedId: string;
  database: string | null;
  startedAt: number;
  ms: number;
  outcome: string;
  error: string | null;
  summary: unknown;
  decision?: string | null;
  decidedBy?: string | null;
  decidedAt?: number | null;
}

/** One batch: counter increments keyed "client\tday\tname", last-seen per client, the log's packed requests, attempts, runs. */
export interface UsageBatch {
  counts: Map<string, number>;
  lastSeen: Map<string, LastSeen>;
  /** The batch's requests for the log. */
  requests: PackedRequests;
  attempts: AttemptRow[];
  feedRuns: FeedRunRow[];
}

/** Webhook attempts and feed runs kept at most (the oldest go first). */
export const ATTEMPTS_KEPT = 100_000;
export const FEED_RUNS_KEPT = 10_000;

type Raw = Record<string, unknown>;

/** The SQL of the figures on one connection to the control database. */
export class UsageStore {
  constructor(readonly db: Database) {}

  /** Writes a batch in one transaction, then keeps only the newest `logRows` log rows. */
  write(batch: UsageBatch, logRows: number): void {
    const count = this.db.query(
      `INSERT INTO usage_counts (client, day, name, n) VALUES (?, ?, ?, ?)
       ON CONFLICT (client, day, name) DO UPDATE SET n = n + excluded.n`,
    );
    const seen = this.db.query(
      `INSERT INTO usage_last_seen (client, at, ip, route) VALUES (?, ?, ?, ?)
       ON CONFLICT (client) DO UPDATE SET at = excluded.at, ip = excluded.ip, route = excluded.route
       WHERE excluded.at >= usage_last_seen.at`,
    );
    const log = this.db.query(
      `INSERT INTO request_log (first_at, last_at, n, upto, requests)
       VALUES (?1, ?2, ?3, ?3 + coalesce((SELECT upto FROM request_log ORDER BY id DESC LIMIT 1), 0), ?4)`,
    );
    this.db
      .transaction(() => {
        for (const [key, n] of batch.counts) {
          const [client, day, name] = key.split("\t") as [string, string, string];
          count.run(client, day, name, n);
        }
        for (const [client, s] of batch.lastSeen) seen.run(client, s.at, s.ip, s.route);
        const { bytes, n, firstAt, lastAt } = batch.requests;
        if (n > 0) {
          log.run(firstAt, lastAt, n, bytes);
          // Batches whose every request is older than the newest `logRows` go.
          this.db
            .query("DELETE FROM request_log WHERE upto <= (SELECT upto FROM request_log ORDER BY id DESC LIMIT 1) - ?")
            .run(logRows);
        }
        const attempt = this.db.query(
          `INSERT INTO webhook_attempts (database, subscription_id, delivery_id, at, status, ms, error, answer)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
        );
        for (const a of batch.attempts)
          attempt.run(a.database, a.subscriptionId, a.deliveryId, a.at, a.status, a.ms, a.error, a.answer);
        if (batch.attempts.length > 0)
          this.db
            .query("DELETE FROM webhook_attempts WHERE id <= (SELECT max(id) FROM webhook_attempts) - ?")
            .run(ATTEMPTS_KEPT);
        const run = this.db.query(
          `INSERT INTO feed_run_log (feed_id, database, started_at, ms, outcome, error, summary)
           VALUES (?, ?, ?, ?, ?, ?, ?)`,
        );
        for (const r of batch.feedRuns)
          run.run(
            r.feedId,
            r.database,
            r.startedAt,
            r.ms,
            r.outcome,
            r.error,
            r.summary === null ? null : JSON.stringify(r.summary),
          );
        if (batch.feedRuns.length > 0)
          this.db
            .query("DELETE FROM feed_run_log WHERE id <= (SELECT max(id) FROM feed_run_log) - ?")
            .run(FEED_RUNS_KEPT);
      })
      .immediate();
  }

  /** Drops the counters of days before `day` (YYYY-MM-DD). */
  forgetBefore(day: string): void {
    this.db.query("DELETE FROM usage_counts WHERE day < ?").run(day);
  }

  /** Every counter of a client from `day` on. */
  counts(client: string, fromDay: string): { day: string; name: string; n: number }[] {
    return this.db
      .query("SELECT day, name, n FROM usage_counts WHERE client = ? AND day >= ? ORDER BY day")
      .all(client, fromDay) as { day: string; name: string; n: number }[];
  }

  /** Named counters of every client from `day` on (the portal feed's downloads, say). */
  countsNamed(names: readonly string[], fromDay: string): { client: string; day: string; name: string; n: number }[] {
    return this.db
      .query(
        `SELECT client, day, name, n FROM usage_counts
         WHERE day >= ? AND name IN (${names.map(() => "?").join(", ")}) ORDER BY day DESC, client`,
      )
      .all(fromDay, ...names) as { client: string; day: string; name: string; n: number }[];
  }

  lastSeen(client: string): LastSeen | null {
    return this.db.query("SELECT at, ip, route FROM usage_last_seen WHERE client = ?").get(client) as LastSeen | null;
  }

  allLastSeen(): Map<string, number> {
    const rows = this.db.query("SELECT client, at FROM usage_last_seen").all() as { client: string; at: number }[];
    return new Map(rows.map((r) => [r.client, r.at]));
  }

  /**
   * A page of the request log, newest first, of the requests matching `filter` among the newest
   * `kept` (the file may hold up to one batch more), and how many match. The batches a time bound
   * leaves are decoded: 200,000 requests at most, by default.
   */
  requestPage(
    filter: RequestLogFilter,
    limit: number,
    offset: number,
    kept: number,
  ): { rows: RequestLogRow[]; total: number } {
    const batches = this.db
      .query("SELECT requests FROM request_log WHERE last_at >= ? AND first_at < ? ORDER BY id DESC")
      .all(filter.since ?? 0, filter.until ?? Number.MAX_SAFE_INTEGER) as { requests: Uint8Array | string }[];
    const clients = filter.clients === undefined ? null : new Set(filter.clients);
    const matching: { row: RequestLogRow; order: number }[] = [];
    let order = 0;
    for (const batch of batches) {
      if (order >= kept) break;
      const rows = requestsOf(batch.requests);
      // Newest batch first, and within a batch the newest request first: ties of `at` keep that order.
      for (let i = rows.length - 1; i >= 0 && order < kept; i--) {
        const r = rows[i]!;
        order++;
        if (filter.client !== undefined && r.client !== filter.client) continue;
        if (clients !== null && (r.client === null || !clients.has(r.client))) continue;
        if (filter.status !== undefined && !(r.status >= filter.status.from && r.status <= filter.status.to)) continue;
        if (filter.ip !== undefined && r.ip !== filter.ip) continue;
        if (filter.since !== undefined && r.at < filter.since) continue;
        if (filter.until !== undefined && r.at >= filter.until) continue;
        matching.push({ row: r, order });
      }
    }
    matching.sort((a, b) => b.row.at - a.row.at || a.order - b.order);
    return { total: matching.length, rows: matching.slice(offset, offset + limit).map((m) => m.row) };
  }

  /** The attempts of deliveries, oldest first, by delivery id. */
  attemptsOf(deliveryIds: readonly string[]): Map<string, AttemptRow[]> {
    const out = new Map<string, AttemptRow[]>();
    if (deliveryIds.length === 0) return out;
    const rows = this.db
      .query(
        `SELECT * FROM webhook_attempts WHERE delivery_id IN (${deliveryIds.map(() => "?").join(", ")}) ORDER BY id`,
      )
      .all(...deliveryIds) as Raw[];
    for (const r of rows) {
      const id = r.delivery_id as string;
      const list = out.get(id) ?? [];
      list.push({
        database: r.database as string,
        subscriptionId: r.subscription_id as string,
        deliveryId: id,
        at: r.at as number,
        status: r.status as number | null,
        ms: r.ms as number,
        error: r.error as string | null,
        answer: r.answer as string | null,
      });
      out.set(id, list);
    }
    return out;
  }

  /** Runs of a feed (of every feed when null), newest first. */
  feedRuns(feedId: string | null, limit: number, offset: number): { rows: FeedRunRow[]; total: number } {
    const where = feedId === null ? "" : "WHERE feed_id = ?";
    const args = feedId === null ? [] : [feedId];
    const total = (this.db.query(`SELECT count(*) AS n FROM feed_run_log ${where}`).get(...args) as { n: number }).n;
    const rows = this.db
      .query(`SELECT * FROM feed_run_log ${where} ORDER BY started_at DESC, id DESC LIMIT ? OFFSET ?`)
      .all(...args, limit, offset) as Raw[];
    return { total, rows: rows.map(feedRunOf) };
  }

  feedRun(id: number): FeedRunRow | null {
    const row = this.db.query("SELECT * FROM feed_run_log WHERE id = ?").get(id) as Raw | null;
    return row === null ? null : feedRunOf(row);
  }

  /** Records an admin's decision on a guarded run; false when it was decided already. */
  decideFeedRun(id: number, decision: "applied" | "dropped", by: string, at: number): boolean {
    return (
      this.db
        .query(
          "UPDATE feed_run_log SET decision = ?, decided_by = ?, decided_at = ? WHERE id = ? AND outcome = 'guarded' AND decision IS NULL",
        )
        .run(decision, by, at, id).changes === 1
    );
  }
}

function feedRunOf(r: Raw): FeedRunRow {
  return {
    id: r.id as number,
    feedId: r.feed_id as string,
    database: r.database as string | null,
    startedAt: r.started_at as number,
    ms: r.ms as number,
    outcome: r.outcome as string,
    error: r.error as string | null,
    summary: r.summary === null ? null : JSON.parse(r.summary as string),
    decision: r.decision as string | null,
    decidedBy: r.decided_by as string | null,
    decidedAt: r.decided_at as number | null,
  };
}
