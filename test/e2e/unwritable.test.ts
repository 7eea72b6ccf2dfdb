// A folder or database the binary may not write is named with the reason and the fix, by every
// command that writes (seed, sandbox, import, backup, serve), instead of SQLite's bare "unable to
// open database file". The binary runs as a user without the right: `nobody` through setpriv when
// the suite runs as root (root may write anything), else the suite's own user on chmod-ed paths.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, copyFileSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { hashSecret } from "../../src/security/secrets.ts";
import { binaryInNewFolder, freePort } from "../helpers/binary.ts";
import { toolForTests } from "../helpers/tools.ts";

const asRoot = process.getuid?.() === 0;
const NOBODY = 65534;
const setpriv = asRoot ? toolForTests("setpriv", ["setpriv"], "install it: apt-get install util-linux") : null;
const runnable = !asRoot || setpriv !== null;
const uid = asRoot ? NOBODY : process.getuid!();
const gid = asRoot ? NOBODY : process.getgid!();

let base: string;
let binary: string;
/** A folder the binary may not write, holding a seeded database. */
let locked: string;
/** A folder it may write, holding a database file it may not. */
let open: string;
let readOnlyDb: string;
/**
 * The feed to import, copied beside the binary: the checkout may sit under a folder other users
 * cannot enter (a home of mode 0700), and the unprivileged user must reach the feed to get as far
 * as the write check.
 */
let feed: string;

/** The command line that runs the binary as the user without the right. */
function unprivileged(args: string[]): string[] {
  return asRoot
    ? [setpriv!, `--reuid=${NOBODY}`, `--regid=${NOBODY}`, "--clear-groups", binary, ...args]
    : [binary, ...args];
}

function run(args: string[]) {
  const result = Bun.spawnSync(unprivileged(args), { cwd: base, stdout: "pipe", stderr: "pipe" });
  return { code: result.exitCode, stderr: result.stderr.toString() };
}

function seed(path: string): void {
  const result = Bun.spawnSync([binary, "seed", "--out", path, "--properties", "20", "--leads", "10"], {
    stderr: "pipe",
  });
  if (result.exitCode !== 0) throw new Error(result.stderr.toString());
}

beforeAll(() => {
  if (!runnable) return;
  ({ dir: base, binary } = binaryInNewFolder("pa-unwritable-"));
  chmodSync(base, 0o755); // the unprivileged user runs the binary from here
  feed = join(base, "complete.xml");
  copyFileSync(join(import.meta.dir, "../fixtures/vrsync/complete.xml"), feed);
  chmodSync(feed, 0o644);
  locked = join(base, "locked");
  mkdirSync(locked);
  seed(join(locked, "agency.sqlite"));
  open = join(base, "open");
  mkdirSync(open);
  readOnlyDb = join(open, "agency-ro.sqlite");
  seed(readOnlyDb);
  chmodSync(open, 0o777);
  if (asRoot) {
    chmodSync(locked, 0o755); // root's: nobody may read, not write
    chmodSync(readOnlyDb, 0o644);
  } else {
    chmodSync(readOnlyDb, 0o444);
    chmodSync(locked, 0o555);
  }
});
afterAll(() => {
  if (!runnable) return;
  chmodSync(locked, 0o755);
  rmSync(base, { recursive: true, force: true });
});

/** What every message about the locked folder says: the path, who we are, whose it is, the fix. */
function expectLockedFolder(stderr: string, target: string, what = "the database"): void {
  expect(stderr).toContain(
    `cannot write ${what} ${target}: the folder ${locked} is not writable by this process (uid ${uid}, gid ${gid})`,
  );
  expect(stderr).toContain(asRoot ? "it belongs to uid 0, gid 0 with mode 0755" : "with mode 0555");
  expect(stderr).toContain(`Fix: chown -R ${uid}:${gid} ${locked}`);
  expect(stderr).not.toContain("unable to open database file");
}

