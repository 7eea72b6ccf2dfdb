// The three commands as an agency runs them: flags, summaries (human and --json), exit codes
// (docs/reference/behaviour.md §1 and §11), through the real entry point in a child process.
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, linkSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { FIXTURES, publishedProperties, seededCopy, tempDir } from "./helpers.ts";

const dir = tempDir();
afterAll(() => dir.cleanup());
const MAIN = join(import.meta.dir, "../../src/main.ts");

async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = Bun.spawn(["bun", MAIN, ...args], {
    stdout: "pipe",
    stderr: "pipe",
    env: { ...process.env, NO_COLOR: "1" },
  });
  const [stdout, stderr] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text()]);
  return { code: await child.exited, stdout, stderr };
}

describe("partner-api import", () => {
  test("a clean feed: exit 0 and the --json summary", async () => {
    const db = dir.path("clean.sqlite");
    const result = await cli("import", "--db", db, join(FIXTURES, "complete.xml"), "--json");
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      created: 6,
      updated: 0,
      unchanged: 0,
      unpublished: 0,
      rejected: 0,
      warnings: {},
      rejections: [],
      warningList: [],
    });
  });

  test("rejected listings: exit 1, each named by code and reason; the human summary lists them and the warnings", async () => {
    const db = dir.path("rejections.sqlite");
    const result = await cli("import", "--db", db, join(FIXTURES, "rejections.xml"));
    expect(result.code).toBe(1);
    expect(result.stdout).toStartWith(
      "6 created, 0 updated, 0 unchanged, 0 unpublished, 3 rejected, 4 warnings (OUT_OF_RANGE 1, FOREIGN_CURRENCY 1, UNKNOWN_PROPERTY_TYPE 1, DUPLICATE_LISTING 1)\n",
    );
    expect(result.stdout).toContain("rejected TT-1: line ");
    expect(result.stdout).toContain("rejected (no code): line ");
    expect(result.stdout).toContain(
      'warning OUT_OF_RANGE NEG-1 line 19 Details/ListPrice: a negative amount (got "-100")',
    );
    expect(publishedProperties(db).map((p) => p.code)).toEqual([
      "GOOD-1",
      "GOOD-2",
      "NEG-1",
      "SEP-1",
      "TYPE-1",
      "USD-1",
    ]);
  });

  test("warnings alone exit 0; --json lists each as { code, line, element, value, message } with its kind", async () => {
    const db = dir.path("warnings.sqlite");
    const feed = dir.path("warnings.xml");
    writeFileSync(
      feed,
      "<ListingDataFeed><Listings><Listing><ListingID>W-1</ListingID><Title>t</Title><TransactionType>Venda</TransactionType>" +
        '<Details><ListPrice>R$ 1.234,56</ListPrice><LivingArea unit="acres">3</LivingArea></Details></Listing></Listings></ListingDataFeed>',
    );
    const result = await cli("import", "--db", db, feed, "--json");
    expect(result.code).toBe(0);
    const summary = JSON.parse(result.stdout);
    expect(summary).toMatchObject({ created: 1, rejected: 0, warnings: { UNKNOWN_UNIT: 1 } });
    expect(summary.warningList).toEqual([
      {
        kind: "UNKNOWN_UNIT",
        code: "W-1",
        line: 1,
        element: "Details/LivingArea@unit",
        value: "acres",
        message: "an area unit that cannot be converted to square metres",
      },
    ]);
    const strict = await cli("import", "--db", dir.path("strict.sqlite"), feed, "--strict", "--json");
    expect(strict.code).toBe(1);
    expect(JSON.parse(strict.stdout)).toMatchObject({ created: 0, rejected: 1, rejections: [{ code: "W-1" }] });
  });

  test("malformed XML: exit 1, the parser's line and column, nothing created", async () => {
    const db = dir.path("malformed.sqlite");
    const result = await cli("import", "--db", db, join(FIXTURES, "malformed.xml"), "--json");
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/partner-api import: malformed XML at line 11, column \d+/);
    expect(JSON.parse(result.stdout).error).toMatch(/^malformed XML at line 11/);
    expect(existsSync(db)).toBe(false);
  });

  test("bad usage exits 2", async () => {
    expect((await cli("import", join(FIXTURES, "complete.xml"))).code).toBe(2);
    expect((await cli("import", "--db", dir.path("x.sqlite"))).code).toBe(2);
    const notOurs = dir.path("not-ours.sqlite");
    writeFileSync(notOurs, "plain text");
    const result = await cli("import", "--db", notOurs, join(FIXTURES, "complete.xml"));
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("not-ours.sqlite");
  });
});

describe("partner-api export and backup", () => {
  test("export writes the feed to stdout, or to --out with the summary on stdout", async () => {
    const db = seededCopy(dir.path("seeded.sqlite"));
    const stdout = await cli("export", "--db", db, "--format", "vrsync");
    expect(stdout.code).toBe(0);
    expect(stdout.stdout).toStartWith('<?xml version="1.0" encoding="UTF-8"?>\n<ListingDataFeed');
    const out = dir.path("leads.ndjson");
    const toFile = await cli(
      "export",
      "--db",
      db,
      "--entity",
      "leads",
      "--since",
      "2025-06-01T00:00:00Z",
      "--out",
      out,
      "--json",
    );
    expect(toFile.code).toBe(0);
    const summary = JSON.parse(toFile.stdout);
    expect(summary).toMatchObject({ entity: "leads", format: "ndjson", skipped: 0 });
    expect((await Bun.file(out).text()).trimEnd().split("\n")).toHaveLength(summary.exported);
    expect((await cli("export", "--db", db, "--entity", "leads", "--format", "vrsync")).code).toBe(2);
    expect((await cli("export", "--db", db, "--format", "ndjson", "--since", "yesterday")).code).toBe(2);
  });

  test("export --out naming one of the database's own files is refused, exit 2, and the database is left whole", async () => {
    const db = seededCopy(dir.path("export-over.sqlite"));
    const before = readFileSync(db);
    const linked = dir.path("export-over-link.sqlite");
    linkSync(db, linked); // another name for the same file
    for (const out of [db, `${db}-wal`, linked]) {
      const result = await cli("export", "--db", db, "--format", "ndjson", "--out", out);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain("is the database's own file");
    }
    expect(readFileSync(db).equals(before)).toBe(true);
    expect((await cli("export", "--db", db, "--format", "ndjson")).code).toBe(0);
  });

  test("import refuses the database's own file as its FEED, exit 2, without reading it", async () => {
    const db = seededCopy(dir.path("import-self.sqlite"));
    const result = await cli("import", "--db", db, db);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("is the database's own file");
  });

  test("backup refuses an existing --out with exit 2", async () => {
    const db = seededCopy(dir.path("backup-source.sqlite"));
    const out = dir.path("backup.sqlite");
    const first = await cli("backup", "--db", db, "--out", out, "--json");
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ out });
    const again = await cli("backup", "--db", db, "--out", out);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain("already exists; refusing to overwrite it");
  });
});
