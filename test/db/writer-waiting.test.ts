// The writer-waiting flag (src/db/writer-waiting.ts): a writer that finds the write lock taken
// says so beside the database, and the one holding it (an import's chunk) reads it. Clocks are
// injected: nothing here depends on how fast the machine is.
import { Database } from "bun:sqlite";
import { afterEach, describe, expect, test } from "bun:test";
import { chownSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GroupCommitWriter } from "../../src/db/group-commit.ts";
import { locksOn } from "../../src/db/in-use.ts";
import { STALE_MS, WriterWaiting, writerWaitingPath } from "../../src/db/writer-waiting.ts";

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function database(): string {
  dir = mkdtempSync(join(tmpdir(), "pa-wait-"));
  const path = join(dir, "t.sqlite");
  const db = new Database(path);
  db.run("PRAGMA journal_mode = WAL");
  db.run("CREATE TABLE t (id INTEGER PRIMARY KEY)");
  db.close();
  return path;
}

/** Polls `done` on timers until it holds (a test's own timeout ends a wait that never does). */
async function until(done: () => boolean): Promise<void> {
  while (!done()) await Bun.sleep(1);
}

describe("the flag", () => {
  test("one process's announcement is seen by another instance on the same file, and cleared by the waiter taking the lock", () => {
    const path = database();
    let now = 1_000_000;
    const waiter = WriterWaiting.open(path, () => now)!;
    const holder = WriterWaiting.open(path, () => now)!;
    expect(holder.waitedMs()).toBeNull();
    waiter.announce();
    now += 30;
    // Each try says it again; the wait counts from the first.
    waiter.announce();
    expect(holder.waitedMs()).toBe(30);
    waiter.done();
    expect(holder.waitedMs()).toBeNull();
    expect(statSync(writerWaitingPath(path)).size).toBe(16);
  });

  test("a waiter that stopped trying (gave up, or died) counts as none once its last try is STALE_MS old", () => {
    const path = database();
    let now = 5_000_000;
    const waiter = WriterWaiting.open(path, () => now)!;
    const holder = WriterWaiting.open(path, () => now)!;
    waiter.announce();
    now += STALE_MS - 1;
    expect(holder.waitedMs()).toBe(STALE_MS - 1);
    now += 1;
    expect(holder.waitedMs()).toBeNull();
  });

  test("of two waiters the longer wait is kept; a writer that never announced clears nothing", () => {
    const path = database();
    let now = 2_000_000;
    const first = WriterWaiting.open(path, () => now)!;
    const second = WriterWaiting.open(path, () => now)!;
    const other = WriterWaiting.open(path, () => now)!;
    first.announce();
    now += 20;
    second.announce();
    other.done();
    expect(other.waitedMs()).toBe(20);
    first.done();
    expect(other.waitedMs()).toBeNull();
    // The other waiter's next try says it again, from its own start.
    now += 1;
    second.announce();
    expect(other.waitedMs()).toBe(1);
  });

  test.skipIf(process.getuid?.() !== 0)(
    "made by root (an import run with sudo), it is the database's owner's, so the server can open it too",
    () => {
      const path = database();
      chownSync(path, 4321, 4321);
      expect(WriterWaiting.open(path)).not.toBeNull();
      const flag = statSync(writerWaitingPath(path));
      expect([flag.uid, flag.gid]).toEqual([4321, 4321]);
      expect(flag.mode & 0o777).toBe(statSync(path).mode & 0o666);
    },
  );

  test("a file too short for the flag is extended, never truncated, and a database in memory has none", () => {
    const path = database();
    writeFileSync(writerWaitingPath(path), "x");
    expect(WriterWaiting.open(path)).not.toBeNull();
    expect(statSync(writerWaitingPath(path)).size).toBe(16);
    expect(WriterWaiting.of(new Database(":memory:"))).toBeNull();
  });
});

describe("a file of its own (the rule of src/db/tenants.ts)", () => {
  test("SQLite takes no lock on it, and opening it leaves the locks SQLite holds on the database's files", () => {
    const path = database();
    const db = new Database(path);
    const writer = new GroupCommitWriter(db);
    const reader = new Database(path, { readonly: true });
    reader.run("BEGIN");
    reader.query("SELECT count(*) FROM t").get();
    const held = locksOn(`${path}-shm`).length;
    expect(held).toBeGreaterThan(0);
    for (let i = 0; i < 3; i++) WriterWaiting.open(path)!.announce();
    expect(locksOn(`${path}-shm`).length).toBe(held);
    expect(locksOn(writerWaitingPath(path))).toEqual([]);
    reader.run("COMMIT");
    reader.close();
    writer.close();
    db.close();
  });
});

describe("the server's writer announces while another connection holds the lock", () => {
  test("it says it waits while the lock is held, and clears the flag once its batch has it", async () => {
    const path = database();
    const db = new Database(path, { strict: true });
    const writer = new GroupCommitWriter(db);
    const holder = new Database(path);
    const flag = WriterWaiting.open(path)!;
    holder.run("BEGIN IMMEDIATE");
    const write = writer.submit((d) => d.run("INSERT INTO t (id) VALUES (1)"));
    await until(() => flag.waitedMs() !== null);
    holder.run("COMMIT");
    await write;
    expect(flag.waitedMs()).toBeNull();
    expect(db.query("SELECT count(*) AS n FROM t").get()).toEqual({ n: 1 });
    writer.close();
    holder.close();
    db.close();
  });
});
