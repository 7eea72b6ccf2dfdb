// The server's checkpoints run on a thread of their own (src/db/checkpointer.ts): a commit on the
// event loop never copies the WAL back. Observed from outside with stat() only (the rule of
// src/db/tenants.ts): in WAL mode the database file changes only when a checkpoint copies pages
// into it, and the WAL file grows only when a commit cannot start over from its beginning.

import { Database } from "bun:sqlite";
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Checkpointer } from "../../src/db/checkpointer.ts";
import { closeDatabase, openDatabase } from "../../src/db/open.ts";
import { TenantRegistry } from "../../src/db/tenants.ts";
import { FakeClock } from "../helpers/app.ts";

let dir: string;
let path: string;
let db: Database;
let checkpointer: Checkpointer;
let errors: string[];
const TEST_TICK_MS = 100;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "pa-checkpoints-"));
  path = join(dir, "agency.sqlite");
  db = openDatabase(path);
  db.run("CREATE TABLE scratch (payload BLOB)");
  errors = [];
  // Ten times a second: the same thread, tests that wait less for it.
  checkpointer = new Checkpointer((what) => errors.push(what), undefined, TEST_TICK_MS);
});
afterEach(() => {
  checkpointer.close();
  closeDatabase(db);
  rmSync(dir, { recursive: true, force: true });
});

/** Commits `pages` new pages of data on `connection` (one row of 3,000 random bytes fills a page). */
function write(pages: number, connection: Database = db): void {
  connection.transaction(() => {
    for (let i = 0; i < pages; i++) connection.run("INSERT INTO scratch VALUES (randomblob(3000))");
  })();
}

const size = (file: string) => statSync(file).size;

/** Waits (up to 10 s) for `condition`, polling: the thread works on its own schedule. */
async function eventually(condition: () => boolean): Promise<void> {
  const deadline = performance.now() + 10_000;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error("the condition did not hold within 10 s");
    await Bun.sleep(20);
  }
}

const autocheckpoint = (connection: Database) =>
  (connection.query("PRAGMA wal_autocheckpoint").get() as { wal_autocheckpoint: number }).wal_autocheckpoint;

