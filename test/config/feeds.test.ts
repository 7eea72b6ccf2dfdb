// The config's feeds (CONTRACT §14): defaults, resolution, and each problem named by its path,
// never echoing a header's value.
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { formatDuration, parseDuration } from "../../src/config/duration.ts";
import { ConfigError, loadConfigFile } from "../../src/config/load.ts";
import { hashSecret } from "../../src/security/secrets.ts";

let dir: string | undefined;
afterEach(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

const base = {
  jwtSecret: "x".repeat(32),
  databases: { agency: "data/agency.sqlite", other: "/srv/other.sqlite" },
  clients: [{ id: "portal-x", apiKey: "pk_live_portalx_7Hq2", secretHash: hashSecret("sk_live_x"), database: "agency" }],
};
const feed = { id: "crm", database: "agency", url: "https://crm.example.com.br/feeds/vrsync.xml" };

function write(config: unknown): string {
  dir = mkdtempSync(join(tmpdir(), "pa-config-feeds-"));
  const path = join(dir, "config.json");
  writeFileSync(path, JSON.stringify(config));
  return path;
}

function problemsOf(config: unknown): string[] {
  try {
    loadConfigFile(write(config));
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
  throw new Error("expected the config to be refused");
}

describe("durations", () => {
  test("units add up, and are written back in their shortest form", () => {
    expect(parseDuration("30s")).toBe(30_000);
    expect(parseDuration("1h30m")).toBe(5_400_000);
    expect(parseDuration("1d")).toBe(86_400_000);
    expect(parseDuration("250ms")).toBe(250);
    expect(formatDuration(5_400_000)).toBe("1h30m");
    for (const bad of ["", "15", "m", "1.5m", "-1m", "15 m", "1w"]) expect(parseDuration(bad)).toBeNull();
  });
});

describe("a valid feed", () => {
  test("gets the contract's defaults and its database's resolved file", () => {
    const config = loadConfigFile(write({ ...base, feeds: [feed] }));
    expect(config.feeds).toEqual([
      {
        id: "crm",
        database: "agency",
        databasePath: join(dir!, "data/agency.sqlite"),
        url: feed.url,
        everyMs: 15 * 60_000,
        mode: "full",
        headers: {},
        maxUnpublishRatio: 0.5,
        timeoutMs: 30 * 60_000,
        maxBytes: 1024 * 1024 * 1024,
      },
    ]);
    expect(Object.isFrozen(config.feeds[0])).toBe(true);
  });

  test("every key as written", () => {
    const config = loadConfigFile(
      write({
        ...base,
        feeds: [{ ...feed, every: "1h", mode: "partial", headers: { Authorization: "Bearer abc" }, maxUnpublishRatio: 0.1, timeout: "2m", maxBytes: 1000 }],
      }),
    );
    expect(config.feeds[0]).toMatchObject({ everyMs: 3_600_000, mode: "partial", headers: { Authorization: "Bearer abc" }, maxUnpublishRatio: 0.1, timeoutMs: 120_000, maxBytes: 1000 });
  });

  test("a config without feeds has none", () => {
    expect(loadConfigFile(write(base)).feeds).toEqual([]);
  });

  test("30s is the sandbox's minimum", () => {
    expect(loadConfigFile(write({ ...base, environment: "sandbox", feeds: [{ ...feed, every: "30s" }] })).feeds[0]!.everyMs).toBe(30_000);
  });
});

describe("each problem is named, with its path", () => {
  test("an unknown database, a bad URL, an interval under the minimum and duplicate ids, all at once", () => {
    const problems = problemsOf({
      ...base,
      feeds: [
        { ...feed, every: "30s" },
        { ...feed, database: "nowhere", mode: "partial" },
        { id: "b", database: "other", url: "ftp://crm.example.com/feed.xml", mode: "partial" },
        { id: "c", database: "other", url: "not a url", mode: "partial" },
      ],
    });
    expect(problems).toEqual([
      "/feeds/0/every: 30s is shorter than the minimum, 1m (30s in the sandbox)",
      '/feeds/1/id: duplicate feed id "crm" (also /feeds/0/id)',
      '/feeds/1/database: "nowhere" is not a name in databases',
      "/feeds/2/url: must be an http(s) URL, not ftp (ftp://crm.example.com/feed.xml)",
      "/feeds/3/url: is not an absolute URL ((not a URL))",
    ]);
  });

  test("the sandbox's minimum is 30s", () => {
    expect(problemsOf({ ...base, environment: "sandbox", feeds: [{ ...feed, every: "29s" }] })).toEqual([
      "/feeds/0/every: 29s is shorter than the minimum, 30s in the sandbox",
    ]);
  });

  test("credentials in the URL are refused (the URL is shown; headers are not), and not echoed", () => {
    const problems = problemsOf({ ...base, feeds: [{ ...feed, url: "https://agency:hunter2@crm.example.com/feed.xml?key=abc" }] });
    expect(problems).toEqual([
      "/feeds/0/url: must not carry a user or password: put them in headers (Authorization), which are never shown (https://crm.example.com/feed.xml?…)",
    ]);
    expect(problems.join()).not.toContain("hunter2");
  });

  test("a header value with a line break is named by its header, its value never echoed", () => {
    const problems = problemsOf({ ...base, feeds: [{ ...feed, headers: { Authorization: "Bearer s3cret\r\nX-Evil: 1" } }] });
    expect(problems).toEqual(["/feeds/0/headers/Authorization: must not contain line breaks or NUL"]);
    expect(problems.join()).not.toContain("s3cret");
  });

  test("schema problems: unknown keys, a bad mode, a ratio outside 0..1, a malformed interval", () => {
    const problems = problemsOf({ ...base, feeds: [{ ...feed, mode: "delta", maxUnpublishRatio: 2, every: "soon", extra: 1 }] });
    expect(problems).toEqual(
      expect.arrayContaining([
        "/feeds/0/extra: unknown key",
        expect.stringMatching(/^\/feeds\/0\/mode: /),
        expect.stringMatching(/^\/feeds\/0\/maxUnpublishRatio: /),
        expect.stringMatching(/^\/feeds\/0\/every: /),
      ]),
    );
  });

  test("two full feeds of one database would unpublish each other's listings", () => {
    expect(problemsOf({ ...base, feeds: [feed, { ...feed, id: "site" }] })).toEqual([
      '/feeds/1/mode: feeds "crm" and "site" are both full feeds of database "agency", so each run would unpublish the other\'s listings: make one of them "partial"',
    ]);
    // A full feed and partial ones may share a database.
    expect(loadConfigFile(write({ ...base, feeds: [feed, { ...feed, id: "site", mode: "partial" }] })).feeds).toHaveLength(2);
  });

  test("a timeout under a second", () => {
    expect(problemsOf({ ...base, feeds: [{ ...feed, timeout: "500ms" }] })).toEqual(["/feeds/0/timeout: must be at least 1s"]);
  });
});
