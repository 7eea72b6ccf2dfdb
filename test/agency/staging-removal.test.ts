// The staging file goes when an import ends, freed a step at a time first (on a disk that
// discards freed blocks at once, removing hundreds of MB whole made the server's commit fsyncs
// wait 50-90 ms; bench feed-run).
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Staging, shrinkGradually } from "../../src/agency/staging.ts";
import { closeDatabase, openDatabase } from "../../src/db/open.ts";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "pa-staging-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** This process's staging files in the temp folder. */
const stagingFiles = () =>
  readdirSync(tmpdir()).filter((name) => name.startsWith(`partner-api-import-${process.pid}-`));

describe("the staging file", () => {
  test("is gone once the staging is dropped, with nothing else of it left in the temp folder", async () => {
    const db = openDatabase(join(dir, "agency.sqlite"));
    try {
      const before = stagingFiles();
      const staging = new Staging(db, () => crypto.randomUUID());
      expect(stagingFiles().length).toBe(before.length + 1);
      staging.flush();
      await staging.drop();
      expect(stagingFiles()).toEqual(before);
    } finally {
      closeDatabase(db);
    }
  });

  test("is shrunk a step at a time down to at most one step", async () => {
    const file = join(dir, "big");
    writeFileSync(file, new Uint8Array(10 * 1024 * 1024 + 123));
    await shrinkGradually(file, 1024 * 1024);
    expect(existsSync(file)).toBe(true);
    expect(statSync(file).size).toBe(123);
  });
});
