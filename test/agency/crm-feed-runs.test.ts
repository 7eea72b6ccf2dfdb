// One run of a scheduled feed (docs/reference/behaviour-extensions.md §14) against a real local feed server: the import's
// own result, conditional requests, every guard and failure changing nothing, the outcome
// recorded in the database, and the lease that gives each run to one process.
import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { type Busy, leaseOwner, type RunReport, runClaimedFeed, runHere } from "../../src/agency/crm-feeds/run.ts";
import { claimRun, readRun, renewLease, requestRun, runSummary } from "../../src/agency/crm-feeds/store.ts";
import { importFeed } from "../../src/agency/import.ts";
import { closeDatabase, openExistingDatabase } from "../../src/db/open.ts";
import { emptyDatabase, feedSpec, listing, startFeedServer } from "./crm-feed-server.ts";
import { lastSequence, propertyChanges, publishedProperties, tempDir } from "./helpers.ts";

const dir = tempDir();
const crm = startFeedServer();
afterAll(() => {
  crm.stop();
  dir.cleanup();
});

let counter = 0;
let db: string;
beforeEach(() => {
  db = emptyDatabase(dir.path(`runs-${++counter}.sqlite`));
  crm.behaviour = "ok";
  crm.set(["A", "B", "C", "D"].map((code) => listing(code)));
});

const codes = (path: string) =>
  publishedProperties(path)
    .map((p) => p.code)
    .sort();

async function run(spec = feedSpec(db, crm.url())): Promise<RunReport> {
  const result = await runHere(spec, { owner: leaseOwner("test"), claim: true });
  if ("busy" in result) throw new Error("unexpectedly busy");
  return result;
}

