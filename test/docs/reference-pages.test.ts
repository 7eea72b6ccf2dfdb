// The generated reference pages are current: docs/reference/cli.md is what src/cli/help.ts says
// and docs/reference/config.md what the config's TypeBox schema accepts. When this fails, run
// `bun run docs` and commit the pages it rewrote.
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { githubAnchor, parseHelp, ROOT, referencePages } from "../../scripts/reference-docs.ts";
import { HELP } from "../../src/cli/help.ts";

describe("generated reference pages", () => {
  for (const [path, expected] of Object.entries(referencePages())) {
    test(`${path} is what \`bun run docs\` writes`, () => {
      const committed = readFileSync(join(ROOT, path), "utf8");
      if (committed !== expected) throw new Error(`${path} is not current: run \`bun run docs\` and commit it`);
      expect(committed).toBe(expected);
    });
  }

  test("the CLI page has a section for every command of --help", () => {
    const page = referencePages()["docs/reference/cli.md"]!;
    const { commands } = parseHelp(HELP);
    expect(commands.length).toBeGreaterThanOrEqual(13);
    for (const { usage } of commands) expect(page).toContain("```\n" + usage + "\n```");
  });

  test("the config page lists every key of the schema, nested ones by their path", () => {
    const page = referencePages()["docs/reference/config.md"]!;
    for (const key of [
      "`environment`",
      "`clients[].apiKey`",
      "`clients[].feed.maxListings`",
      "`feeds[].maxUnpublishRatio`",
      "`redis.keyPrefix`",
      "`webhooks.allowHttp`",
    ]) {
      expect(page).toContain(`| ${key} |`);
    }
    expect(page).not.toContain("CONTRACT");
  });

  test("anchors are made the way GitHub makes them", () => {
    expect(githubAnchor("partner-api feeds status")).toBe("partner-api-feeds-status");
    expect(githubAnchor("21. A partner's first hour")).toBe("21-a-partners-first-hour");
  });
});

/** Every Markdown page of docs/, by path from the repository's root. */
function docPages(folder = "docs"): string[] {
  return readdirSync(join(ROOT, folder), { withFileTypes: true }).flatMap((entry) => {
    const path = `${folder}/${entry.name}`;
    if (entry.isDirectory()) return docPages(path);
    return entry.name.endsWith(".md") ? [path] : [];
  });
}

describe("the documentation's shape", () => {
  const lines = (path: string) => readFileSync(join(ROOT, path), "utf8").split("\n").length - 1;

  test("the README is at most 300 lines", () => {
    expect(lines("README.md")).toBeLessThanOrEqual(300);
  });

  test("no page of docs/ is over 500 lines", () => {
    const long = docPages().filter((path) => lines(path) > 500);
    expect(long).toEqual([]);
  });

  test("docs/README.md links every page of docs/", () => {
    const index = readFileSync(join(ROOT, "docs/README.md"), "utf8");
    const unlisted = docPages()
      .map((path) => path.slice("docs/".length))
      .filter((page) => page !== "README.md" && !index.includes(`](${page})`));
    expect(unlisted).toEqual([]);
  });

  test("no page points to a file a fresh clone does not have", () => {
    const outside = [...docPages(), "README.md", "CHANGELOG.md", "CONTRIBUTING.md"].filter((path) =>
      /CONTRACT(?:\.md| §)|SPEC\.md/.test(readFileSync(join(ROOT, path), "utf8")),
    );
    expect(outside).toEqual([]);
  });
});
