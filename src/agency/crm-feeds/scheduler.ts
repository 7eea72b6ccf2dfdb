// The feeds' schedule in `serve` (docs/reference/behaviour-extensions.md §14): each feed runs at start and then every
// interval. The schedule and the lease live in the database (store.ts), so with several
// processes on one file (serve --workers, several hosts) each run is claimed by exactly one of
// them. What runs on the server's event loop is a timer per feed and a few short queries; the
// run itself happens elsewhere (`launch`: a child process), so a 100,000-listing feed costs the
// API no event-loop time.
import type { FeedSpec } from "../../config/model.ts";
import type { Tenant } from "../../db/tenants.ts";
import type { Logger } from "../../logging.ts";
import { feedLabel, LEASE_MS, leaseOwner, type RunReport, sourceOf } from "./run.ts";
import { claimRun, finishRun, leaseHeld, nextRunAt, readRun, requestRun } from "./store.ts";

/** A run under way elsewhere: its report when it ends, and how to stop it early. */
export interface Launched {
  done: Promise<RunReport>;
  stop(): void;
}

export interface SchedulerDeps {
  /** The feeds of the config in force (read again on reload). */
  feeds: () => readonly FeedSpec[];
  /** The server's connections to a database file; null when it cannot be opened now. */
  tenant: (path: string) => Tenant | null;
  /** Starts the run of a feed whose lease `owner` holds. */
  launch: (feed: FeedSpec, owner: string) => Launched;
  now: () => number;
  logger: Logger;
  /** Told of each run this process made, when it ends (the agency's run history). */
  onReport?: (feed: FeedSpec, report: RunReport, startedAt: number) => void;
}

/** What asking for a run now found. */
export type RunNow = "started" | "running" | "unknown";

/** A process starting (or reloading) beside another one that ran the feed this recently adds no run of its own. */
export const START_GRACE_MS = 30_000;
/** The schedule is read again at least this often: another process may have run the feed, or asked for a run. */
const RECHECK_MS = 60_000;
/** After a database error (busy past its timeout, read-only), the next look. */
const RETRY_MS = 10_000;

interface Slot {
  feed: FeedSpec;
  /** The next run this process makes applies the feed whatever its guard says (an admin applied a guarded run). */
  liftGuard: boolean;
  timer: ReturnType<typeof setTimeout> | null;
  running: Launched | null;
  /** The database could not be opened: said once, until it can. */
  unavailable: boolean;
}

export class FeedScheduler {
  private readonly slots = new Map<string, Slot>();
  private stopped = false;

  constructor(private readonly deps: SchedulerDeps) {}

  start(): void {
    for (const feed of this.deps.feeds()) this.add(feed);
  }

  /** Applies the feeds of a reloaded config: new ones start, removed ones stop being scheduled, changed sources run now. */
  reload(): void {
    const feeds = new Map(this.deps.feeds().map((feed) => [feed.id, feed]));
    for (const [id, slot] of this.slots) {
      if (feeds.has(id)) continue;
      // A run under way finishes; nothing more is scheduled.
      if (slot.timer !== null) clearTimeout(slot.timer);
      this.slots.delete(id);
    }
    for (const feed of feeds.values()) {
      const slot = this.slots.get(feed.id);
      if (slot === undefined) {
        this.add(feed);
        continue;
      }
      const moved = sourceOf(slot.feed) !== sourceOf(feed) || slot.feed.databasePath !== feed.databasePath;
      slot.feed = feed;
      if (moved) void this.request(slot).then(() => this.check(slot));
      else this.check(slot);
    }
  }

  /** Stops scheduling, and stops the runs under way (each records itself as stopped). */
  async stop(): Promise<void> {
    this.stopped = true;
    const running: Promise<RunReport>[] = [];
    for (const slot of this.slots.values()) {
      if (slot.timer !== null) clearTimeout(slot.timer);
      if (slot.running !== null) {
        slot.running.stop();
        running.push(slot.running.done);
      }
    }
    await Promise.allSettled(running);
  }

  /** Whether a run of `feedId` is under way in this process. */
  running(feedId: string): boolean {
    return this.slots.get(feedId)?.running != null;
  }

  /**
   * A run of `feedId` now, asked by an admin (docs/operators/console.md#crm-feeds); with
   * `liftGuard`, that run applies the feed even where its guard would refuse it.
   */
  async runNow(feedId: string, liftGuard = false): Promise<RunNow> {
    const slot = this.slots.get(feedId);
    if (slot === undefined) return "unknown";
    if (slot.running !== null) return "running";
    const tenant = this.tenantOf(slot);
    if (tenant === null) return "unknown";
    await tenant.writer.submit((db) => requestRun(db, feedId, sourceOf(slot.feed), this.deps.now(), 0));
    slot.liftGuard = liftGuard;
    if (slot.timer !== null) clearTimeout(slot.timer);
    await this.check(slot);
    return "started";
  }