describe("a run applies the feed as import does", () => {
  test("a first run creates every listing, records success with its summary, and the change feed says upsert for each", async () => {
    const report = await run();
    expect(report).toMatchObject({ feed: "crm", outcome: "success", error: null, recorded: true });
    expect(report.summary).toEqual({
      created: 4,
      updated: 0,
      unchanged: 0,
      unpublished: 0,
      rejected: 0,
      warnings: {},
      rejections: [],
    });
    expect(codes(db)).toEqual(["A", "B", "C", "D"]);
    expect(propertyChanges(db).map((c) => c.change)).toEqual(["upsert", "upsert", "upsert", "upsert"]);
    const state = readRunOf(db);
    expect(state).toMatchObject({
      lastOutcome: "success",
      lastError: null,
      leaseOwner: null,
      leaseUntil: null,
      lastSummary: report.summary,
    });
    expect(state.etag).toMatch(/^"/);
    expect(state.lastSuccessAt).toBe(state.lastFinishedAt);
    expect(crm.requests.at(-1)!.headers.authorization).toBe("Bearer crm-s3cret");
  });

  test("the summary is the one `import` gives for the same feed into the same data", async () => {
    const viaImport = dir.path(`import-${counter}.sqlite`);
    emptyDatabase(viaImport);
    const imported = await importFeed(viaImport, crm.url());
    expect((await run()).summary).toEqual(runSummary(imported));
  });

  test("unchanged, the feed is asked for conditionally and the 304 changes nothing; the last summary stays", async () => {
    const first = await run();
    const sequence = lastSequence(db);
    const firstSuccessAt = readRunOf(db).lastSuccessAt!;
    await Bun.sleep(5);
    const second = await run();
    expect(second).toMatchObject({ outcome: "not_modified", summary: null, recorded: true });
    expect(crm.requests.at(-1)!.headers["if-none-match"]).toBe(readRunOf(db).etag!);
    expect(crm.requests.at(-1)!.headers["if-modified-since"]).toBe(new Date(Date.UTC(2026, 5, 1)).toUTCString());
    expect(lastSequence(db)).toBe(sequence);
    expect(readRunOf(db)).toMatchObject({ lastOutcome: "not_modified", lastSummary: first.summary });
    // The 304 confirmed the data current: it is the last success (an unchanged feed is not stale).
    const state = readRunOf(db);
    expect(state.lastSuccessAt).toBe(state.lastFinishedAt);
    expect(state.lastSuccessAt).toBeGreaterThan(firstSuccessAt);
  });

  test("a changed feed: the edited listing is updated, the one gone unpublished, and the change feed says so", async () => {
    await run();
    const sequence = lastSequence(db);
    crm.set([listing("A", "Título novo"), listing("B"), listing("C"), listing("E")]);
    const report = await run();
    expect(report.summary).toMatchObject({ created: 1, updated: 1, unchanged: 2, unpublished: 1 });
    expect(codes(db)).toEqual(["A", "B", "C", "E"]);
    const changes = propertyChanges(db, sequence);
    expect(changes.map((c) => c.change).sort()).toEqual(["remove", "upsert", "upsert"]);
  });

  test("a partial feed unpublishes nothing", async () => {
    await run();
    crm.set([listing("A", "Só este")]);
    const report = await run(feedSpec(db, crm.url(), { mode: "partial" }));
    expect(report.summary).toMatchObject({ updated: 1, unpublished: 0 });
    expect(codes(db)).toEqual(["A", "B", "C", "D"]);
  });

  test("the validators belong to a URL and mode: another URL is asked for unconditionally", async () => {
    await run();
    crm.set(
      ["A", "B", "C", "D"].map((code) => listing(code)),
      "/other.xml",
    );
    const report = await run(feedSpec(db, crm.url("/other.xml")));
    expect(report.outcome).toBe("success");
    expect(crm.requests.at(-1)!.headers["if-none-match"]).toBeUndefined();
  });
});

describe("guards and failures change nothing, are recorded with the reason, and leave the feed to the next run", () => {
  async function failsWithNothingChanged(
    prepare: () => void,
    spec = () => feedSpec(db, crm.url()),
  ): Promise<RunReport> {
    const first = await run();
    const sequence = lastSequence(db);
    const before = JSON.stringify(publishedProperties(db));
    prepare();
    const report = await run(spec());
    expect(report.recorded).toBe(true);
    expect(lastSequence(db)).toBe(sequence);
    expect(JSON.stringify(publishedProperties(db))).toBe(before);
    const state = readRunOf(db);
    expect(state).toMatchObject({
      lastOutcome: report.outcome,
      lastError: report.error,
      leaseOwner: null,
      lastSummary: first.summary,
    });
    expect(state.lastSuccessAt).toBeLessThan(state.lastFinishedAt!);
    return report;
  }

  test("a download error (HTTP 500)", async () => {
    const report = await failsWithNothingChanged(() => (crm.behaviour = "error"));
    expect(report).toMatchObject({
      outcome: "failed",
      error: `cannot fetch ${crm.url()}: HTTP 500 Internal Server Error`,
    });
  });

  test("a feed that does not parse", async () => {
    crm.set(["A", "B", "C", "D", "E"].map((code) => listing(code)));
    const report = await failsWithNothingChanged(() => (crm.behaviour = "malformed"));
    expect(report.outcome).toBe("failed");
    expect(report.error).toMatch(/^malformed XML at line \d+, column \d+/);
  });

  test("a body cut short", async () => {
    crm.set(Array.from({ length: 50 }, (_, i) => listing(`T-${i}`)));
    const report = await failsWithNothingChanged(() => (crm.behaviour = "truncated"));
    expect(report.outcome).toBe("failed");
    // Cut short while the body streams, or (headers, half a body and the close in one packet)
    // before fetch() has handed the answer over: a failure either way.
    expect(report.error).toMatch(
      /^cannot fetch \S+: (the download was cut short after \d+ bytes|.*closed unexpectedly)/,
    );
  });

  test("a server slower than the feed's timeout", async () => {
    const report = await failsWithNothingChanged(
      () => (crm.behaviour = "slow"),
      () => feedSpec(db, crm.url(), { timeoutMs: 500 }),
    );
    expect(report).toMatchObject({
      outcome: "failed",
      error: `cannot fetch ${crm.url()}: the download took longer than its time limit (0.5 s)`,
    });
  });

  test("a full run that would unpublish more than maxUnpublishRatio of the published listings is guarded", async () => {
    const report = await failsWithNothingChanged(() => crm.set([listing("A")]));
    expect(report).toMatchObject({
      outcome: "guarded",
      error:
        "the feed would unpublish 3 of the 4 published listings (75 %), more than maxUnpublishRatio allows (50 %); nothing was changed",
    });
    // Not a success: the next run downloads the whole feed again rather than trusting a 304.
    crm.set(["A", "B", "C", "D"].map((code) => listing(code)));
    await run();
    expect(crm.requests.at(-1)!.headers["if-none-match"]).toBe(readRunOf(db).etag!);
  });

  test("a ratio of 1 lets the agency take everything but one listing down", async () => {
    await run();
    crm.set([listing("A")]);
    expect((await run(feedSpec(db, crm.url(), { maxUnpublishRatio: 1 }))).summary).toMatchObject({ unpublished: 3 });
  });

  test("after a failure, the next run applies the feed", async () => {
    crm.behaviour = "error";
    expect((await run()).outcome).toBe("failed");
    crm.behaviour = "ok";
    expect((await run()).summary).toMatchObject({ created: 4 });
  });
});

describe("the lease: one process per run", () => {
  test("of two claims at once only one wins; a live lease refuses others; one that ran out is taken over", () => {
    emptyDatabase(db);
    const [a, b] = [openExistingDatabase(db), openExistingDatabase(db)];
    try {
      const now = 1_000_000;
      expect(claimRun(a, "crm", "full x", "A", now, 60_000, 60_000)).toBe(true);
      expect(claimRun(b, "crm", "full x", "B", now, 60_000, 60_000)).toBe(false);
      expect(claimRun(b, "crm", "full x", "B", now + 30_000, 60_000, null)).toBe(false);
      expect(renewLease(a, "crm", "A", now + 30_000, 60_000)).toBe(true);
      // A died: its lease ends a minute after its last renewal, and B takes the run over.
      expect(claimRun(b, "crm", "full x", "B", now + 89_999, 60_000, null)).toBe(false);
      expect(claimRun(b, "crm", "full x", "B", now + 90_000, 60_000, null)).toBe(true);
      expect(renewLease(a, "crm", "A", now + 90_001, 60_000)).toBe(false);
      expect(readRun(a, "crm")).toMatchObject({ leaseOwner: "B", lastStartedAt: now + 90_000 });
    } finally {
      closeDatabase(a);
      closeDatabase(b);
    }
  });

  test("a run is due at its interval, or at once when asked for, unless one of the same source started within the grace", () => {
    const conn = openExistingDatabase(db);
    try {
      expect(claimRun(conn, "crm", "full x", "A", 0, 1_000, 60_000)).toBe(true);
      conn.run("UPDATE feed_runs SET lease_owner = NULL, lease_until = NULL");
      expect(claimRun(conn, "crm", "full x", "A", 59_999, 1_000, 60_000)).toBe(false);
      requestRun(conn, "crm", "full x", 10_000, 30_000);
      expect(claimRun(conn, "crm", "full x", "A", 10_000, 1_000, 60_000)).toBe(false); // a run of this source started 10 s ago
      requestRun(conn, "crm", "full y", 10_000, 30_000);
      expect(claimRun(conn, "crm", "full y", "A", 10_000, 1_000, 60_000)).toBe(true); // the source changed: due now
      conn.run("UPDATE feed_runs SET lease_owner = NULL, lease_until = NULL");
      expect(claimRun(conn, "crm", "full y", "A", 70_000, 1_000, 60_000)).toBe(true); // its interval
    } finally {
      closeDatabase(conn);
    }
  });

  test("`feeds run` while another process holds the lease does nothing and says who holds it", async () => {
    const conn = openExistingDatabase(db);
    try {
      expect(claimRun(conn, "crm", "full x", "serve-1", Date.now(), 60_000, null)).toBe(true);
    } finally {
      closeDatabase(conn);
    }
    const result = (await runHere(feedSpec(db, crm.url()), { owner: "cli", claim: true })) as Busy;
    expect(result.busy.owner).toBe("serve-1");
    expect(publishedProperties(db)).toEqual([]);
  });

  test("a run whose lease another process took over writes nothing: each chunk of writes checks the lease in its own transaction", async () => {
    const spec = feedSpec(db, crm.url());
    const [conn, leaseDb] = [openExistingDatabase(db), openExistingDatabase(db)];
    try {
      expect(claimRun(leaseDb, "crm", "full x", "the-other", Date.now(), 60_000, null)).toBe(true);
      const report = await runClaimedFeed(conn, spec, { owner: "me", leaseDb });
      expect(report).toMatchObject({ outcome: "failed", recorded: false });
      expect(report.error).toContain("lease was lost");
      expect(readRun(leaseDb, "crm")).toMatchObject({ leaseOwner: "the-other", lastOutcome: null });
    } finally {
      closeDatabase(conn);
      closeDatabase(leaseDb);
    }
    expect(publishedProperties(db)).toEqual([]);
  });
});

function readRunOf(path: string) {
  const conn = openExistingDatabase(path);
  try {
    return readRun(conn, "crm")!;
  } finally {
    closeDatabase(conn);
  }
}
