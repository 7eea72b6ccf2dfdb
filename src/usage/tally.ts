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

/** One client's figures of one day within a batch. */
class DayTally {
  /** Requests per outcome ("2xx", "401"…) and per refusal code ("403:IP_NOT_ALLOWED"). */
  readonly names = new Map<string, number>();
  /** Requests per latency bucket. */
  readonly buckets = new Map<number, number>();
  leads = 0;
  feed = 0;
  feed304 = 0;
  feedBytes = 0;

  constructor(
    readonly client: string,
    readonly day: string,
  ) {}

  count(name: string): void {
    this.names.set(name, (this.names.get(name) ?? 0) + 1);
  }

  /** Adds the tally to `counts` under the control database's keys, "client\tday\tname". */
  addTo(counts: Map<string, number>): void {
    const prefix = `${this.client}\t${this.day}\t`;
    const add = (name: string, n: number) => {
      if (n > 0) counts.set(prefix + name, (counts.get(prefix + name) ?? 0) + n);
    };
    for (const [name, n] of this.names) add(name, n);
    for (const [bucket, n] of this.buckets) add(`ms:${bucket}`, n);
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
  const lastSeen = new Map<string, LastSeen>();
  const value = (ref: number) => data.values[data.refs[ref]!] ?? null;
  for (let i = 0; i < data.n; i++) {
    const refs = i * REFS;
    const client = value(refs);
    if (client === null) continue;
    const at = data.at[i]!;
    const status = data.status[i]!;
    const route = value(refs + 2);
    // A day number stays below 2^16 until 2149, so client and day make one number.
    const dayNumber = Math.floor(at / DAY_MS);
    const key = data.refs[refs]! * 65_536 + dayNumber;
    let tally = tallies.get(key);
    if (tally === undefined) {
      tally = new DayTally(client, dayOf(dayNumber * DAY_MS));
      tallies.set(key, tally);
    }
    const outcome = outcomeOf(status);
    tally.count(outcome);
    const code = value(refs + 3);
    if (outcome === "403" && code !== null) tally.count(`403:${code}`);
    const bucket = latencyBucket(data.ms[i]!);
    tally.buckets.set(bucket, (tally.buckets.get(bucket) ?? 0) + 1);
    const replayed = (data.flags[i]! & REPLAYED) !== 0;
    if (status === 201 && !replayed && route !== null && LEAD_ROUTES.has(`${value(refs + 1)} ${route}`)) tally.leads++;
    if (route === FEED_ROUTE && (status === 200 || status === 304)) {
      tally.feed++;
      if (status === 304) tally.feed304++;
      tally.feedBytes += data.feedBytes[i]!;
    }
    const seen = lastSeen.get(client);
    const ip = value(refs + 4);
    if (seen === undefined) lastSeen.set(client, { at, ip, route });
    else if (seen.at <= at) {
      seen.at = at;
      seen.ip = ip;
      seen.route = route;
    }
  }
  const counts = new Map<string, number>();
  for (const tally of tallies.values()) tally.addTo(counts);
  return { counts, lastSeen };
}
