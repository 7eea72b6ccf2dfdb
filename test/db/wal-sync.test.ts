// The WAL's sync off the event loop: what its promise means, how syncs are shared, its one
// descriptor, and why that descriptor is safe beside SQLite's own.
import { Database } from "bun:sqlite";
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readlinkSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { locksOn } from "../../src/db/in-use.ts";
import { WalSync } from "../../src/db/wal-sync.ts";
import { heldFsync, turns } from "../helpers/held-fsync.ts";

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function folder(): string {
  dir = mkdtempSync(join(tmpdir(), "pa-wal-sync-"));
  return dir;
}

/** A WalSync on an empty -wal of its own whose syncs return only when the test says so. */
function heldWalSync(mark?: () => number) {
  const wal = join(folder(), "t.sqlite-wal");
  writeFileSync(wal, "");
  const { fsync, calls } = heldFsync();
  return { wal, calls, sync: new WalSync(wal, fsync, mark) };
}

/** This process's descriptors open on `path`. */
function descriptorsOn(path: string): number {
  let n = 0;
  for (const fd of readdirSync("/proc/self/fd")) {
    try {
      if (readlinkSync(`/proc/self/fd/${fd}`) === path) n++;
    } catch {
      // closed meanwhile (the listing's own descriptor)
    }
  }
  return n;
}

describe("WalSync", () => {
  test("the real fsync: flushed() resolves, and one descriptor serves every sync until close", async () => {
    const wal = join(folder(), "t.sqlite-wal");
    writeFileSync(wal, "frames");
    const sync = new WalSync(wal);
    await sync.flushed();
    await Promise.all([sync.flushed(), sync.flushed()]);
    await sync.flushed();
    expect(descriptorsOn(wal)).toBe(1);
    sync.close();
    expect(descriptorsOn(wal)).toBe(0);
    await expect(sync.flushed()).rejects.toThrow("closed");
  });

  test("a sync covers only what was written before it began: callers during a sync wait for the next one, which they share", async () => {
    const { calls, sync } = heldWalSync();
    const settled: string[] = [];
    void sync.flushed().then(() => settled.push("first"));
    expect(calls.length).toBe(1);
    void sync.flushed().then(() => settled.push("second"));
    void sync.flushed().then(() => settled.push("third"));
    await turns();
    expect(calls.length).toBe(1); // never two at once
    calls[0]!(null);
    await turns();
    expect(settled).toEqual(["first"]);
    expect(calls.length).toBe(2); // the waiting callers' sync, begun after the first returned
    calls[1]!(null);
    await turns();
    expect(settled).toEqual(["first", "second", "third"]);
    sync.close();
  });

  test("a failed sync rejects its callers with the error; the next one works", async () => {
    const { calls, sync } = heldWalSync();
    const failed = sync.flushed();
    calls[0]!(Object.assign(new Error("EIO: i/o error, fsync"), { code: "EIO" }));
    await expect(failed).rejects.toThrow("EIO");
    const next = sync.flushed();
    calls[1]!(null);
    await next;
    sync.close();
  });

  test("a -wal that cannot be opened rejects its callers, and is tried again by the next", async () => {
    const wal = join(folder(), "t.sqlite-wal");
    const sync = new WalSync(wal);
    await expect(sync.flushed()).rejects.toThrow("ENOENT");
    writeFileSync(wal, "");
    await sync.flushed();
    sync.close();
  });

  test("close lets go of the descriptor only once the sync under way has returned", async () => {
    const { wal, calls, sync } = heldWalSync();
    const under = sync.flushed();
    sync.close();
    expect(descriptorsOn(wal)).toBe(1); // the thread pool may still be using it
    calls[0]!(null);
    await under;
    expect(descriptorsOn(wal)).toBe(0);
  });
});

describe("WalSync marks: what is known to be on disk", () => {
  test("each sync reads the mark as it begins; once it returns, everything up to that mark is on disk", async () => {
    let head = 7;
    const { calls, sync } = heldWalSync(() => head);
    expect(sync.onDiskThrough()).toBe(0);
    const first = sync.flushed();
    head = 9; // committed after the sync began: not covered by it
    calls[0]!(null);
    await first;
    expect(sync.onDiskThrough()).toBe(7);
    expect(sync.through(7)).toBeNull();
    expect(sync.through(9)).toBeInstanceOf(Promise);
    sync.close();
  });

  test("through() joins the sync under way when that one began past the mark, and asks for the next one only otherwise", async () => {
    let head = 5;
    const { calls, sync } = heldWalSync(() => head);
    const settled: string[] = [];
    void sync.flushed().then(() => settled.push("write"));
    void sync.through(5)!.then(() => settled.push("reader of 5"));
    head = 6;
    void sync.through(6)!.then(() => settled.push("reader of 6"));
    await turns();
    expect(calls.length).toBe(1);
    calls[0]!(null);
    await turns();
    expect(settled).toEqual(["write", "reader of 5"]);
    expect(calls.length).toBe(2); // the reader of 6 needed a sync begun after 6 was written
    calls[1]!(null);
    await turns();
    expect(settled).toEqual(["write", "reader of 5", "reader of 6"]);
    expect(sync.onDiskThrough()).toBe(6);
    sync.close();
  });

  test("a failed sync moves nothing on", async () => {
    const { calls, sync } = heldWalSync(() => 3);
    const failed = sync.flushed();
    calls[0]!(new Error("EIO"));
    await expect(failed).rejects.toThrow("EIO");
    expect(sync.onDiskThrough()).toBe(0);
    sync.close();
  });
});

describe("the -wal descriptor beside SQLite's locks (src/db/tenants.ts's rule)", () => {
  test("SQLite holds POSIX locks on the database file and the -shm, never on the -wal, even while writing frames", () => {
    const path = join(folder(), "t.sqlite");
    const db = new Database(path);
    db.run("PRAGMA journal_mode = WAL");
    db.run("CREATE TABLE t (v TEXT)");
    // A tiny page cache spills the open transaction's pages into the WAL before COMMIT.
    db.run("PRAGMA cache_size = 10");
    db.run("BEGIN IMMEDIATE");
    for (let i = 0; i < 2_000; i++) db.run("INSERT INTO t (v) VALUES (?)", ["x".repeat(200)]);
    expect(statSync(`${path}-wal`).size).toBeGreaterThan(100_000); // frames written, not yet committed
    const reader = new Database(path, { readonly: true });
    reader.run("BEGIN");
    reader.query("SELECT count(*) FROM t").get();
    expect(locksOn(`${path}-shm`).length).toBeGreaterThan(0); // the check sees SQLite's locks…
    expect(locksOn(path).length).toBeGreaterThan(0);
    expect(locksOn(`${path}-wal`)).toEqual([]); // …and there are none on the -wal to drop
    db.run("COMMIT");
    expect(locksOn(`${path}-wal`)).toEqual([]);
    reader.run("COMMIT");
    reader.close();
    db.close();
  });
});