  private add(feed: FeedSpec): void {
    const slot: Slot = { feed, timer: null, running: null, unavailable: false, liftGuard: false };
    this.slots.set(feed.id, slot);
    void this.request(slot).then(() => this.check(slot));
  }

  private async request(slot: Slot): Promise<void> {
    const tenant = this.tenantOf(slot);
    if (tenant === null) return;
    const { feed } = slot;
    try {
      await tenant.writer.submit((db) => requestRun(db, feed.id, sourceOf(feed), this.deps.now(), START_GRACE_MS));
    } catch (error) {
      this.deps.logger.warn(
        { ...feedLabel(feed), err: (error as Error).message },
        "feed run could not be scheduled; trying again",
      );
    }
  }

  private tenantOf(slot: Slot): Tenant | null {
    const tenant = this.deps.tenant(slot.feed.databasePath);
    if (tenant === null && !slot.unavailable) {
      this.deps.logger.warn(feedLabel(slot.feed), "feed's database cannot be opened: its runs wait until it can");
    }
    slot.unavailable = tenant === null;
    return tenant;
  }

  private arm(slot: Slot, inMs: number): void {
    if (this.stopped || this.slots.get(slot.feed.id) !== slot) return;
    if (slot.timer !== null) clearTimeout(slot.timer);
    slot.timer = setTimeout(() => void this.check(slot), Math.max(50, Math.min(inMs, RECHECK_MS)));
    slot.timer.unref?.();
  }

  /** Claims the run when it is due and free, else looks again when it will be. */
  private async check(slot: Slot): Promise<void> {
    if (this.stopped || slot.running !== null || this.slots.get(slot.feed.id) !== slot) return;
    slot.timer = null;
    const tenant = this.tenantOf(slot);
    if (tenant === null) return this.arm(slot, RECHECK_MS);
    const feed = slot.feed;
    const owner = leaseOwner(feed.id);
    try {
      const now = this.deps.now();
      const claimed = await tenant.writer.submit((db) =>
        claimRun(db, feed.id, sourceOf(feed), owner, now, LEASE_MS, feed.everyMs),
      );
      if (claimed) return this.launch(slot, tenant, owner);
      const run = readRun(tenant.read, feed.id);
      const later = this.deps.now();
      const due = nextRunAt(run, feed.everyMs, later);
      // Held by a live process: look again when its lease would run out (it is renewed while the run lasts).
      this.arm(slot, (leaseHeld(run, later) ? Math.max(due, run!.leaseUntil!) : due) - later);
    } catch (error) {
      this.deps.logger.warn(
        { ...feedLabel(feed), err: (error as Error).message },
        "feed schedule could not be read; trying again",
      );
      this.arm(slot, RETRY_MS);
    }
  }

  private launch(slot: Slot, tenant: Tenant, owner: string): void {
    const feed = slot.feed;
    this.deps.logger.info(feedLabel(feed), "feed run started");
    const startedAt = this.deps.now();
    const launched = this.deps.launch(slot.liftGuard ? { ...feed, maxUnpublishRatio: 1 } : feed, owner);
    slot.liftGuard = false;
    slot.running = launched;
    void launched.done
      .then(async (report) => {
        // A run whose process died could not record itself: its launcher's report is recorded here.
        if (!report.recorded) {
          const record = {
            outcome: report.outcome,
            finishedAt: this.deps.now(),
            error: report.error,
            summary: null,
            validators: null,
          };
          await tenant.writer.submit((db) => finishRun(db, feed.id, owner, record)).catch(() => false);
        }
        this.logReport(feed, report);
        this.deps.onReport?.(feed, report, startedAt);
      })
      .finally(() => {
        slot.running = null;
        void this.check(slot);
      });
  }

  private logReport(feed: FeedSpec, report: RunReport): void {
    const line = {
      ...feedLabel(feed),
      outcome: report.outcome,
      durationMs: Math.round(report.durationMs),
      ...(report.summary ? { summary: report.summary } : {}),
    };
    if (report.outcome === "success" || report.outcome === "not_modified")
      this.deps.logger.info(line, "feed run finished");
    else
      this.deps.logger.warn(
        { ...line, reason: report.error },
        `feed run ${report.outcome}; tried again at the next interval`,
      );
  }
}
