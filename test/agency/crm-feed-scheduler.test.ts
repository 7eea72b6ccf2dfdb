// The feeds' schedule in serve: a run at start and then every interval, never two runs of one
// feed at once, one run per interval across processes sharing a database, SIGHUP's changes,
// a run whose process died recorded as failed, the log line of a guarded or failed run, and
// stopping. Runs go through the real run path in this process (the child process is the e2e
// test's); intervals are shortened to milliseconds, which the config would refuse.
import { afterAll, describe, expect, test } from "bun:test";
import pino from "pino";
import { type RunReport, runHere } from "../../src/agency/crm-feeds/run.ts";
import { FeedScheduler, type Launched } from "../../src/agency/crm-feeds/scheduler.ts";
import { readRun } from "../../src/agency/crm-feeds/store.ts";
import { wallClock } from "../../src/clock.ts";
import type { FeedSpec } from "../../src/config/model.ts";
import { closeDatabase, openExistingDatabase } from "../../src/db/open.ts";
import { TenantRegistry } from "../../src/db/tenants.ts";
import { type Logger, silentLogger } from "../../src/logging.ts";
import { emptyDatabase, feedSpec, listing, startFeedServer } from "./crm-feed-server.ts";
import { publishedProperties, tempDir } from "./helpers.ts";

const dir = tempDir();
const crm = startFeedServer();
crm.set(["A", "B"].map((code) => listing(code)));
afterAll(() => {
  crm.stop();
  dir.cleanup();
});

let counter = 0;

/** One simulated `serve` process: its own connections, a scheduler, and a log of the runs it launched. */
function process_(
  feeds: () => readonly FeedSpec[],
  options: { slowMs?: number; crash?: boolean; logger?: Logger } = {},
) {
  const tenants = new TenantRegistry(wallClock);
  const runs: {
    feed: string;
    /** When the scheduler claimed the run (the start the schedule spaces), and when it was launched. */
    claimedAt: number;
    start: number;
    end: number | null;
    report: RunReport | null;
  }[] = [];
  let active = 0;
  let maxActive = 0;
  const launch = (feed: FeedSpec, owner: string): Launched => {
    const claimed = tenants
      .get(feed.databasePath)!
      .read.query<{ at: number }, [string]>("SELECT last_started_at AS at FROM feed_runs WHERE feed_id = ?")
      .get(feed.id)!;
    const entry = {
      feed: feed.id,
      claimedAt: claimed.at,
      start: Date.now(),
      end: null as number | null,
      report: null as RunReport | null,
    };
    runs.push(entry);
    maxActive = Math.max(maxActive, ++active);
    const controller = new AbortController();
    const done = (async (): Promise<RunReport> => {
      await Bun.sleep(options.slowMs ?? 0);
      const report: RunReport = options.crash
        ? {
            feed: feed.id,
            outcome: "failed",
            error: "the run's process ended (SIGKILL) before reporting",
            summary: null,
            durationMs: 1,
            recorded: false,
          }
        : ((await runHere(feed, { owner, claim: false, signal: controller.signal })) as RunReport);
      entry.end = Date.now();
      entry.report = report;
      active--;
      return report;
    })();
    return { done, stop: () => controller.abort(new Error("stopping")) };
  };
  const scheduler = new FeedScheduler({
    feeds,
    tenant: (path) => tenants.get(path),
    launch,
    now: () => Date.now(),
    logger: options.logger ?? silentLogger(),
  });
  return {
    scheduler,
    runs,
    maxActive: () => maxActive,
    async close() {
      await scheduler.stop();
      tenants.closeAll();
    },
  };
}

function stateOf(db: string, id = "crm") {
  const conn = openExistingDatabase(db);
  try {
    return readRun(conn, id);
  } finally {
    closeDatabase(conn);
  }
}

async function until(what: string, check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(10);
  }
}

