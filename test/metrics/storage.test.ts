// The storage metrics, from the real group-commit writer on a real SQLite file and the real
// page cache. The registry is the process's, shared with every other test in this process, so
// each test reads what its own work added.
import { Database } from "bun:sqlite";
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GroupCommitWriter } from "../../src/db/group-commit.ts";
import { processRegistry } from "../../src/metrics/process.ts";
import { PageCache } from "../../src/query/page-cache.ts";
import { parseExposition, sampleValue } from "./parse.ts";

let dir: string | null = null;
afterEach(() => {
  if (dir !== null) rmSync(dir, { recursive: true, force: true });
  dir = null;
});

async function read(name: string, labels: Record<string, string> = {}): Promise<number> {
  return sampleValue(parseExposition(await processRegistry.metrics()), name, labels) ?? 0;
}

describe("group commit", () => {
  test("each committed batch adds its writes, its gathering wait and its commit time", async () => {
    dir = mkdtempSync(join(tmpdir(), "pa-metrics-gc-"));
    const db = new Database(join(dir, "t.sqlite"));
    db.run("PRAGMA journal_mode = WAL");
    db.run("CREATE TABLE t (id INTEGER PRIMARY KEY)");
    // A clock that moves 1 ms a reading: the batch gathers over readings, then commits between two.
    let ms = 0;
    const writer = new GroupCommitWriter(db, () => {}, { now: () => (ms += 1) });
    const batches = await read("partner_api_group_commit_batch_size_count");
    const writes = await read("partner_api_group_commit_batch_size_sum");
    const waits = await read("partner_api_group_commit_wait_seconds_count");
    const commitSum = await read("partner_api_group_commit_duration_seconds_sum");

    await Promise.all([1, 2, 3].map((id) => writer.submit((d) => d.run("INSERT INTO t (id) VALUES (?)", [id]))));
    await writer.submit((d) => d.run("INSERT INTO t (id) VALUES (4)"));

    expect(await read("partner_api_group_commit_batch_size_count")).toBe(batches + 2);
    expect(await read("partner_api_group_commit_batch_size_sum")).toBe(writes + 4);
    expect(await read("partner_api_group_commit_wait_seconds_count")).toBe(waits + 2);
    // Each commit took exactly one reading of the fake clock: 1 ms.
    expect(await read("partner_api_group_commit_duration_seconds_sum")).toBeCloseTo(commitSum + 0.002, 6);
    db.close();
  });

  test("a batch whose transaction failed is not counted as committed", async () => {
    dir = mkdtempSync(join(tmpdir(), "pa-metrics-gc-"));
    const db = new Database(join(dir, "t.sqlite"));
    const writer = new GroupCommitWriter(db);
    db.run("BEGIN"); // the writer's BEGIN IMMEDIATE now fails: a transaction is already open
    const batches = await read("partner_api_group_commit_batch_size_count");
    await expect(writer.submit(() => 1)).rejects.toThrow();
    expect(await read("partner_api_group_commit_batch_size_count")).toBe(batches);
    db.close();
  });
});

describe("page cache", () => {
  test("a lookup is a hit only for the generation the page was computed at", async () => {
    const cache = new PageCache();
    const hits = await read("partner_api_page_cache_lookups_total", { result: "hit" });
    const misses = await read("partner_api_page_cache_lookups_total", { result: "miss" });

    expect(cache.get("?a", 1)).toBeUndefined(); // miss: never computed
    cache.set("?a", 1, "{}");
    expect(cache.get("?a", 1)).toBe("{}"); // hit
    expect(cache.get("?a", 1)).toBe("{}"); // hit
    expect(cache.get("?a", 2)).toBeUndefined(); // miss: the database moved on

    expect(await read("partner_api_page_cache_lookups_total", { result: "hit" })).toBe(hits + 2);
    expect(await read("partner_api_page_cache_lookups_total", { result: "miss" })).toBe(misses + 2);
  });
});
