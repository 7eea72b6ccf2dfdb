// The import's writes into a database others use: short transactions that yield the write
// lock between them, so another connection's writes (the server's lead creations) get in
// during a big import; the change feed stays exact (one event per listing); a stop between
// chunks keeps what was committed and the next import completes the rest.
import { Database } from "bun:sqlite";
import { afterAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { YIELD_AFTER_MS } from "../../src/agency/apply.ts";
import { importFeed } from "../../src/agency/import.ts";
import { WriterWaiting } from "../../src/db/writer-waiting.ts";
import { document, emptyDatabase, listing } from "./crm-feed-server.ts";
import { propertyChanges, publishedProperties, tempDir } from "./helpers.ts";

const dir = tempDir();
afterAll(() => dir.cleanup());

const LISTINGS = 3_000;
const photos = (code: string) =>
  `<Media>${Array.from({ length: 20 }, (_, i) => `<Item medium="image">https://img.example.com/${code}/${i}.jpg</Item>`).join("")}</Media>`;

function bigFeed(name: string, count = LISTINGS): string {
  const path = dir.path(name);
  writeFileSync(
    path,
    document(Array.from({ length: count }, (_, i) => listing(`BIG-${i}`, `Imóvel ${i}`, photos(`BIG-${i}`)))),
  );
  return path;
}

/**
 * A writer of another connection that has been waiting for a minute and goes on trying: its clock
 * is set back for its first try and forward for its last, so an import finds it waiting however
 * slow this machine is, and ends its chunk after the listing it is writing.
 */
function waitingWriter(db: string): { announce: () => void; done: () => void } {
  let clock = Date.now() - 60_000;
  const waiter = WriterWaiting.open(db, () => clock)!;
  return {
    announce: () => {
      clock = Date.now() - 60_000;
      waiter.announce();
      clock = Date.now() + 60_000;
      waiter.announce();
    },
    done: () => waiter.done(),
  };
}

describe("into an existing database, the writes yield the write lock", () => {
  test("another connection writes during a 3,000-listing import, without waiting; every listing has exactly one change-feed event", async () => {
    const db = emptyDatabase(dir.path("yield.sqlite"));
    const feed = bigFeed("big.xml");
    // Another writer that never waits for the lock: it gets in only while the import does not hold it.
    const other = new Database(db, { strict: true });
    other.run("PRAGMA busy_timeout = 0");
    other.run("CREATE TABLE IF NOT EXISTS probe (n INTEGER)");
    let gotIn = 0;
    let chunks = 0;
    let writing = false;
    const probe = setInterval(() => {
      if (!writing) return;
      try {
        other.run("INSERT INTO probe VALUES (1)");
        gotIn++;
      } catch {
        // The import holds the lock now.
      }
    }, 1);
    try {
      const summary = await importFeed(db, feed, {
        inEachChunk: () => {
          writing = true;
          chunks++;
        },
      });
      expect(summary).toMatchObject({ created: LISTINGS, rejected: 0 });
    } finally {
      clearInterval(probe);
      other.close();
    }
    expect(chunks).toBeGreaterThan(1);
    expect(gotIn).toBeGreaterThan(0);
    const changes = propertyChanges(db);
    expect(changes).toHaveLength(LISTINGS);
    expect(new Set(changes.map((c) => c.id)).size).toBe(LISTINGS);
    expect(changes.every((c) => c.change === "upsert")).toBe(true);
  }, 60_000);

  test("stopped between chunks: what was committed stays, nothing is unpublished, and the next import completes the rest", async () => {
    const db = emptyDatabase(dir.path("stopped.sqlite"));
    // One listing the feed no longer carries: an interrupted full import must not take it down.
    writeFileSync(dir.path("old.xml"), document([listing("OLD")]));
    await importFeed(db, dir.path("old.xml"));
    const feed = bigFeed("stopped.xml");
    const controller = new AbortController();
    // A writer said to be waiting at every chunk ends each chunk after one listing, so the stop
    // falls between chunks however fast this machine writes (a time-bounded chunk could take in
    // the whole feed on a quick machine, and there would be nothing to stop).
    const waiter = waitingWriter(db);
    let chunks = 0;
    const outcome = await importFeed(db, feed, {
      maxUnpublishRatio: 1,
      signal: controller.signal,
      inEachChunk: () => {
        waiter.announce();
        if (++chunks === 3) controller.abort(new Error("stopping"));
      },
    })
      .catch((error: unknown) => error)
      .finally(() => waiter.done());
    expect((outcome as Error).message).toBe("stopping");
    const kept = publishedProperties(db).length;
    expect(kept).toBeGreaterThan(1);
    expect(kept).toBeLessThan(LISTINGS + 1);
    expect(publishedProperties(db).some((p) => p.code === "OLD")).toBe(true);
    const again = await importFeed(db, feed, { maxUnpublishRatio: 1 });
    expect(again).toMatchObject({ created: LISTINGS - (kept - 1), unchanged: kept - 1, unpublished: 1 });
    expect(publishedProperties(db)).toHaveLength(LISTINGS);
  }, 60_000);
});

describe("a writer waiting for the lock (src/db/writer-waiting.ts)", () => {
  test("once one has waited YIELD_AFTER_MS, every chunk gives the lock up after the listing it is writing", async () => {
    const db = emptyDatabase(dir.path("waited.sqlite"));
    const feed = bigFeed("waited.xml", 12);
    const waiter = waitingWriter(db);
    const perChunk: number[] = [];
    const summary = await importFeed(db, feed, {
      partial: true,
      inEachChunk: (conn) => {
        perChunk.push((conn.query("SELECT count(*) AS n FROM properties").get() as { n: number }).n);
        // Said again at each chunk: the import's own taking of the lock clears only its own waiting.
        waiter.announce();
      },
    });
    expect(YIELD_AFTER_MS).toBeLessThan(60_000);
    expect(summary).toMatchObject({ created: 12 });
    // Each chunk began with one more listing written than the one before: one listing a chunk.
    expect(perChunk).toEqual(Array.from({ length: 12 }, (_, i) => i));
    waiter.done();
  }, 60_000);

  test("an import that finds the lock taken says it waits, and goes on once it is free", async () => {
    const db = emptyDatabase(dir.path("held.sqlite"));
    const feed = bigFeed("held.xml", 5);
    const flag = WriterWaiting.open(db)!;
    const holder = new Database(db);
    holder.run("BEGIN IMMEDIATE");
    const done = importFeed(db, feed, { partial: true });
    while (flag.waitedMs() === null) await Bun.sleep(1);
    holder.run("COMMIT");
    holder.close();
    expect(await done).toMatchObject({ created: 5 });
    expect(flag.waitedMs()).toBeNull();
    expect(publishedProperties(db)).toHaveLength(5);
  }, 60_000);
});
