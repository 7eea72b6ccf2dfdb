// Group commit: one transaction per batch, each write isolated in its savepoint.
import { Database } from "bun:sqlite";
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GroupCommitWriter } from "../../src/db/group-commit.ts";
import { heldFsync, turns } from "../helpers/held-fsync.ts";

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** The connection's synchronous setting, read inside a write. */
const level = (d: Database) => (d.query("PRAGMA synchronous").get() as { synchronous: number }).synchronous;
const FULL = 2;
const NORMAL = 1;

function open() {
  dir = mkdtempSync(join(tmpdir(), "pa-gc-"));
  const db = new Database(join(dir, "t.sqlite"));
  db.run("PRAGMA journal_mode = WAL");
  db.run("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)");
  return db;
}

describe("GroupCommitWriter", () => {
  test("writes submitted together share one transaction and all resolve after it", async () => {
    const db = open();
    const writer = new GroupCommitWriter(db);
    const insideTransaction: boolean[] = [];
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        writer.submit((d) => {
          d.run("INSERT INTO t (id, v) VALUES (?, ?)", [i, `v${i}`]);
          insideTransaction.push(d.inTransaction);
          return i;
        }),
      ),
    );
    expect(results).toEqual(Array.from({ length: 50 }, (_, i) => i));
    expect(insideTransaction.every(Boolean)).toBe(true);
    expect(db.query("SELECT count(*) AS n FROM t").get()).toEqual({ n: 50 });
    db.close();
  });

  test("in a WAL database every batch commits under synchronous NORMAL: COMMIT syncs nothing on the event loop", async () => {
    const db = open();
    db.run("PRAGMA synchronous = FULL");
    const writer = new GroupCommitWriter(db);
    expect(await writer.submit(level, "bookkeeping")).toBe(NORMAL);
    expect(await writer.submit(level)).toBe(NORMAL);
    expect(await Promise.all([writer.submit(level, "bookkeeping"), writer.submit(level, "durable")])).toEqual([
      NORMAL,
      NORMAL,
    ]);
    db.close();
  });

  test("with no WAL (a database in memory) a durable batch commits under FULL, bookkeeping alone under NORMAL", async () => {
    dir = mkdtempSync(join(tmpdir(), "pa-gc-"));
    const db = new Database(":memory:");
    db.run("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)");
    const writer = new GroupCommitWriter(db);
    expect(await writer.submit(level, "bookkeeping")).toBe(NORMAL);
    expect(await writer.submit(level)).toBe(FULL);
    // Submitted in one turn, so one batch: the durable write makes the whole batch durable.
    expect(await Promise.all([writer.submit(level, "bookkeeping"), writer.submit(level, "durable")])).toEqual([
      FULL,
      FULL,
    ]);
    db.close();
  });

  test("writes still arriving over the next turns of the event loop join the same batch", async () => {
    const db = open();
    const outside = new Database(join(dir, "t.sqlite"));
    // A clock standing still: the turns below fall inside the gathering window however long a
    // loaded machine takes over them (on the real clock one CI run saw a turn outlast its 2 ms).
    const writer = new GroupCommitWriter(db, () => {}, { now: () => 0 });
    // Inside one batch nothing is committed yet: another connection still sees an empty table.
    const seenOutside: number[] = [];
    const write = (id: number) =>
      writer.submit((d) => {
        seenOutside.push((outside.query("SELECT count(*) AS n FROM t").get() as { n: number }).n);
        d.run("INSERT INTO t (id, v) VALUES (?, 'x')", [id]);
      });
    const pending = [write(1)];
    await new Promise((resolve) => setImmediate(resolve));
    pending.push(write(2));
    await new Promise((resolve) => setImmediate(resolve));
    pending.push(write(3));
    await Promise.all(pending);
    expect(seenOutside).toEqual([0, 0, 0]);
    expect(outside.query("SELECT count(*) AS n FROM t").get()).toEqual({ n: 3 });
    outside.close();
    db.close();
  });

  test("a steady stream of writes is still committed in batches, not held back", async () => {
    const db = open();
    // A clock that moves 1 ms per turn of the event loop, as a busy server's would; a WAL sync
    // that returns at once, so a write settles at its COMMIT (the real one takes turns of its own).
    let nowMs = 0;
    const writer = new GroupCommitWriter(db, () => {}, { now: () => nowMs, fsync: (_fd, done) => done(null) });
    let firstCommittedAfter: number | null = null;
    let submitted = 0;
    const first = writer.submit((d) => d.run("INSERT INTO t (id, v) VALUES (0, 'first')"));
    void first.then(() => (firstCommittedAfter = submitted));
    // One more write every turn for 200 turns: the first must commit long before the stream ends.
    const all: Promise<unknown>[] = [first];
    for (let turn = 1; turn <= 200; turn++) {
      await new Promise((resolve) => setImmediate(resolve));
      nowMs += 1;
      submitted = turn;
      all.push(writer.submit((d) => d.run("INSERT INTO t (id, v) VALUES (?, 'x')", [turn])));
    }
    await Promise.all(all);
    expect(firstCommittedAfter).not.toBeNull();
    expect(firstCommittedAfter!).toBeLessThanOrEqual(4); // held at most ~2 ms of arrivals
    expect(db.query("SELECT count(*) AS n FROM t").get()).toEqual({ n: 201 });
    db.close();
  });

  test("a failing write inside a batch fails alone; its neighbours commit", async () => {
    const db = open();
    const writer = new GroupCommitWriter(db);
    const outcomes = await Promise.allSettled([
      writer.submit((d) => d.run("INSERT INTO t (id, v) VALUES (1, 'a')")),
      writer.submit((d) => {
        d.run("INSERT INTO t (id, v) VALUES (2, 'b')");
        d.run("INSERT INTO t (id, v) VALUES (1, 'duplicate')"); // constraint error after a write
      }),
      writer.submit((d) => d.run("INSERT INTO t (id, v) VALUES (3, 'c')")),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    // The failed write's own first insert was undone with it.
    expect(db.query("SELECT id FROM t ORDER BY id").values()).toEqual([[1], [3]]);
    db.close();
  });

  test("when the commit itself fails, every write of the batch is rejected and nothing is kept", async () => {
    const db = open();
    const writer = new GroupCommitWriter(db);
    db.run("PRAGMA query_only = ON"); // makes every write fail, like a read-only file
    const outcomes = await Promise.allSettled([
      writer.submit((d) => d.run("INSERT INTO t (id, v) VALUES (1, 'a')")),
      writer.submit((d) => d.run("INSERT INTO t (id, v) VALUES (2, 'b')")),
    ]);
    expect(outcomes.every((o) => o.status === "rejected")).toBe(true);
    db.run("PRAGMA query_only = OFF");
    expect(db.query("SELECT count(*) AS n FROM t").get()).toEqual({ n: 0 });
    // The writer keeps working once writes are possible again.
    await writer.submit((d) => d.run("INSERT INTO t (id, v) VALUES (9, 'z')"));
    expect(db.query("SELECT count(*) AS n FROM t").get()).toEqual({ n: 1 });
    db.close();
  });
});

