// Recording what the agency sees (docs/operators/console.md#how-it-is-recorded). Each finished
// request is added to this process's batch, in memory, at the cost of a few map updates and a
// row of columns (columns.ts); a timer hands the batch to the writer thread (writer-thread.ts),
// which writes it to the control database in one transaction, off the event loop. Every process
// of the server writes the same file, so the figures read there are the server's. Only what the
// request log shows is kept: the route template, never the path's values, the query string or a
// body.

import type { AttemptRow, FeedRunRow, LastSeen, RequestLogFilter, RequestLogRow } from "../db/control/usage.ts";
import { runsCompiled } from "../executable.ts";
import { type LoggedRequest, RequestColumns } from "./columns.ts";
import { latencyBucket } from "./latency.ts";
import type { WriterMessage, WriterReport } from "./protocol.ts";
import { USAGE_DAYS_KEPT, USAGE_FLUSH_EVERY_MS } from "./settings.ts";

/** The writer thread's code: in the executable, an entry point of the build (scripts/build.ts). */
const WRITER_CODE = runsCompiled
  ? "/$bunfs/root/usage/writer-thread.js"
  : new URL("./writer-thread.ts", import.meta.url).href;

export interface FinishedRequest extends LoggedRequest {
  /** An Idempotency-Key replay: no new lead. */
  replayed: boolean;
  /** Body bytes of a portal feed sent. */
  feedBytes?: number;
}

/** Routes that make a lead when they answer 201. */
const LEAD_ROUTES = new Set(["POST /v1/leads", "POST /v1/inbound/:clientId"]);
const FEED_ROUTE = "/v1/feeds/vrsync.xml";
/**
 * What is not recorded: the agency's own console and admin API, and the probes and scrapes of
 * its own infrastructure (a health check every few seconds would push partners out of the log).
 */
const NOT_RECORDED = /^\/(admin|console|health|metrics)(\/|$)/;
/** Rows waiting at most: past it (the file locked for long) the newest are dropped. */
const PENDING_AT_MOST = 100_000;
const DAY_MS = 86_400_000;

/** The outcome a status counts under, as the usage route names them. */
export function outcomeOf(status: number): string {
  if (status >= 200 && status < 300) return "2xx";
  if (status >= 300 && status < 400) return "3xx";
  if (status === 401 || status === 403 || status === 404 || status === 429) return String(status);
  if (status >= 500) return "5xx";
  return "4xx";
}

export function dayOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/**
 * One client's figures of one day, as a batch tallies them between two flushes: plain fields and
 * maps keyed by constants or numbers, so a request costs no string building (the counters' keys of
 * the control database, "client\tday\tname", are written once per flush instead).
 */
class Tally {
  /** Requests per outcome ("2xx", "401"…) and per refusal code ("403:IP_NOT_ALLOWED"). */
  readonly names = new Map<string, number>();
  /** Requests per latency bucket. */
  readonly buckets = new Map<number, number>();
  leads = 0;
  feed = 0;
  feed304 = 0;
  feedBytes = 0;

  constructor(readonly day: string) {}

  count(name: string): void {
    this.names.set(name, (this.names.get(name) ?? 0) + 1);
  }

