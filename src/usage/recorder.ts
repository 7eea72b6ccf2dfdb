// Recording what the agency sees (docs/operators/console.md#how-it-is-recorded). Each finished
// request is added to this process's batch, in memory, as a row of columns (columns.ts); a timer
// hands the batch to the writer thread (writer-thread.ts), which tallies the counters from it
// (tally.ts) and writes both to the control database in one transaction, off the event loop.
// Every process of the server writes the same file, so the figures read there are the server's.
// Only what the request log shows is kept: the route template, never the path's values, the
// query string or a body.

import type { RequestLogRow } from "../db/control/request-log.ts";
import type { AttemptRow, FeedRunRow, RequestLogFilter } from "../db/control/usage.ts";
import { runsCompiled } from "../executable.ts";
import { type FinishedRequest, RequestColumns } from "./columns.ts";
import type { WriterMessage, WriterReport } from "./protocol.ts";
import { USAGE_DAYS_KEPT, USAGE_FLUSH_EVERY_MS } from "./settings.ts";
import { dayOf } from "./tally.ts";

export type { FinishedRequest };

/** The writer thread's code: in the executable, an entry point of the build (scripts/build.ts). */
const WRITER_CODE = runsCompiled
  ? "/$bunfs/root/usage/writer-thread.js"
  : new URL("./writer-thread.ts", import.meta.url).href;

/**
 * What is not recorded: the agency's own console and admin API, and the probes and scrapes of
 * its own infrastructure (a health check every few seconds would push partners out of the log).
 */
const NOT_RECORDED = /^\/(admin|console|health|metrics)(\/|$)/;
/** Rows waiting at most: past it (the file locked for long) the newest are dropped. */
const PENDING_AT_MOST = 100_000;
const DAY_MS = 86_400_000;

export class UsageRecorder {
  /** The batch's requests, for the counters and the log. */
  private readonly requests = new RequestColumns();
  private attempts: AttemptRow[] = [];
  private feedRuns: FeedRunRow[] = [];
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
  /** Resolves close()'s wait once the thread has closed its connection. */
  private closed: (() => void) | null = null;
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
    if ("closed" in report) {
      this.closed?.();
      return;
    }
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
  }

  /**
   * Hands what was recorded since the last time to the writer thread; settles once it is written
   * (or, the file refusing it, kept there for the next try).
   */
  flush(): Promise<void> {
    const today = dayOf(this.options.now());
    const empty = this.requests.n === 0 && this.attempts.length === 0 && this.feedRuns.length === 0;
    // A batch the file refused waits in the thread: an empty one behind it settles once it is written.
    if (empty && this.forgotten === today && !this.failing) return this.lastWritten();
    const forgetBefore = this.forgotten === today ? null : dayOf(this.options.now() - USAGE_DAYS_KEPT * DAY_MS);
    this.forgotten = today;
    const seq = ++this.seq;
    const { data, transfer } = this.requests.take();
    const message: WriterMessage = {
      batch: {
        seq,
        requests: data,
        attempts: this.attempts,
        feedRuns: this.feedRuns,
        logRows: this.options.logRows(),
        forgetBefore,
      },
    };
    this.attempts = [];
    this.feedRuns = [];
    const written = new Promise<void>((resolve) => this.waiting.push({ seq, resolve }));
    this.writer.postMessage(message, transfer);
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

  /** Stops the timer, hands over what is left, lets the thread write it and close its connection, then ends it. */
  async close(): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    const written = this.flush();
    await Promise.race([written, Bun.sleep(2000)]);
    const closed = new Promise<void>((resolve) => {
      this.closed = resolve;
    });
    this.writer.postMessage({ close: true } satisfies WriterMessage);
    await Promise.race([closed, Bun.sleep(1000)]);
    this.writer.terminate();
  }
}
