// The database file in the SQLite that agencies' distributions ship (docs/operators/running.md):
// the system's sqlite3 shell and Python's sqlite3 module (Debian 12: SQLite 3.40) open a file the
// product wrote, read every table and pass integrity_check, and so does a backup they make of it.
// A schema they cannot parse (an expression nested deeper than their parser's stack) fails here.
import { Database } from "bun:sqlite";
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { seededDatabase } from "../helpers/app.ts";
import { toolForTests } from "../helpers/tools.ts";

const SQLITE3 = toolForTests(
  "sqlite3",
  ["/usr/bin/sqlite3", "sqlite3"],
  "install it with `apt-get install -y sqlite3` to check the file opens in the distribution's SQLite",
);
const PYTHON = toolForTests(
  "python3",
  ["python3"],
  "install it with `apt-get install -y python3` to check the file opens in Python's sqlite3",
);

const dir = mkdtempSync(join(tmpdir(), "pa-stock-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The tables a reader counts: every one, the word index and its shadow tables included. */
const TABLES_SQL = "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'";
/** What the word index answers, asked of each reader too. */
const WORDS_SQL = "SELECT count(*) FROM property_words WHERE property_words MATCH 'apartamento OR casa'";

/** Every table of the file and its number of rows, and the word index's answer, read by the product's own SQLite. */
function tablesOf(path: string): Record<string, number> {
  const db = new Database(path, { readonly: true });
  try {
    const names = (db.query(TABLES_SQL).values() as [string][]).map(([name]) => name);
    return Object.fromEntries([
      ...names.map((name) => [name, (db.query(`SELECT count(*) FROM "${name}"`).values() as [number][])[0]![0]]),
      ["words", (db.query(WORDS_SQL).values() as [number][])[0]![0]],
    ]);
  } finally {
    db.close();
  }
}

/** Runs a program to its end: its output, and its error output and exit code when it failed. */
function run(command: string[], input?: string): string {
  const result = Bun.spawnSync(command, { stdin: input === undefined ? "ignore" : Buffer.from(input) });
  const out = result.stdout.toString();
  const err = result.stderr.toString();
  if (result.exitCode !== 0 || err !== "") throw new Error(`${command.join(" ")} failed (${result.exitCode}): ${err}`);
  return out;
}

const PYTHON_READER = `
import json, sqlite3, sys
con = sqlite3.connect(sys.argv[1])
names = [r[0] for r in con.execute(sys.argv[2])]
counts = {n: con.execute('SELECT count(*) FROM "%s"' % n).fetchone()[0] for n in names}
counts["words"] = con.execute(sys.argv[3]).fetchone()[0]
check = con.execute("PRAGMA integrity_check").fetchall()
print(json.dumps({"version": sqlite3.sqlite_version, "counts": counts, "check": check}))
`;

describe("the file opens in the distribution's SQLite", () => {
  const path = seededDatabase(dir, 300, 300);
  const expected = tablesOf(path);

  test("the tables are many and hold rows, the word index's among them", () => {
    expect(Object.keys(expected).length).toBeGreaterThan(10);
    expect(expected.properties).toBe(300);
    expect(expected.property_words_data).toBeGreaterThan(0);
    expect(expected.property_words).toBe(300); // scanned: its text is read from properties
    expect(expected.words).toBeGreaterThan(10);
  });

  test.skipIf(SQLITE3 === null)("the sqlite3 shell lists, counts and checks every table, and backs it up", () => {
    const version = run([SQLITE3!, ":memory:", "SELECT sqlite_version()"]).trim();
    const counts = (file: string) =>
      Object.fromEntries(
        Object.keys(expected).map((name) => [
          name,
          Number(
            run([SQLITE3!, "-readonly", file, name === "words" ? WORDS_SQL : `SELECT count(*) FROM "${name}"`]).trim(),
          ),
        ]),
      );
    expect(run([SQLITE3!, "-readonly", path, ".tables"]).split(/\s+/).filter(Boolean).sort()).toEqual(
      expect.arrayContaining(Object.keys(expected).filter((name) => name !== "words")),
    );
    expect({ version, counts: counts(path) }).toEqual({ version, counts: expected });
    expect(run([SQLITE3!, "-readonly", path, "PRAGMA integrity_check"]).trim()).toBe("ok");
    const backup = join(dir, "shell-backup.sqlite");
    run([SQLITE3!, path, `.backup '${backup}'`]);
    expect(counts(backup)).toEqual(expected);
    expect(run([SQLITE3!, "-readonly", backup, "PRAGMA integrity_check"]).trim()).toBe("ok");
  });

  test.skipIf(PYTHON === null)("Python's sqlite3 counts and checks every table", () => {
    const answer = JSON.parse(run([PYTHON!, "-c", PYTHON_READER, path, TABLES_SQL, WORDS_SQL])) as {
      version: string;
      counts: Record<string, number>;
      check: string[][];
    };
    expect({ ...answer, version: "" }).toEqual({ version: "", counts: expected, check: [["ok"]] });
  });
});