  /** Adds the tally to `counts` under the control database's keys. */
  addTo(counts: Map<string, number>, client: string): void {
    const prefix = `${client}\t${this.day}\t`;
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

export class UsageRecorder {
  /** Counters of days a client's tally has moved on from, keyed as the control database keys them. */
  private counts = new Map<string, number>();
  /** Each client's tally of the current day. */
  private tallies = new Map<string, Tally>();
  /** Each client's latest request of the batch. */
  private lastSeen = new Map<string, LastSeen>();
  /** The batch's requests for the log. */
  private readonly requests = new RequestColumns();
  private attempts: AttemptRow[] = [];
  private feedRuns: FeedRunRow[] = [];
  private dayStart = 0;
  private day = "";
  private timer: ReturnType<typeof setInterval> | null = null;
  private forgotten = "";
  private readonly writer: Worker;
  private seq = 0;
  private readonly waiting: { seq: number; resolve: () => void }[] = [];
  private readonly pages = new Map<
    number,
    { resolve: (page: { rows: RequestLogRow[]; total: number }) => void; reject: (error: Error) => void }
  >();
  private pageId = 0;
  private failing = false;
  /** Requests not recorded because the batch was full. */
  dropped = 0;

  constructor(
    path: string,
    private readonly options: {
      /** Whether requests are recorded (the config's usage.record); attempts and feed runs always are. */
      requests: boolean;
      logRows: () => number;
      now: () => number;
      onError: (message: string) => void;
      flushEveryMs?: number;
      /** How long a batch waits for another process's (default 5 s). */
      busyTimeoutMs?: number;
    },
  ) {
    this.writer = new Worker(WRITER_CODE);
    this.writer.unref(); // never what keeps a process alive
    this.writer.onmessage = (event: MessageEvent<WriterReport>) => this.reported(event.data);
    this.writer.onerror = (event) => this.options.onError(`usage writer thread: ${event.message}`);
    this.writer.postMessage({
      open: { path, busyTimeoutMs: options.busyTimeoutMs ?? 5000 },
    } satisfies WriterMessage);
  }

  private reported(report: WriterReport): void {
    if ("page" in report) {
      const asked = this.pages.get(report.page);
      this.pages.delete(report.page);
      if ("error" in report) asked?.reject(new Error(report.error));
      else asked?.resolve({ rows: report.rows, total: report.total });
      return;
    }
    if ("failed" in report) {
      // Said once until a batch is written again: a locked file is retried every second.
      if (!this.failing) this.options.onError(`writing usage figures failed, kept for the next try: ${report.error}`);
      this.failing = true;
    } else this.failing = false;
    const seq = "failed" in report ? report.failed : report.written;
    while (this.waiting.length > 0 && this.waiting[0]!.seq <= seq) this.waiting.shift()!.resolve();
  }

  start(): void {
    this.timer = setInterval(() => void this.flush(), this.options.flushEveryMs ?? USAGE_FLUSH_EVERY_MS);
    this.timer.unref();
  }

  /** Whether finished requests are recorded (usage.record); the caller skips building them when not. */
  get recordsRequests(): boolean {
    return this.options.requests;
  }

  /** A webhook delivery's attempt, written with the next batch. */
  attempt(a: AttemptRow): void {
    if (this.attempts.length < PENDING_AT_MOST) this.attempts.push(a);
  }

  /** A CRM feed's run, written with the next batch. */
  feedRun(run: FeedRunRow): void {
    this.feedRuns.push(run);
  }

  observe(r: FinishedRequest): void {
    if (!this.options.requests) return;
    if (r.route !== null && NOT_RECORDED.test(r.route)) return;
    if (this.requests.n >= PENDING_AT_MOST) {
      this.dropped++;
      return;
    }
    this.requests.add(r);
    if (r.clientId === null) return;
    if (r.at < this.dayStart || r.at >= this.dayStart + DAY_MS) {
      this.dayStart = r.at - (r.at % DAY_MS);
      this.day = dayOf(r.at);
    }
    let tally = this.tallies.get(r.clientId);
    if (tally === undefined || tally.day !== this.day) {
      tally?.addTo(this.counts, r.clientId);
      tally = new Tally(this.day);
      this.tallies.set(r.clientId, tally);
    }
    const outcome = outcomeOf(r.status);
    tally.count(outcome);
    if (outcome === "403" && r.code !== null) tally.count(`403:${r.code}`);
    const bucket = latencyBucket(r.ms);
    tally.buckets.set(bucket, (tally.buckets.get(bucket) ?? 0) + 1);
    if (r.status === 201 && !r.replayed && r.route !== null && LEAD_ROUTES.has(`${r.method} ${r.route}`)) tally.leads++;
    if (r.route === FEED_ROUTE && (r.status === 200 || r.status === 304)) {
      tally.feed++;
      if (r.status === 304) tally.feed304++;
      if (r.feedBytes !== undefined && r.feedBytes > 0) tally.feedBytes += r.feedBytes;
    }
    // Updated in place: the batch's map is new at each flush, and a request allocates nothing here.
    const seen = this.lastSeen.get(r.clientId);
    if (seen === undefined) this.lastSeen.set(r.clientId, { at: r.at, ip: r.ip, route: r.route });
    else if (seen.at <= r.at) {
      seen.at = r.at;
      seen.ip = r.ip;
      seen.route = r.route;
    }
  }

  /**
   * Hands what was recorded since the last time to the writer thread; settles once it is written
   * (or, the file refusing it, kept there for the next try).
   */
  flush(): Promise<void> {
    for (const [client, tally] of this.tallies) tally.addTo(this.counts, client);
    this.tallies.clear();
    const today = dayOf(this.options.now());
    const empty =
      this.requests.n === 0 && this.counts.size === 0 && this.attempts.length === 0 && this.feedRuns.length === 0;
    // A batch the file refused waits in the thread: an empty one behind it settles once it is written.
    if (empty && this.forgotten === today && !this.failing) return this.lastWritten();
    const forgetBefore = this.forgotten === today ? null : dayOf(this.options.now() - USAGE_DAYS_KEPT * DAY_MS);
    this.forgotten = today;
    const seq = ++this.seq;
    const message: WriterMessage = {
      batch: {
        seq,
        counts: [...this.counts],
        lastSeen: [...this.lastSeen],
        log: this.requests.take(),
        attempts: this.attempts,
        feedRuns: this.feedRuns,
        logRows: this.options.logRows(),
        forgetBefore,
      },
    };
    this.counts = new Map();
    this.lastSeen = new Map();
    this.attempts = [];
    this.feedRuns = [];
    const written = new Promise<void>((resolve) => this.waiting.push({ seq, resolve }));
    this.writer.postMessage(message);
    return written;
  }

  /** Settles when every batch handed over so far is written (or kept for another try). */
  private lastWritten(): Promise<void> {
    const last = this.waiting.at(-1);
    if (last === undefined) return Promise.resolve();
    return new Promise<void>((resolve) => this.waiting.push({ seq: last.seq, resolve }));
  }

  /**
   * A page of the request log, newest first, read by the writer thread: a page decodes the kept
   * batches (200,000 requests by default, a few hundred milliseconds), which the event loop must
   * not spend. It comes after the batches handed over before it.
   */
  requestPage(
    filter: RequestLogFilter,
    limit: number,
    offset: number,
  ): Promise<{ rows: RequestLogRow[]; total: number }> {
    const id = ++this.pageId;
    return new Promise((resolve, reject) => {
      this.pages.set(id, { resolve, reject });
      this.writer.postMessage({
        page: { id, filter, limit, offset, kept: this.options.logRows() },
      } satisfies WriterMessage);
    });
  }

  /** Stops the timer, hands over what is left, and lets the thread write it before it ends. */
  async close(): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    const written = this.flush();
    await Promise.race([written, Bun.sleep(2000)]);
    this.writer.terminate();
  }
}
