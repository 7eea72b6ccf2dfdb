// Telling that another process has a database open, from the kernel's lock table, without
// opening any of its files; and the commands that replace a database refusing while it is.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseInUseError, otherProcessesUsing } from "../../src/db/in-use.ts";
import { openDatabase, openExistingDatabase } from "../../src/db/open.ts";
import { DEFAULT_SEED_OPTIONS, writeSeedDatabase } from "../../src/seed/generator.ts";

const dir = mkdtempSync(join(tmpdir(), "pa-in-use-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Another process with the database open through SQLite until it is killed. */
async function holder(path: string) {
  const script = `const { Database } = require("bun:sqlite"); const db = new Database(${JSON.stringify(path)}); db.query("SELECT count(*) FROM leads").get(); console.log("open"); setInterval(() => {}, 1000);`;
  const proc = Bun.spawn([process.execPath, "-e", script], { stdout: "pipe", stderr: "inherit" });
  const reader = proc.stdout.getReader();
  await reader.read(); // "open"
  return proc;
}

describe("otherProcessesUsing", () => {
  test("names a process that has the database open, and forgets it once it exits", async () => {
    const path = join(dir, "a.sqlite");
    openDatabase(path).close();
    expect(otherProcessesUsing(path)).toEqual([]);
    const proc = await holder(path);
    try {
      expect(otherProcessesUsing(path)).toEqual([proc.pid]);
    } finally {
      proc.kill("SIGKILL");
      await proc.exited;
    }
    expect(otherProcessesUsing(path)).toEqual([]);
  });

  test("this process's own connections do not count", () => {
    const path = join(dir, "b.sqlite");
    openDatabase(path).close();
    const db = openExistingDatabase(path);
    db.query("SELECT count(*) FROM leads").get();
    expect(otherProcessesUsing(path)).toEqual([]);
    db.close();
  });

  test("a missing file is used by no one", () => {
    expect(otherProcessesUsing(join(dir, "missing.sqlite"))).toEqual([]);
  });
});

describe("replacing a database another process has open", () => {
  test("seed --force refuses, naming the process, and leaves the file as it was", async () => {
    const path = join(dir, "seeded.sqlite");
    writeSeedDatabase(path, { ...DEFAULT_SEED_OPTIONS, properties: 5, leads: 5 });
    const proc = await holder(path);
    try {
      expect(() =>
        writeSeedDatabase(path, { ...DEFAULT_SEED_OPTIONS, properties: 7, leads: 7, overwrite: true }),
      ).toThrow(DatabaseInUseError);
    } finally {
      proc.kill("SIGKILL");
      await proc.exited;
    }
    const db = openExistingDatabase(path);
    expect(db.query("SELECT count(*) AS n FROM properties").get()).toEqual({ n: 5 });
    db.close();
    // Once no one has it open, --force replaces it.
    writeSeedDatabase(path, { ...DEFAULT_SEED_OPTIONS, properties: 7, leads: 7, overwrite: true });
    const after = openExistingDatabase(path);
    expect(after.query("SELECT count(*) AS n FROM properties").get()).toEqual({ n: 7 });
    after.close();
  });
});