describe("the schedule", () => {
  test("a run at start, then every interval; a run longer than the interval is never joined by a second", async () => {
    const db = emptyDatabase(dir.path(`s-${++counter}.sqlite`));
    const feed = feedSpec(db, crm.url(), { everyMs: 150 });
    const serve = process_(() => [feed], { slowMs: 300 });
    serve.scheduler.start();
    await until("the first run", () => serve.runs.length >= 1);
    await until("three runs", () => serve.runs.filter((r) => r.end !== null).length >= 3);
    await serve.close();
    expect(serve.maxActive()).toBe(1);
    for (let i = 1; i < serve.runs.length; i++)
      expect(serve.runs[i]!.start).toBeGreaterThanOrEqual(serve.runs[i - 1]!.end!);
    expect(serve.runs[0]!.report).toMatchObject({ outcome: "success", summary: { created: 2 } });
    expect(serve.runs[1]!.report).toMatchObject({ outcome: "not_modified" });
    expect(
      publishedProperties(db)
        .map((p) => p.code)
        .sort(),
    ).toEqual(["A", "B"]);
  });

  test("two processes on one database: one run per interval, not two, and never at once", async () => {
    const db = emptyDatabase(dir.path(`s-${++counter}.sqlite`));
    const feed = feedSpec(db, crm.url(), { everyMs: 400 });
    const a = process_(() => [feed], { slowMs: 50 });
    const b = process_(() => [feed], { slowMs: 50 });
    a.scheduler.start();
    b.scheduler.start();
    await Bun.sleep(1_500);
    await Promise.all([a.close(), b.close()]);
    const all = [...a.runs, ...b.runs].sort((x, y) => x.start - y.start);
    // At start, then at 400, 800 and 1200 ms: four runs in 1.5 s, one process each time.
    expect(all.length).toBeGreaterThanOrEqual(3);
    expect(all.length).toBeLessThanOrEqual(4);
    for (let i = 1; i < all.length; i++) {
      expect(all[i]!.start).toBeGreaterThanOrEqual(all[i - 1]!.end!);
      // The interval spaces the claims; a launch follows its claim a moment later, by however
      // long the process waited for the core (on a busy machine, a few ms more or less each time).
      expect(all[i]!.claimedAt - all[i - 1]!.claimedAt).toBeGreaterThanOrEqual(400);
    }
  });

  test("SIGHUP's changes: a feed whose URL changed runs at once, a new feed starts, a removed one stops", async () => {
    const db = emptyDatabase(dir.path(`s-${++counter}.sqlite`));
    crm.set([listing("C")], "/second.xml");
    let feeds: FeedSpec[] = [feedSpec(db, crm.url(), { everyMs: 60_000, mode: "partial" })];
    const serve = process_(() => feeds);
    serve.scheduler.start();
    await until("the run at start", () => serve.runs.some((r) => r.end !== null));
    feeds = [
      feedSpec(db, `${crm.url()}?v=2`, { everyMs: 60_000, mode: "partial" }),
      feedSpec(db, crm.url("/second.xml"), { id: "site", everyMs: 60_000, mode: "partial" }),
    ];
    serve.scheduler.reload();
    await until("the changed and the new feed's runs", () => serve.runs.filter((r) => r.end !== null).length === 3);
    expect(serve.runs.map((r) => r.feed).sort()).toEqual(["crm", "crm", "site"]);
    expect(crm.requests.some((r) => r.path === "/feed.xml")).toBe(true);
    feeds = [feeds[1]!];
    serve.scheduler.reload();
    await Bun.sleep(200);
    await serve.close();
    expect(serve.runs).toHaveLength(3);
    expect(
      publishedProperties(db)
        .map((p) => p.code)
        .sort(),
    ).toEqual(["A", "B", "C"]);
  });

  test("a run whose process died is recorded as failed with the reason, and its lease released", async () => {
    const db = emptyDatabase(dir.path(`s-${++counter}.sqlite`));
    const serve = process_(() => [feedSpec(db, crm.url(), { everyMs: 60_000 })], { crash: true });
    serve.scheduler.start();
    await until("the recorded failure", () => stateOf(db)?.lastOutcome === "failed");
    await serve.close();
    expect(stateOf(db)).toMatchObject({
      lastError: "the run's process ended (SIGKILL) before reporting",
      leaseOwner: null,
    });
  });

  test("a guarded and a failed run each log their line with the reason, warn level; no line carries the feed's headers", async () => {
    const lines: Record<string, unknown>[] = [];
    // Plain pino, without the server's redaction: a header anywhere in a line would show.
    const logger = pino({ base: undefined }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    const db = emptyDatabase(dir.path(`s-${++counter}.sqlite`));
    const path = "/logged.xml";
    crm.set(
      ["A", "B", "C"].map((code) => listing(code)),
      path,
    );
    const feed = feedSpec(db, crm.url(path), { everyMs: 100 });
    const serve = process_(() => [feed], { logger });
    const ended = (msg: string) => lines.filter((l) => l.msg === msg);
    try {
      serve.scheduler.start();
      await until("the first run", () => ended("feed run finished").length === 1);
      crm.set([listing("A")], path);
      await until("a guarded run", () => ended("feed run guarded; tried again at the next interval").length >= 1);
      crm.behaviour = "error";
      await until("a failed run", () => ended("feed run failed; tried again at the next interval").length >= 1);
    } finally {
      crm.behaviour = "ok";
      await serve.close();
    }
    const label = { feed: "crm", database: "agency", url: crm.url(path) };
    expect(ended("feed run guarded; tried again at the next interval")[0]).toMatchObject({
      level: 40,
      ...label,
      outcome: "guarded",
      reason:
        "the feed would unpublish 2 of the 3 published listings (66.7 %), more than maxUnpublishRatio allows (50 %); nothing was changed",
    });
    expect(ended("feed run failed; tried again at the next interval")[0]).toMatchObject({
      level: 40,
      ...label,
      outcome: "failed",
      reason: `cannot fetch ${crm.url(path)}: HTTP 500 Internal Server Error`,
    });
    const text = JSON.stringify(lines);
    expect(text).not.toContain(feed.headers.Authorization!.slice("Bearer ".length));
    expect(text.toLowerCase()).not.toContain("authorization");
    expect(
      publishedProperties(db)
        .map((p) => p.code)
        .sort(),
    ).toEqual(["A", "B", "C"]);
  });

  test("stop() stops a run under way, which records itself as stopped", async () => {
    const db = emptyDatabase(dir.path(`s-${++counter}.sqlite`));
    crm.behaviour = "slow";
    try {
      const serve = process_(() => [feedSpec(db, crm.url(), { everyMs: 60_000 })]);
      serve.scheduler.start();
      await until("the run under way", () => serve.runs.length === 1);
      await Bun.sleep(100);
      await serve.close();
      expect(serve.runs[0]!.report).toMatchObject({ outcome: "failed", recorded: true });
      expect(serve.runs[0]!.report!.error).toContain("the download was stopped");
    } finally {
      crm.behaviour = "ok";
    }
  });
});
