// The documented workflow: other processes open the database a server is serving (imports,
// exports, backups, a sqlite3 shell) while partners read and create leads. Each opens and
// closes the file, and each close on Linux drops the POSIX locks of that process only: the
// server must keep its own SQLite locks throughout, stay up, answer no 5xx, lose no lead, and
// see every outside commit at once.
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { binaryInNewFolder, type RunningBinary, sandboxToken, startBinary } from "../helpers/binary.ts";
import { shmLocksHeldBy } from "../helpers/locks.ts";
import { toolForTests } from "../helpers/tools.ts";

const PYTHON = toolForTests(
  "python3",
  ["python3"],
  "install it with `apt-get install -y python3` to run the sqlite3-shell part of this test",
);

let dir: string;
let binary: string;
/** Every server started here: killed at the end even when a test failed half-way. */
const started: RunningBinary[] = [];

beforeAll(() => {
  ({ dir, binary } = binaryInNewFolder("pa-shared-db-"));
});
afterAll(() => {
  for (const server of started) if (server.proc.exitCode === null) server.proc.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

function run(args: string[]) {
  const result = Bun.spawnSync([binary, ...args], { cwd: dir, stdout: "pipe", stderr: "pipe" });
  return { code: result.exitCode, stdout: result.stdout.toString(), stderr: result.stderr.toString() };
}

/** A fresh seeded database and its published listings as NDJSON lines (objects). */
function seeded(name: string, properties: number): { path: string; listings: Record<string, unknown>[] } {
  const path = join(dir, name);
  expect(run(["seed", "--out", path, "--properties", String(properties), "--leads", "200"]).code).toBe(0);
  const exported = run(["export", "--db", path, "--format", "ndjson"]);
  expect(exported.code).toBe(0);
  const listings = exported.stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { path, listings: listings.filter((listing) => typeof listing.code === "string") };
}

/**
 * Partners at work: two readers and a lead writer, each a loop of requests, until stopped.
 * Records every status (a dropped connection as 0) and the id of every 201.
 */
class PartnerLoad {
  readonly statuses = new Map<number, number>();
  readonly createdLeads: string[] = [];
  private running = true;
  private readonly loops: Promise<void>[];

  constructor(
    private readonly url: string,
    private readonly token: string,
  ) {
    const auth = { authorization: `Bearer ${token}` };
    this.loops = [
      this.loop(() => fetch(`${url}/v1/properties?fields=id,code,title&limit=20`, { headers: auth })),
      this.loop(() => fetch(`${url}/v1/changes?entity=properties&after=0&limit=50`, { headers: auth })),
      this.loop(async () => {
        const response = await fetch(`${url}/v1/leads`, {
          method: "POST",
          headers: { ...auth, "content-type": "application/json", "idempotency-key": crypto.randomUUID() },
          body: JSON.stringify({
            name: "Ana Souza",
            email: "ana@example.com",
            phone: "+55 11 91234-5678",
            message: "Quero visitar",
          }),
        });
        if (response.status === 201)
          this.createdLeads.push(((await response.clone().json()) as { data: { id: string } }).data.id);
        return response;
      }),
    ];
  }

  private async loop(request: () => Promise<Response>): Promise<void> {
    while (this.running) {
      let status = 0;
      try {
        const response = await request();
        status = response.status;
        await response.arrayBuffer();
      } catch {
        status = 0; // the connection failed: the server is gone or hung up
      }
      this.statuses.set(status, (this.statuses.get(status) ?? 0) + 1);
      if (status === 0) await Bun.sleep(10);
    }
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
  }

  /** Statuses of failures the partners saw: 5xx, or no answer at all. */
  failures(): Record<number, number> {
    return Object.fromEntries([...this.statuses].filter(([status]) => status === 0 || status >= 500));
  }
}

/** A Python sqlite3 reader opening and closing the database in a loop, as a shell would. */
function pythonReader(path: string) {
  const script = [
    "import sqlite3, sys, time",
    "while True:",
    `    con = sqlite3.connect(${JSON.stringify(path)}, timeout=5)`,
    "    con.execute('SELECT count(*) FROM properties WHERE is_published = 1').fetchone()",
    "    con.execute('SELECT count(*) FROM leads').fetchone()",
    "    con.close()",
    "    sys.stdout.write('.')",
    "    sys.stdout.flush()",
    "    time.sleep(0.005)",
  ].join("\n");
  return Bun.spawn([PYTHON!, "-c", script], { stdout: "pipe", stderr: "pipe" });
}

/** The server's pid still holds SQLite's "connection alive" lock on byte 128 of the -shm. */
function serverHoldsItsLock(server: RunningBinary, path: string): boolean {
  return shmLocksHeldBy(path, server.proc.pid).some((lock) => lock.kind === "READ" && lock.start === 128);
}

function integrityCheck(path: string): string {
  const db = new Database(path, { readonly: true });
  try {
    return (db.query("PRAGMA integrity_check").get() as { integrity_check: string }).integrity_check;
  } finally {
    db.close();
  }
}

/** How many times each lead id is stored. */
function storedCounts(path: string, ids: string[]): Map<string, number> {
  const db = new Database(path, { readonly: true });
  try {
    const count = db.query<{ n: number }, [string]>("SELECT count(*) AS n FROM leads WHERE id = ?");
    return new Map(ids.map((id) => [id, count.get(id)!.n]));
  } finally {
    db.close();
  }
}

async function titleOf(url: string, token: string, code: string): Promise<string | undefined> {
  const response = await fetch(`${url}/v1/properties?code=${encodeURIComponent(code)}&fields=title`, {
    headers: { authorization: `Bearer ${token}` },
  });
  return ((await response.json()) as { data: { title: string }[] }).data[0]?.title;
}

describe("a served database opened by other processes", () => {
  test.skipIf(PYTHON === null)(
    "50 partial imports, 10 exports, 3 backups and a Python sqlite3 reader while partners read and create leads",
    async () => {
      const { path, listings } = seeded("served.sqlite", 300);
      const server = await startBinary(binary, ["sandbox", "--db", path, "--rate-limit", "100000000"], dir);
      started.push(server);
      const token = await sandboxToken(server.url);
      const load = new PartnerLoad(server.url, token);
      const reader = pythonReader(path);
      const lockSeen: boolean[] = [];
      const staleReads: string[] = [];
      try {
        for (let i = 0; i < 50; i++) {
          // Ten listings get a new title in each run: a partial import, from another process.
          const changed = listings.slice((i * 10) % (listings.length - 10), ((i * 10) % (listings.length - 10)) + 10);
          const feed = join(dir, `feed-${i}.ndjson`);
          writeFileSync(
            feed,
            changed.map((listing) => JSON.stringify({ ...listing, title: `${listing.title} (run ${i})` })).join("\n") +
              "\n",
          );
          const imported = run(["import", "--db", path, "--partial", feed]);
          expect({ run: i, code: imported.code, stderr: imported.stderr }).toEqual({ run: i, code: 0, stderr: "" });
          // The import's commit is seen by the very next request: caches stay exact.
          const code = changed[0]!.code as string;
          const title = await titleOf(server.url, token, code);
          if (title !== `${changed[0]!.title} (run ${i})`) staleReads.push(`run ${i}: ${code} read as "${title}"`);

          if (i % 5 === 4) {
            const out = join(dir, `export-${i}.ndjson`);
            expect(run(["export", "--db", path, "--format", "ndjson", "--out", out]).code).toBe(0);
            expect(readFileSync(out, "utf8").trim().split("\n").length).toBeGreaterThan(listings.length - 1);
          }
          if (i === 10 || i === 25 || i === 40) {
            const copy = join(dir, `backup-${i}.sqlite`);
            expect(run(["backup", "--db", path, "--out", copy]).code).toBe(0);
            expect(integrityCheck(copy)).toBe("ok");
          }
          lockSeen.push(serverHoldsItsLock(server, path));
          expect(server.proc.exitCode).toBeNull();
        }
        await Bun.sleep(200); // the loops keep going a moment after the last outside process
        // The reader must still be reading: a file it cannot open (a schema its SQLite cannot
        // parse) ends it at once, which the loop alone would never notice.
        expect(reader.exitCode === null ? "" : await new Response(reader.stderr).text()).toBe("");
      } finally {
        await load.stop();
        reader.kill("SIGKILL");
        await reader.exited;
      }
      expect((await new Response(reader.stdout).text()).length).toBeGreaterThan(10);
      expect(staleReads).toEqual([]);
      expect(load.failures()).toEqual({});
      expect(lockSeen.every(Boolean)).toBe(true);
      expect((await fetch(`${server.url}/health`)).status).toBe(200);
      expect(await server.stop()).toBe(0);

      expect(load.createdLeads.length).toBeGreaterThan(50);
      const counts = storedCounts(path, load.createdLeads);
      expect([...counts.values()].every((n) => n === 1)).toBe(true);
      expect(integrityCheck(path)).toBe("ok");
    },
    300_000,
  );

  test("an import killed with -9 in the middle of its write costs the server nothing and leaves whole chunks, which the next import completes", async () => {
    const { path, listings } = seeded("killed.sqlite", 200);
    // 6,000 new listings: a write phase long enough to be caught holding the write lock.
    const feed = join(dir, "big.ndjson");
    const lines: string[] = [];
    for (let i = 0; i < 6000; i++) {
      const { id: _id, ...listing } = listings[i % listings.length]!;
      lines.push(JSON.stringify({ ...listing, code: `K-${i}` }));
    }
    writeFileSync(feed, lines.join("\n") + "\n");

    const server = await startBinary(binary, ["sandbox", "--db", path, "--rate-limit", "100000000"], dir);
    started.push(server);
    const token = await sandboxToken(server.url);
    const load = new PartnerLoad(server.url, token);
    let caught = false;
    try {
      const importer = Bun.spawn([binary, "import", "--db", path, "--partial", feed], {
        cwd: dir,
        stdout: "ignore",
        stderr: "ignore",
      });
      // The WAL write lock is byte 120 of the -shm: held by the importer only while it writes.
      while (importer.exitCode === null && !caught) {
        if (shmLocksHeldBy(path, importer.pid).some((lock) => lock.kind === "WRITE" && lock.start === 120)) {
          importer.kill("SIGKILL");
          caught = true;
        } else {
          await Bun.sleep(2);
        }
      }
      await importer.exited;
      await Bun.sleep(500); // partners keep going after the crash
      expect(serverHoldsItsLock(server, path)).toBe(true);

      // What the killed import committed is whole chunks of whole listings (an import into a
      // served file commits in short chunks, so partners' writes need not wait for all of it).
      const partial = new Database(path, { readonly: true });
      const committed = (
        partial.query("SELECT count(*) AS n FROM properties WHERE code LIKE 'K-%'").get() as { n: number }
      ).n;
      const committedEvents = (
        partial
          .query(
            "SELECT count(*) AS n FROM changes c JOIN properties p ON p.id = c.record_id WHERE c.entity = 'properties' AND p.code LIKE 'K-%'",
          )
          .get() as { n: number }
      ).n;
      partial.close();
      // Killed while holding the write lock: the chunk it was writing is not there.
      expect(committed).toBeLessThan(6000);
      // Each listing that is there came with its change-feed event, in the same commit.
      expect(committedEvents).toBe(committed);

      // The same import again completes it; the next import into the same file works as usual.
      expect(run(["import", "--db", path, "--partial", feed]).code).toBe(0);
      const after = join(dir, "after.ndjson");
      writeFileSync(after, JSON.stringify({ ...listings[0]!, title: "after the crash" }) + "\n");
      expect(run(["import", "--db", path, "--partial", after]).code).toBe(0);
      expect(await titleOf(server.url, token, listings[0]!.code as string)).toBe("after the crash");
    } finally {
      await load.stop();
    }
    expect(caught).toBe(true);
    expect(load.failures()).toEqual({});
    expect(await server.stop()).toBe(0);

    expect(integrityCheck(path)).toBe("ok");
    // Every listing once, each with its change-feed event: nothing lost or doubled by the kill.
    const db = new Database(path, { readonly: true });
    const imported = db
      .query("SELECT count(*) AS n, count(DISTINCT code) AS codes FROM properties WHERE code LIKE 'K-%'")
      .get();
    const events = db
      .query(
        "SELECT count(*) AS n FROM changes c JOIN properties p ON p.id = c.record_id WHERE c.entity = 'properties' AND p.code LIKE 'K-%'",
      )
      .get();
    db.close();
    expect(imported).toEqual({ n: 6000, codes: 6000 });
    expect(events).toEqual({ n: 6000 });
    const counts = storedCounts(path, load.createdLeads);
    expect(load.createdLeads.length).toBeGreaterThan(10);
    expect([...counts.values()].every((n) => n === 1)).toBe(true);
  }, 300_000);
});