describe("GroupCommitWriter and the WAL's sync", () => {
  test("a durable write settles once the WAL's sync returns; bookkeeping of the same batch at its COMMIT; readers see both at COMMIT", async () => {
    const db = open();
    const { fsync, calls } = heldFsync();
    const outcomes: unknown[] = [];
    const writer = new GroupCommitWriter(db, (error) => outcomes.push(error), { fsync });
    const settled: string[] = [];
    const durable = writer
      .submit((d) => d.run("INSERT INTO t (id, v) VALUES (1, 'lead')"))
      .then(() => settled.push("durable"));
    void writer
      .submit((d) => d.run("INSERT INTO t (id, v) VALUES (2, 'outcome')"), "bookkeeping")
      .then(() => settled.push("bookkeeping"));
    await turns();
    expect(calls.length).toBe(1);
    expect(settled).toEqual(["bookkeeping"]);
    expect(outcomes).toEqual([null]);
    const reader = new Database(db.filename, { readonly: true });
    expect(reader.query("SELECT count(*) AS n FROM t").get()).toEqual({ n: 2 });
    reader.close();
    calls[0]!(null);
    await durable;
    expect(settled).toEqual(["bookkeeping", "durable"]);
    expect(outcomes).toEqual([null, null]);
    writer.close();
    db.close();
  });

  test("batches committed while a sync runs wait for the next sync, begun after they committed", async () => {
    const db = open();
    const { fsync, calls } = heldFsync();
    const writer = new GroupCommitWriter(db, () => {}, { fsync });
    const settled: number[] = [];
    const write = (id: number) =>
      writer.submit((d) => d.run("INSERT INTO t (id, v) VALUES (?, 'x')", [id])).then(() => settled.push(id));
    void write(1);
    await turns();
    void write(2);
    await turns();
    void write(3);
    await turns();
    expect(calls.length).toBe(1); // 2 and 3 committed, their sync not begun while the first runs
    calls[0]!(null);
    await turns();
    expect(settled).toEqual([1]);
    expect(calls.length).toBe(2);
    calls[1]!(null);
    await turns();
    expect(settled).toEqual([1, 2, 3]);
    writer.close();
    db.close();
  });

  test("when the sync fails, the batch's durable writes are rejected with its error, though committed; the next batch works", async () => {
    const db = open();
    const { fsync, calls } = heldFsync();
    const outcomes: unknown[] = [];
    const writer = new GroupCommitWriter(db, (error) => outcomes.push(error), { fsync });
    const first = writer.submit((d) => d.run("INSERT INTO t (id, v) VALUES (1, 'x')"));
    await turns();
    calls[0]!(Object.assign(new Error("EIO: i/o error, fsync"), { code: "EIO" }));
    await expect(first).rejects.toThrow("EIO");
    expect((outcomes[0] as Error).message).toContain("EIO");
    const second = writer.submit((d) => d.run("INSERT INTO t (id, v) VALUES (2, 'x')"));
    await turns();
    calls[1]!(null);
    await second;
    expect(db.query("SELECT count(*) AS n FROM t").get()).toEqual({ n: 2 });
    writer.close();
    db.close();
  });
});

