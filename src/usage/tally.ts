// Each client's counters by day and its last request, tallied from a batch's requests by the
// writer thread (writer-thread.ts) just before it writes them. The event loop only adds each
// request to the batch's columns (columns.ts); counting them there too cost every request a few
// map updates in the middle of serving it, where here a batch is one pass over typed arrays.

import { REFS, type RequestColumnsData } from "../db/control/request-log.ts";
import type { LastSeen } from "../db/control/usage.ts";
import { REPLAYED } from "./columns.ts";
import { latencyBucket } from "./latency.ts";

const DAY_MS = 86_400_000;

/** Routes that make a lead when they answer 201. */
const LEAD_ROUTES = new Set(["POST /v1/leads", "POST /v1/inbound/:clientId"]);
const FEED_ROUTE = "/v1/feeds/vrsync.xml";

/** The UTC day (YYYY-MM-DD) of a time in ms since the epoch. */
export function dayOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** The outcome a status counts under, as the usage route names them. */
export function outcomeOf(status: number): string {
  if (status >= 200 && status < 300) return "2xx";
  if (status >= 300 && status < 400) return "3xx";
  if (status === 401 || status === 403 || status === 404 || status === 429) return String(status);
  if (status >= 500) return "5xx";
  return "4xx";
}

/** Latency buckets a tally keeps (latency.ts caps a bucket at 400). */
const BUCKETS = 401;

/**
 * One client's figures of one day within a batch, counted by number (status, latency bucket) and
 * named only once per batch, when they are added to the counters.
 */
class DayTally {
  /** Requests per status. */
  readonly statuses = new Map<number, number>();
  /** 403s per refusal code ("IP_NOT_ALLOWED"). */
  readonly refusals = new Map<string, number>();
  /** Requests per latency bucket. */
  readonly buckets = new Uint32Array(BUCKETS);
  leads = 0;
  feed = 0;
  feed304 = 0;
  feedBytes = 0;
  /** The client's latest request of the day in the batch (its arrival, its position). */
  lastAt = Number.NEGATIVE_INFINITY;
  lastIndex = -1;

  constructor(
    readonly client: string,
    readonly day: string,
  ) {}

  /** Adds the tally to `counts` under the control database's keys, "client\tday\tname". */
  addTo(counts: Map<string, number>): void {
    const prefix = `${this.client}\t${this.day}\t`;
    const add = (name: string, n: number) => {
      if (n > 0) counts.set(prefix + name, (counts.get(prefix + name) ?? 0) + n);
    };
    for (const [status, n] of this.statuses) add(outcomeOf(status), n);
    for (const [code, n] of this.refusals) add(`403:${code}`, n);
    for (let bucket = 0; bucket < BUCKETS; bucket++) add(`ms:${bucket}`, this.buckets[bucket]!);
    add("leads", this.leads);
    add("feed", this.feed);
    add("feed:304", this.feed304);
    add("feed:bytes", this.feedBytes);
  }
}

/**
 * The counter increments (keyed "client\tday\tname") and each client's latest request of a
 * batch. A request without a client (a refusal that named none) is in the log only.
 */
export function tallyOf(data: RequestColumnsData): {
  counts: Map<string, number>;
  lastSeen: Map<string, LastSeen>;
} {
  const tallies = new Map<number, DayTally>();
  const value = (ref: number) => data.values[data.refs[ref]!] ?? null;
  for (let i = 0; i < data.n; i++) {
    const refs = i * REFS;
    const client = value(refs);
    if (client === null) continue;
    const at = data.at[i]!;
    const status = data.status[i]!;
    // A day number stays below 2^16 until 2149, so client and day make one number.
    const dayNumber = Math.floor(at / DAY_MS);
    const key = data.refs[refs]! * 65_536 + dayNumber;
    let tally = tallies.get(key);
    if (tally === undefined) {
      tally = new DayTally(client, dayOf(dayNumber * DAY_MS));
      tallies.set(key, tally);
    }
    tally.statuses.set(status, (tally.statuses.get(status) ?? 0) + 1);
    if (status === 403) {
      const code = value(refs + 3);
      if (code !== null) tally.refusals.set(code, (tally.refusals.get(code) ?? 0) + 1);
    }
    tally.buckets[latencyBucket(data.ms[i]!)]!++;
    if (status === 201 && (data.flags[i]! & REPLAYED) === 0) {
      const route = value(refs + 2);
      if (route !== null && LEAD_ROUTES.has(`${value(refs + 1)} ${route}`)) tally.leads++;
    }
    if ((status === 200 || status === 304) && value(refs + 2) === FEED_ROUTE) {
      tally.feed++;
      if (status === 304) tally.feed304++;
      tally.feedBytes += data.feedBytes[i]!;
    }
    if (at >= tally.lastAt) {
      tally.lastAt = at;
      tally.lastIndex = i;
    }
  }
  const counts = new Map<string, number>();
  const lastSeen = new Map<string, LastSeen>();
  for (const tally of tallies.values()) {
    tally.addTo(counts);
    const seen = lastSeen.get(tally.client);
    if (seen === undefined || seen.at <= tally.lastAt) {
      const refs = tally.lastIndex * REFS;
      lastSeen.set(tally.client, { at: tally.lastAt, ip: value(refs + 4), route: value(refs + 2) });
    }
  }
  return { counts, lastSeen };
}
