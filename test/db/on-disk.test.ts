// What shows the change log shows only what is on disk (Tenant.onDisk): a commit is visible from
// COMMIT on, but the change feed and webhook dispatch wait for the WAL's sync that makes it
// durable, so a power cut cannot take back a sequence a partner has seen.
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { wallClock } from "../../src/clock.ts";
import { closeDatabase, openDatabase, openExistingDatabase } from "../../src/db/open.ts";
import { Tenant } from "../../src/db/tenants.ts";
import { parseChangesQuery, changesPage as readChanges } from "../../src/modules/changes/service.ts";
import type { LeadInput } from "../../src/modules/leads/model.ts";
import { createLead } from "../../src/modules/leads/service.ts";
import { type DispatchDeps, dispatchStep, replayStep } from "../../src/modules/webhooks/dispatch.ts";
import { webhookRepos } from "../../src/modules/webhooks/repo.ts";
import { heldFsync } from "../helpers/held-fsync.ts";

let dir: string;
let tenant: Tenant | null = null;
afterEach(() => {
  tenant?.close();
  tenant = null;
  rmSync(dir, { recursive: true, force: true });
});

/** A tenant on a fresh database whose WAL syncs return only when the test says so. */
function heldTenant() {
  dir = mkdtempSync(join(tmpdir(), "pa-on-disk-"));
  const path = join(dir, "t.sqlite");
  closeDatabase(openDatabase(path));
  const { fsync, calls } = heldFsync();
  tenant = new Tenant(path, openExistingDatabase(path), openExistingDatabase(path), wallClock, fsync);
  /** Lets every sync asked for so far return, and the callbacks after them run. */
  const release = async () => {
    for (let turn = 0; turn < 20; turn++) {
      calls.splice(0).forEach((done) => done(null));
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  /** Waits (a turn at a time) until the writer's batch has committed and asked for its sync. */
  const committed = async () => {
    for (let turn = 0; turn < 50 && calls.length === 0; turn++) await new Promise((resolve) => setImmediate(resolve));
    expect(calls.length).toBe(1);
  };
  return { tenant, calls, release, committed };
}

/** Writes `n` property removals to the change log through the server's writer (durable writes). */
function logRemovals(t: Tenant, n: number, from = 1): Promise<unknown> {
  return t.writer.submit((db) => {
    for (let i = from; i < from + n; i++) {
      db.run(
        "INSERT INTO changes (entity, record_id, change, at) VALUES ('properties', ?, 'remove', '2026-11-25T00:00:00.000Z')",
        [`p${i}`],
      );
    }
  });
}

const settledWithin = async (promise: Promise<unknown>, turns: number) => {
  let settled = false;
  void promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  for (let i = 0; i < turns; i++) await new Promise((resolve) => setImmediate(resolve));
  return settled;
};

/** A page of the change feed as a client that reads every lead asks for it. */
const changesPage = (t: Tenant, rawQuery: string) =>
  readChanges(t, rawQuery, parseChangesQuery(new URLSearchParams(rawQuery)), { leads: { kind: "all" } });

describe("GET /v1/changes answers only with what is on disk", () => {
  test("a page that shows a commit whose sync is under way waits for it; then pages answer at once", async () => {
    const { tenant: t, release, committed } = heldTenant();
    const written = logRemovals(t, 3);
    await committed(); // its sync is held
    const page = changesPage(t, "entity=properties&after=0");
    expect(page).toBeInstanceOf(Promise);
    expect(await settledWithin(page as Promise<string>, 10)).toBe(false);
    await release();
    const body = JSON.parse(await page);
    expect(body.data.map((c: { id: string }) => c.id)).toEqual(["p1", "p2", "p3"]);
    expect(body.meta.head).toBe(3);
    await written;
    // Known to be on disk now: the same page, another one, answered without waiting.
    expect(typeof changesPage(t, "entity=properties&after=1")).toBe("string");
    expect(t.onDisk(3)).toBeNull();
  });

  test("an empty page at the head needs no sync", () => {
    const { tenant: t, calls } = heldTenant();
    expect(typeof changesPage(t, "entity=leads&after=0")).toBe("string");
    expect(calls.length).toBe(0);
  });
});

describe("webhook dispatch sends only what is on disk", () => {
  const target = { id: "sub", clientId: "partner", events: new Set(["property.removed"] as const), afterSequence: 0 };
  const deps = (t: Tenant): DispatchDeps => ({
    tenant: t,
    onDiskThrough: t.onDiskThrough(),
    repos: webhookRepos(t),
    records: () => null,
    streams: (_, entity) => ({ entity, owner: null }),
    now: () => 0,
    newId: () => crypto.randomUUID(),
  });

  test("events after the last sequence known on disk wait; the sync brings them", async () => {
    const { tenant: t, release, committed } = heldTenant();
    void logRemovals(t, 5);
    await committed();
    expect(dispatchStep(deps(t), [target])).toBeNull();
    const onDisk = t.onDisk(5)!;
    await release();
    await onDisk;
    const step = dispatchStep(deps(t), [target]);
    expect(step).not.toBeNull();
    const sent = await t.writer.submit((db) => {
      db.run(
        "INSERT INTO webhook_subscriptions (id, client_id, url, events, enabled, secret, after_sequence, created_at, updated_at) " +
          "VALUES ('sub', 'partner', 'https://example.com/hook', '[\"property.removed\"]', 1, 'whsec_test', 0, 'now', 'now')",
      );
      return step!.write(db, () => ({ owner: "me", until: 1 }));
    }, "bookkeeping");
    expect(sent!.map((d) => d.sequence)).toEqual([1, 2, 3, 4, 5]);
  });

  test("a replay goes as far as what is on disk, and on from there once more is", async () => {
    const { tenant: t, release, committed } = heldTenant();
    void logRemovals(t, 3);
    await committed();
    const firstThree = t.onDisk(3)!;
    await release();
    await firstThree;
    void logRemovals(t, 3, 4);
    await committed();
    const first = replayStep(deps(t), target, 0, 6)!;
    expect(first.more).toBe(false); // not more at once: the sync's pass brings the rest
    expect(replayStep(deps(t), target, 3, 6)).toBeNull();
    const onDisk = t.onDisk(6)!;
    await release();
    await onDisk;
    expect(replayStep(deps(t), target, 3, 6)).not.toBeNull();
  });
});

describe("an Idempotency-Key replay is a 201 too", () => {
  const input: LeadInput = {
    name: "Ana Souza",
    email: "ana@example.com.br",
    phone: "+55 11 91234-5678",
    message: "Quero visitar",
    source: "WEBSITE",
    propertyCode: null,
    interestedPropertyTitle: null,
    interestedPropertyLink: null,
    trafficOrigin: null,
  };

  test("it answers once what it replays is on disk, as the first answer did", async () => {
    const { tenant: t, calls, release } = heldTenant();
    const first = createLead(t, "partner", input, "key-1", wallClock);
    expect(await settledWithin(first, 20)).toBe(false); // committed, its sync held
    await release();
    const created = await first;
    expect(created.replayed).toBe(false);
    // What another process's creation looks like from here: the key's row committed, nothing of
    // this process waiting for it. The replay asks for a sync of its own and waits for it.
    const replay = createLead(t, "partner", input, "key-1", wallClock);
    expect(await settledWithin(replay, 5)).toBe(false);
    expect(calls.length).toBe(1);
    await release();
    expect(await replay).toEqual({ body: created.body, replayed: true });
  });
});
