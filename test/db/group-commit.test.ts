// Group commit: one transaction per batch, each write isolated in its savepoint.
import { Database } from "bun:sqlite";
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GroupCommitWriter } from "../../src/db/group-commit.ts";

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

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