describe.skipIf(!runnable)("a folder the process may not write: the path, the reason and `chown`", () => {
  test("seed", () => {
    const result = run(["seed", "--out", join(locked, "new.sqlite"), "--properties", "5", "--leads", "5"]);
    expect(result.code).toBe(1);
    expectLockedFolder(result.stderr, join(locked, "new.sqlite"));
  });

  test("sandbox, before it builds or serves anything", () => {
    const result = run(["sandbox", "--db", join(locked, "sandbox.sqlite"), "--port", String(freePort())]);
    expect(result.code).toBe(1);
    expectLockedFolder(result.stderr, join(locked, "sandbox.sqlite"), "the sandbox database");
  });

  test("import into a new database and into an existing one, before the feed is read", () => {
    for (const name of ["new.sqlite", "agency.sqlite"]) {
      const result = run(["import", "--db", join(locked, name), feed]);
      expect(result.code).toBe(1);
      expectLockedFolder(result.stderr, join(locked, name));
    }
  });

  test("backup to a folder it may not write", () => {
    const result = run(["backup", "--db", readOnlyDb, "--out", join(locked, "copy.sqlite")]);
    expect(result.code).toBe(1);
    expectLockedFolder(result.stderr, join(locked, "copy.sqlite"), "the backup");
  });

  test("serve without jwtSecret, its config in that folder: the secret file, and both ways out", () => {
    const config = join(base, "config-locked.json");
    writeFileSync(config, JSON.stringify({ clients: [] }));
    chmodSync(config, 0o644);
    if (!asRoot) chmodSync(locked, 0o755);
    copyFileSync(config, join(locked, "config.json"));
    if (!asRoot) chmodSync(locked, 0o555);
    const result = run(["serve", "--config", join(locked, "config.json"), "--port", String(freePort())]);
    expect(result.code).toBe(1);
    expectLockedFolder(result.stderr, join(locked, "config.json.jwt-secret"), "the generated token secret");
    expect(result.stderr).toContain('set "jwtSecret" in the config');
    expect(result.stderr).toContain("PARTNER_API_JWT_SECRET_FILE");
  });
});

describe.skipIf(!runnable)("a database file the process may not write", () => {
  test("import names the file and the fix", () => {
    const result = run(["import", "--db", readOnlyDb, feed]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `cannot write the database ${readOnlyDb}: the file ${readOnlyDb} is not writable by this process (uid ${uid}, gid ${gid})`,
    );
    expect(result.stderr).toContain(`Fix: chown ${uid}:${gid} ${readOnlyDb}`);
  });
});

describe.skipIf(!runnable)("serve keeps serving what it can and logs the reason and the fix for the rest", () => {
  test("a database in a folder it may not write is unavailable (NO_DATABASE); a read-only file is served, with a warning", async () => {
    const config = join(open, "config.json");
    writeFileSync(
      config,
      JSON.stringify({
        jwtSecret: "s".repeat(40),
        databases: { locked: join(locked, "agency.sqlite"), readonly: readOnlyDb },
        clients: [
          {
            id: "portal",
            apiKey: "pk_live_portal_1",
            secretHash: hashSecret("sk_live_portal_1"),
            database: "readonly",
          },
        ],
      }),
    );
    chmodSync(config, 0o644);
    const port = freePort();
    const server = Bun.spawn(unprivileged(["serve", "--config", config, "--port", String(port)]), {
      cwd: base,
      stdout: "pipe",
      stderr: "pipe",
    });
    // Until it answers or exits: a start-up slowed by a busy machine is no failure (a fixed
    // number of tries was: it gave up at 10 s and killed a server still starting).
    let health = 0;
    while (health === 0 && server.exitCode === null) {
      health = await fetch(`http://127.0.0.1:${port}/health`).then(
        (r) => r.status,
        () => 0,
      );
      if (health === 0) await Bun.sleep(50);
    }
    server.kill("SIGTERM");
    expect(await server.exited).toBe(0);
    expect(health).toBe(503); // one configured database cannot be read: degraded
    const lines = (await new Response(server.stdout).text())
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const about = (name: string) => lines.find((line) => line.database === name);
    expect(about("locked")).toMatchObject({ level: 40, msg: "database unavailable: its clients get NO_DATABASE" });
    expect(String(about("locked")!.reason)).toContain(
      `the folder ${locked} is not writable by this process (uid ${uid}, gid ${gid})`,
    );
    expect(String(about("locked")!.reason)).toContain(`chown -R ${uid}:${gid} ${locked}`);
    expect(about("readonly")).toMatchObject({ level: 40 });
    expect(String(about("readonly")!.msg)).toStartWith("database read-only");
    expect(String(about("readonly")!.reason)).toContain(`chown ${uid}:${gid} ${readOnlyDb}`);
  });
});
