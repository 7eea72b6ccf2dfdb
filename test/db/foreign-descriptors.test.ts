// The rule of src/db/tenants.ts, held by the build: only SQLite opens, maps or closes a
// database's files, because closing any descriptor of a file drops every POSIX lock the
// process holds on it, SQLite's included (a -shm memory map once crashed the server that way).
// Every call in src/ that opens a file descriptor is listed here with why it never meets a
// database file; a new one fails this test until someone has checked it against the rule.
import { describe, expect, test } from "bun:test";
import { join, relative } from "node:path";
import { Glob } from "bun";

const SRC = join(import.meta.dir, "../../src");

/** Calls that open (or map) a file by path and close it again. */
const OPENS =
  /\bBun\.(?:mmap|file|write)\(|\b(?:openSync|createReadStream|createWriteStream|readFileSync|writeFileSync|appendFileSync|copyFileSync|cpSync)\(|\bfs\.(?:open|promises\.open)\(|\bfrom "node:fs\/promises"/;

/** Each file that may open descriptors, and why none of them is a database's file. */
const CHECKED: Record<string, string> = {
  "cli/export.ts": "writes --out, which export refuses when it names one of the database's files (src/db/files.ts)",
  "formats/source.ts": "reads FEED, which import refuses when it names one of the database's files (src/db/files.ts)",
  "config/load.ts": "reads the config file",
  "config/jwt-secret.ts": "reads and writes the token secret's own file",
  "agency/staging.ts": "creates its private staging file in the temp folder before SQLite first opens it",
  "writable.ts": "reads /proc/self/mountinfo",
  "db/in-use.ts": "reads /proc/locks",
  "allocator.ts": "reads /proc/self/cmdline",
  "db/writer-waiting.ts":
    "opens and maps the database's -wait flag, a file of its own that SQLite never opens or locks (test/db/writer-waiting.test.ts), so closing it drops none of SQLite's locks",
  "db/wal-sync.ts":
    "the one exception: it opens a database's -wal to fsync it, and SQLite takes no POSIX lock on a -wal (test/db/wal-sync.test.ts shows it), so closing it drops none",
};

describe("no descriptor of a database's files behind SQLite's back", () => {
  test("every source file that opens files by path is one checked against the rule", async () => {
    const opening: string[] = [];
    for await (const path of new Glob("**/*.ts").scan(SRC)) {
      const code = (await Bun.file(join(SRC, path)).text())
        .split("\n")
        .filter((line) => !line.trimStart().startsWith("//") && !line.trimStart().startsWith("*"))
        .join("\n");
      if (OPENS.test(code)) opening.push(relative(".", path));
    }
    expect(opening.sort()).toEqual(Object.keys(CHECKED).sort());
  });

  test("the pattern catches what it is for (a memory map, a read, a stream)", () => {
    for (const line of [
      "Bun.mmap(`${path}-shm`)",
      "readFileSync(dbPath)",
      "createReadStream(file)",
      "Bun.file(path).stream()",
      "openSync(p, 'r')",
    ]) {
      expect(OPENS.test(line)).toBe(true);
    }
    expect(OPENS.test("statSync(path)")).toBe(false);
  });
});