describe("the checkpointer thread", () => {
  test("a commit on a watched connection never checkpoints, however long the WAL has grown", () => {
    // A thread that does not tick during the test: whatever reaches the file, a commit copied.
    const idle = new Checkpointer((what) => errors.push(what), undefined, 3_600_000);
    try {
      idle.watch(path, [db]);
      const before = size(path);
      // Past SQLite's threshold and the backstop it once had (10,000 pages): a feed run's writes
      // do this while the thread cannot start the WAL over. A checkpoint here would run inside
      // the server's commit, on its event loop, with an fsync of the database file (seconds on
      // a busy disk: bench feed-run-one-core).
      write(12_000);
      write(1);
      expect(size(path)).toBe(before);
      expect(size(`${path}-wal`)).toBeGreaterThan(12_000 * 4096);
    } finally {
      idle.close();
    }
    expect(errors).toEqual([]);
  });

  test("copies a watched database's commits into its file, though no commit reached SQLite's own threshold", async () => {
    checkpointer.watch(path, [db]);
    expect(autocheckpoint(db)).toBe(0); // the connection never checkpoints on its own
    const before = size(path);
    write(50);
    expect(size(path)).toBe(before); // the commit itself copied nothing
    await eventually(() => size(path) >= before + 50 * 4096);
    expect(errors).toEqual([]);
  });

  test("keeps the WAL from growing while the server goes on committing", async () => {
    checkpointer.watch(path, [db]);
    db.run("PRAGMA synchronous = NORMAL"); // thousands of commits without an fsync each
    const insert = db.prepare("INSERT INTO scratch VALUES (randomblob(3000))");
    // 8,000 commits of a page each (about 32 MiB of WAL in all), with the short gaps between
    // them that a server's group commits leave.
    for (let n = 1; n <= 8000; n++) {
      insert.run();
      if (n % 5 === 0) await Bun.sleep(1);
    }
    insert.finalize();
    // A WAL copied back but never started over would hold them all (or reach the connection's
    // own threshold): the thread's RESTARTs keep it near 1,000 pages and a tick's writes.
    expect(size(`${path}-wal`)).toBeLessThan(16 * 2 ** 20);
  });

  test("a WAL grown large under a long-held snapshot is cut back to 64 MiB once the snapshot ends", async () => {
    checkpointer.watch(path, [db]);
    db.run("PRAGMA synchronous = NORMAL");
    // A portal feed's download: a read snapshot held while the server goes on committing, so
    // no checkpoint may start the WAL over and it grows past the limit.
    const snapshot = new Database(path, { readonly: true });
    snapshot.run("BEGIN");
    snapshot.query("SELECT count(*) FROM scratch").get();
    for (let i = 0; i < 30; i++) write(1000); // ~120 MiB of WAL
    expect(size(`${path}-wal`)).toBeGreaterThan(100 * 2 ** 20);
    snapshot.run("COMMIT");
    snapshot.close();
    // The thread copies everything back and starts the WAL over; the next commit, starting over
    // from its beginning, cuts the file to journal_size_limit.
    await eventually(() => {
      write(1);
      return size(`${path}-wal`) <= 64 * 2 ** 20;
    });
    expect(errors).toEqual([]);
  }, 30_000);

  test("lets go of a file only when the last of its connections is forgotten", async () => {
    const second = openDatabase(path);
    try {
      checkpointer.watch(path, [db]);
      checkpointer.watch(path, [second]);
      checkpointer.forget(path, [second]);
      const before = size(path);
      write(50);
      await eventually(() => size(path) >= before + 50 * 4096);
    } finally {
      closeDatabase(second);
    }
  });

  test("closing ends the thread and its connections: the server's last close leaves the file whole, no WAL beside it", () => {
    checkpointer.watch(path, [db]);
    write(50);
    checkpointer.close();
    closeDatabase(db);
    expect(existsSync(`${path}-wal`)).toBe(false);
    db = openDatabase(path); // for afterEach
    expect(db.query("SELECT count(*) AS n FROM scratch").get()).toEqual({ n: 50 });
  });

  test("a file it cannot open is reported once, not at every tick, and checkpointed once it can be", async () => {
    const later = join(dir, "later.sqlite");
    checkpointer.watch(later, []);
    await eventually(() => errors.length > 0);
    await Bun.sleep(350); // three more ticks
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(later);
    const other = openDatabase(later); // SQLite's own checkpoint at 1,000 pages: 50 never reach it
    try {
      other.run("CREATE TABLE scratch (payload BLOB)");
      const before = size(later);
      write(50, other);
      await eventually(() => size(later) >= before + 50 * 4096);
    } finally {
      closeDatabase(other);
    }
  });

  test("a thread that cannot start is reported, and the connections checkpoint for themselves again", async () => {
    const broken = new Checkpointer((what) => errors.push(what), join(dir, "no-such-worker.ts"));
    try {
      broken.watch(path, [db]);
      await eventually(() => errors.length > 0);
      expect(errors[0]).toContain("the checkpointer thread stopped");
      expect(autocheckpoint(db)).toBe(1000);
      // Later files are not handed to a thread that is gone.
      const other = openDatabase(join(dir, "other.sqlite"));
      try {
        broken.watch(join(dir, "other.sqlite"), [other]);
        expect(autocheckpoint(other)).toBe(1000);
      } finally {
        closeDatabase(other);
      }
    } finally {
      broken.close();
    }
  });
});

describe("the server's open databases", () => {
  test("are checkpointed by the registry's thread, and their connections do not checkpoint themselves", async () => {
    closeDatabase(db);
    const registry = new TenantRegistry(new FakeClock(), checkpointer);
    try {
      const tenant = registry.get(path)!;
      expect(autocheckpoint(tenant.write)).toBe(0);
      expect(autocheckpoint(tenant.read)).toBe(0);
      const before = size(path);
      write(50, tenant.write);
      await eventually(() => size(path) >= before + 50 * 4096);
    } finally {
      registry.closeAll();
      db = openDatabase(path); // for afterEach
    }
  });
});

describe("cutting the WAL (after an anonymization)", () => {
  test("the thread copies the whole WAL back and cuts it to zero bytes; a reader on an old snapshot holds it back", async () => {
    checkpointer.watch(path, [db]);
    write(50);
    expect(size(`${path}-wal`)).toBeGreaterThan(0);
    // A reader inside a transaction on the snapshot before the next write: TRUNCATE must wait for it.
    const reader = new Database(path);
    reader.run("BEGIN");
    reader.query("SELECT count(*) FROM scratch").get();
    write(5);
    expect(await checkpointer.cutWal(path, 300)).toBe(false);
    reader.run("COMMIT");
    reader.close();
    expect(await checkpointer.cutWal(path, 5_000)).toBe(true);
    expect(size(`${path}-wal`)).toBe(0);
  });

  test("without a thread the registry cuts it itself", async () => {
    const registry = new TenantRegistry(new FakeClock(), null);
    write(10);
    expect(await registry.cutWal(path, 5_000)).toBe(true);
    expect(size(`${path}-wal`)).toBe(0);
  });
});