describe("GroupCommitWriter while another process holds the write lock", () => {
  /** Another connection (as an import in another process would) holding the write lock. */
  function holder(db: Database) {
    const other = new Database(db.filename);
    other.run("BEGIN IMMEDIATE");
    other.run("INSERT INTO t (id, v) VALUES (1000, 'import')");
    return other;
  }

  test("a batch waits for the lock on timers, never in SQLite's busy handler: the event loop keeps turning", async () => {
    const db = open();
    db.run("PRAGMA busy_timeout = 5000");
    const writer = new GroupCommitWriter(db);
    const other = holder(db);
    let turns = 0;
    const ticking = setInterval(() => turns++, 1);
    const started = performance.now();
    const written = writer.submit((d) => d.run("INSERT INTO t (id, v) VALUES (1, 'lead')"));
    // While the batch waits, timers still fire: the loop is not stuck in a sleep of SQLite's.
    await Bun.sleep(60);
    expect(turns).toBeGreaterThan(10);
    other.run("COMMIT");
    other.close();
    await written;
    clearInterval(ticking);
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(db.query("SELECT v FROM t ORDER BY id").all()).toEqual([{ v: "lead" }, { v: "import" }]);
    // The connection's own busy timeout is as it was, for everything else it runs.
    expect(db.query("PRAGMA busy_timeout").get()).toEqual({ timeout: 5000 });
    db.close();
  });

  test("after 5 s of waiting the batch fails with SQLITE_BUSY (a 503 for the partner) and the next one works", async () => {
    const db = open();
    // Each reading of the writer's clock moves it on by 250 ms: the wait is measured on that
    // clock alone, whenever the retries run (a fixed real-time pause before moving the clock
    // failed on a loaded machine, where the first try came after the move).
    let ms = 0;
    const writer = new GroupCommitWriter(db, () => {}, { now: () => (ms += 250) });
    const other = holder(db);
    const first = writer.submit((d) => d.run("INSERT INTO t (id, v) VALUES (1, 'lead')"));
    const error = await first.then(
      () => null,
      (e: unknown) => e as { code?: string },
    );
    expect(error?.code).toBe("SQLITE_BUSY");
    // It kept trying for 5 s of its clock before it gave up, not at the first refusal.
    expect(ms).toBeGreaterThanOrEqual(5_000);
    expect(ms).toBeLessThan(7_000);
    other.run("COMMIT");
    other.close();
    await writer.submit((d) => d.run("INSERT INTO t (id, v) VALUES (2, 'later')"));
    expect(db.query("SELECT id FROM t ORDER BY id").all()).toEqual([{ id: 2 }, { id: 1000 }]);
    db.close();
  });
});

describe("GroupCommitWriter closed with writes pending", () => {
  test("writes waiting for another process's lock fail when the writer closes; no timer touches the closed connection", async () => {
    const db = open();
    const writer = new GroupCommitWriter(db);
    const other = new Database(db.filename);
    other.run("BEGIN IMMEDIATE");
    const pending = writer.submit((d) => d.run("INSERT INTO t (id, v) VALUES (1, 'lead')"));
    await Bun.sleep(20); // the batch is now retrying on timers
    writer.close();
    db.close();
    expect(pending).rejects.toThrow("closed");
    // Were a retry still scheduled, it would throw "Database has closed" from its timer here.
    await Bun.sleep(30);
    expect(writer.submit(() => 1)).rejects.toThrow("closed");
    other.run("ROLLBACK");
    other.close();
  });
});
