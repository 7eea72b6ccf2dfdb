// The wal-index header's commit counter: moves with every commit from any connection or
// process, never with reads, and is distrusted while the two header copies disagree.
import { Database } from "bun:sqlite";
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Tenant } from "../../src/db/tenants.ts";
import { openDatabase, openExistingDatabase } from "../../src/db/open.ts";
import { WalChangeCounter } from "../../src/db/wal-header.ts";
import { wallClock } from "../../src/clock.ts";

const dir = mkdtempSync(join(tmpdir(), "pa-walhdr-"));
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

describe("WalChangeCounter", () => {
  test("moves with each commit of another connection, not with reads", () => {
    const path = freshDatabase("a.sqlite");
    const reader = openExistingDatabase(path);
    const writer = openExistingDatabase(path);
    reader.query("SELECT count(*) FROM leads").get();
    const counter = WalChangeCounter.open(path)!;
    expect(counter).not.toBeNull();
    const before = counter.read();
    expect(before).not.toBeNull();
    reader.query("SELECT count(*) FROM leads").get();
    expect(counter.read()).toBe(before);
    insertLead(writer, "a1");
    const after = counter.read();
    expect(after).not.toBeNull();
    expect(after).not.toBe(before);
    insertLead(writer, "a2");
    expect(counter.read()).not.toBe(after);
    reader.close();
    writer.close();
  });

  test("sees a commit made by another process", () => {
    const path = freshDatabase("b.sqlite");
    const reader = openExistingDatabase(path);
    const counter = WalChangeCounter.open(path)!;
    const before = counter.read();
    const script = `
      import { Database } from "bun:sqlite";
      const db = new Database(${JSON.stringify(path)});
      db.run("PRAGMA busy_timeout = 5000");
      db.run("INSERT INTO changes (entity, record_id, change, at) VALUES ('leads', 'x', 'upsert', '2026-01-01T00:00:00.000Z')");
      db.close(false);`;
    const child = Bun.spawnSync([process.execPath, "-e", script], { stderr: "pipe" });
    expect(child.stderr.toString()).toBe("");
    expect(child.exitCode).toBe(0);
    expect(counter.read()).not.toBe(before);
    reader.close();
  });

  test("is distrusted while the two header copies disagree or are not initialised", () => {
    const fake = join(dir, "fake.sqlite");
    const header = new Uint8Array(4096);
    const view = new DataView(header.buffer);
    const writeCopy = (at: number, change: number, init: number) => {
      view.setUint32(at + 8, change, true);
      header[at + 12] = init;
    };
    writeCopy(0, 7, 1);
    writeCopy(48, 7, 1);
    writeFileSync(`${fake}-shm`, header);
    expect(WalChangeCounter.open(fake)!.read()).toBe(7);
    writeCopy(48, 8, 1); // a writer between its two copies
    writeFileSync(`${fake}-shm`, header);
    expect(WalChangeCounter.open(fake)!.read()).toBeNull();
    writeCopy(48, 7, 0);
    writeFileSync(`${fake}-shm`, header);
    expect(WalChangeCounter.open(fake)!.read()).toBeNull();
  });

  test("no -shm file to map: null, so the tenant asks SQLite every time", () => {
    expect(WalChangeCounter.open(join(dir, "missing.sqlite"))).toBeNull();
    writeFileSync(join(dir, "empty.sqlite-shm"), "");
    expect(WalChangeCounter.open(join(dir, "empty.sqlite"))).toBeNull();
  });
});

describe("Tenant.generation", () => {
  test("stays put while nothing commits and moves after a commit by another connection", () => {
    const path = freshDatabase("c.sqlite");
    const tenant = new Tenant(path, openExistingDatabase(path), openExistingDatabase(path), wallClock);
    const outside = openExistingDatabase(path);
    const first = tenant.generation();
    expect(tenant.generation()).toBe(first);
    insertLead(outside, "c1");
    const second = tenant.generation();
    expect(second).not.toBe(first);
    expect(tenant.generation()).toBe(second);
    insertLead(tenant.write, "c2"); // the tenant's own write connection counts too
    expect(tenant.generation()).not.toBe(second);
    outside.close();
    tenant.close();
  });

  test("outsideGeneration ignores the server's own writer and moves with anyone else's commit", () => {
    const path = freshDatabase("d.sqlite");
    const tenant = new Tenant(path, openExistingDatabase(path), openExistingDatabase(path), wallClock);
    const outside = openExistingDatabase(path);
    const first = tenant.outsideGeneration();
    insertLead(tenant.write, "d1");
    expect(tenant.outsideGeneration()).toBe(first);
    insertLead(outside, "d2");
    const second = tenant.outsideGeneration();
    expect(second).not.toBe(first);
    insertLead(tenant.write, "d3");
    expect(tenant.outsideGeneration()).toBe(second);
    outside.close();
    tenant.close();
  });
});
