// The partners' sync example (examples/sync.ts, told in docs/partners/sync-and-webhooks.md), run
// against the real sandbox binary: after a full read and the feed, through an outside unpublish
// and a new listing, its copy equals the published set.
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { follow, fullRead, getToken } from "../../examples/sync.ts";
import { ensureBinary, type RunningBinary, startBinary } from "../helpers/binary.ts";

let dir: string;
let server: RunningBinary;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "pa-sync-"));
  server = await startBinary(
    ensureBinary(),
    ["sandbox", "--db", join(dir, "sandbox.sqlite"), "--rate-limit", "100000"],
    dir,
  );
});
afterAll(async () => {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
});

test("examples/sync.ts ends with exactly the published set", async () => {
  const token = await getToken(server.url);
  const copy = new Map<string, unknown>();
  const cursor = await fullRead(server.url, token, copy);

  const db = new Database(join(dir, "sandbox.sqlite"));
  // An outside writer, like an import: it waits for the lock the serving process may hold.
  db.run("PRAGMA busy_timeout = 5000");
  const [gone] = db.query("SELECT id FROM properties WHERE is_published = 1 LIMIT 1").values()[0] as [string];
  db.run("UPDATE properties SET is_published = 0 WHERE id = ?", [gone]);
  db.run(
    "INSERT INTO properties (id, code, title, description, operation_type, status, highlight, exclusive, is_published, created_at, updated_at) " +
      "VALUES ('new-listing', 'NEW-1', 'Casa nova', 'd', 'SALE', 'AVAILABLE', 'STANDARD', 0, 1, '2026-02-01T00:00:00.000Z', '2026-02-01T00:00:00.000Z')",
  );
  await follow(server.url, token, copy, cursor);

  const published = new Set(
    db
      .query("SELECT id FROM properties WHERE is_published = 1")
      .values()
      .map((r) => r[0] as string),
  );
  db.close();
  expect(new Set(copy.keys())).toEqual(published);
  expect(copy.has(gone)).toBe(false);
  expect(copy.has("new-listing")).toBe(true);
});
