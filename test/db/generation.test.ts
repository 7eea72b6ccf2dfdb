// Tenant.generation: moves with every commit from any connection or process, is asked of
// SQLite at most once per turn of the event loop, and never costs SQLite its locks.
import type { Database } from "bun:sqlite";
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { wallClock } from "../../src/clock.ts";
import { openDatabase, openExistingDatabase } from "../../src/db/open.ts";
import { Tenant } from "../../src/db/tenants.ts";
import { shmLocksHeldBy } from "../helpers/locks.ts";

const dir = mkdtempSync(join(tmpdir(), "pa-generation-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function freshDatabase(name: string): string {
  const path = join(dir, name);
  openDatabase(path).close();
  return path;
}

const insertLead = (db: Database, id: string) =>
  db.run(
    `INSERT INTO leads (id, name, email, phone, message, source, status, priority, created_at, updated_at)
     VALUES (?, 'Ana', 'ana@example.com', '11999999999', 'Oi', 'API', 'NEW_LEAD', 'MEDIUM', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')`,
    [id],
  );

/** Lets the event loop finish its turn. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

const open = (path: string) => new Tenant(path, openExistingDatabase(path), openExistingDatabase(path), wallClock);

describe("Tenant.generation", () => {
  test("stays put while nothing commits and moves after a commit by another connection", async () => {
    const path = freshDatabase("c.sqlite");
    const tenant = open(path);
    const outside = openExistingDatabase(path);
    await nextTurn();
    const first = tenant.generation();
    await nextTurn();
    expect(tenant.generation()).toBe(first);
    insertLead(outside, "c1");
    await nextTurn();
    const second = tenant.generation();
    expect(second).not.toBe(first);
    await nextTurn();
    expect(tenant.generation()).toBe(second);
    insertLead(tenant.write, "c2"); // the tenant's own write connection counts too
    await nextTurn();
    expect(tenant.generation()).not.toBe(second);
    outside.close();
    tenant.close();
  });

  test("outsideGeneration ignores the server's own writer and moves with anyone else's commit", async () => {
    const path = freshDatabase("d.sqlite");
    const tenant = open(path);
    const outside = openExistingDatabase(path);
    await nextTurn();
    const first = tenant.outsideGeneration();
    insertLead(tenant.write, "d1");
    await nextTurn();
    expect(tenant.outsideGeneration()).toBe(first);
    insertLead(outside, "d2");
    await nextTurn();
    const second = tenant.outsideGeneration();
    expect(second).not.toBe(first);
    insertLead(tenant.write, "d3");
    await nextTurn();
    expect(tenant.outsideGeneration()).toBe(second);
    outside.close();
    tenant.close();
  });

  test("within one turn SQLite is asked once; the next turn asks again", async () => {
    const path = freshDatabase("e.sqlite");
    const tenant = open(path);
    const outside = openExistingDatabase(path);
    await nextTurn();
    const first = tenant.generation();
    insertLead(outside, "e1");
    // Same turn: the answer already given stands (the request that sees it arrived before the commit).
    expect(tenant.generation()).toBe(first);
    await nextTurn();
    expect(tenant.generation()).not.toBe(first);
    outside.close();
    tenant.close();
  });

  test("a commit through the tenant's own writer is seen at once, even within the turn", async () => {
    const path = freshDatabase("f.sqlite");
    const tenant = open(path);
    await nextTurn();
    const first = tenant.generation();
    await tenant.writer.submit((db) => insertLead(db, "f1"));
    expect(tenant.generation()).not.toBe(first);
    tenant.close();
  });

  test("the tenant keeps SQLite's lock on byte 128 of the -shm while it is open", async () => {
    const path = freshDatabase("g.sqlite");
    const tenant = open(path);
    for (let i = 0; i < 3; i++) {
      tenant.generation();
      await nextTurn();
    }
    expect(shmLocksHeldBy(path, process.pid).some((lock) => lock.start === 128)).toBe(true);
    tenant.close();
  });
});
