// Loading the config file (docs/reference/behaviour.md §3): defaults, resolution, and every problem named by path.
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError, loadConfigFile } from "../../src/config/load.ts";
import { hashSecret } from "../../src/security/secrets.ts";

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const hash = hashSecret("sk_live_x");
const goodClient = { id: "portal-x", apiKey: "pk_live_portalx_7Hq2", secretHash: hash };

function write(config: unknown): string {
  dir = mkdtempSync(join(tmpdir(), "pa-config-"));
  const path = join(dir, "config.json");
  writeFileSync(path, typeof config === "string" ? config : JSON.stringify(config));
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

describe("a valid config", () => {
  test("fills the contract's defaults and resolves database paths against the config's folder", () => {
    const config = loadConfigFile(
      write({
        jwtSecret: "x".repeat(32),
        databases: { agency: "data/agency.sqlite" },
        clients: [{ ...goodClient, database: "agency" }],
      }),
    );
    const client = config.clients.get("portal-x")!;
    expect(config.environment).toBe("production");
    expect(client.enabled).toBe(true);
    expect(client.rateLimitPerMinute).toBe(60);
    expect(client.ipWhitelist).toBeNull();
    expect(client.databasePath).toBe(join(dir, "data/agency.sqlite"));
    expect(config.clientsByKey.get(goodClient.apiKey)).toBe(client);
    expect(Object.isFrozen(config)).toBe(true);
  });

  test("scopes: absent gives a portal's or a website's; given, exactly those (docs/partners/scopes.md)", () => {
    const crm = { ...goodClient, id: "crm", apiKey: "pk_live_crm_0001", scopes: ["leads:read", "leads:update"] };
    const config = loadConfigFile(write({ jwtSecret: "x".repeat(32), clients: [goodClient, crm] }));
    expect([...config.clients.get("portal-x")!.scopes].sort()).toEqual([
      "feed:read",
      "leads:create",
      "leads:read:own",
      "properties:read",
      "webhooks",
    ]);
    expect([...config.clients.get("crm")!.scopes].sort()).toEqual(["leads:read", "leads:update"]);
  });

  test("a missing jwtSecret is generated once and kept beside the config with mode 0600", () => {
    const path = write({ clients: [goodClient] });
    const first = loadConfigFile(path).jwtSecret;
    expect(first.length).toBeGreaterThanOrEqual(32);
    expect(loadConfigFile(path).jwtSecret).toBe(first);
    expect(statSync(`${path}.jwt-secret`).mode & 0o777).toBe(0o600);
    expect(readFileSync(`${path}.jwt-secret`, "utf8").trim()).toBe(first);
  });
});

describe("every problem is named with its JSON path", () => {
  test("malformed JSON", () => {
    expect(problemsOf("{ not json")[0]).toStartWith("not valid JSON");
  });

  test("a missing file", () => {
    dir = mkdtempSync(join(tmpdir(), "pa-config-"));
    expect(() => loadConfigFile(join(dir, "nope.json"))).toThrow(/cannot read the file: ENOENT/);
  });

  test("an unknown scope is named, with the scopes there are", () => {
    expect(problemsOf({ clients: [{ ...goodClient, scopes: ["leads:read", "leads:write"] }] })).toEqual([
      '/clients/0/scopes/1: unknown scope "leads:write"; scopes are properties:read, feed:read, leads:create, leads:read:own, leads:read, leads:update, webhooks',
    ]);
  });

  test("an unknown key, at the top and inside a client", () => {
    expect(problemsOf({ clients: [goodClient], colour: "blue" })).toContain("/colour: unknown key");
    expect(problemsOf({ clients: [{ ...goodClient, rateLimit: 5 }] })).toContain("/clients/0/rateLimit: unknown key");
  });

  test("wrong types and missing required keys", () => {
    const problems = problemsOf({ port: "80", clients: [{ id: "a", apiKey: "pk_live_abcdef" }] });
    expect(problems.some((p) => p.startsWith("/port:"))).toBe(true);
    expect(problems.some((p) => p.startsWith("/clients/0/secretHash:"))).toBe(true);
  });

  test("a bad CIDR in a whitelist and in trustedProxies", () => {
    const problems = problemsOf({
      trustedProxies: ["10.0.0.0/33"],
      clients: [{ ...goodClient, ipWhitelist: ["203.0.113.7", "300.1.1.1"] }],
    });
    expect(problems).toContain('/trustedProxies/0: "10.0.0.0/33" is not an IP address or CIDR range');
    expect(problems).toContain('/clients/0/ipWhitelist/1: "300.1.1.1" is not an IP address or CIDR range');
  });

  test("duplicate client ids and duplicate keys", () => {
    const problems = problemsOf({ clients: [goodClient, { ...goodClient }] });
    expect(problems).toContain('/clients/1/id: duplicate client id "portal-x" (also /clients/0/id)');
    expect(problems).toContain("/clients/1/apiKey: duplicate apiKey (also /clients/0/apiKey)");
  });

  test("a sandbox key in a production config", () => {
    expect(problemsOf({ clients: [{ ...goodClient, apiKey: "pk_sandbox_demo" }] })).toContain(
      "/clients/0/apiKey: sandbox keys (pk_sandbox_…) are not accepted in production",
    );
  });

  test("a jwtSecret under 32 bytes", () => {
    expect(problemsOf({ jwtSecret: "short", clients: [goodClient] }).some((p) => p.startsWith("/jwtSecret:"))).toBe(
      true,
    );
  });

  test("a secretHash that is not a digest (a clear-text secret pasted by mistake)", () => {
    expect(
      problemsOf({ clients: [{ ...goodClient, secretHash: "sk_live_x" }] }).some((p) =>
        p.startsWith("/clients/0/secretHash:"),
      ),
    ).toBe(true);
  });
});

// The config's feeds (docs/reference/behaviour-extensions.md §14): defaults, resolution, and each problem named by its path,
// never echoing a header's value.
const feedsBase = {
  jwtSecret: "x".repeat(32),
  databases: { agency: "data/agency.sqlite", other: "/srv/other.sqlite" },
  clients: [{ ...goodClient, database: "agency" }],
};
const feed = { id: "crm", database: "agency", url: "https://crm.example.com.br/feeds/vrsync.xml" };

describe("a valid feed", () => {
  test("gets the contract's defaults and its database's resolved file", () => {
    const config = loadConfigFile(write({ ...feedsBase, feeds: [feed] }));
    expect(config.feeds).toEqual([
      {
        id: "crm",
        database: "agency",
        databasePath: join(dir, "data/agency.sqlite"),
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
        ...feedsBase,
        feeds: [
          {
            ...feed,
            every: "1h",
            mode: "partial",
            headers: { Authorization: "Bearer abc" },
            maxUnpublishRatio: 0.1,
            timeout: "2m",
            maxBytes: 1000,
          },
        ],
      }),
    );
    expect(config.feeds[0]).toMatchObject({
      everyMs: 3_600_000,
      mode: "partial",
      headers: { Authorization: "Bearer abc" },
      maxUnpublishRatio: 0.1,
      timeoutMs: 120_000,
      maxBytes: 1000,
    });
  });

  test("a config without feeds has none", () => {
    expect(loadConfigFile(write(feedsBase)).feeds).toEqual([]);
  });

  test("30s is the sandbox's minimum", () => {
    expect(
      loadConfigFile(write({ ...feedsBase, environment: "sandbox", feeds: [{ ...feed, every: "30s" }] })).feeds[0]!
        .everyMs,
    ).toBe(30_000);
  });
});

describe("each problem is named, with its path", () => {
  test("an unknown database, a bad URL, an interval under the minimum and duplicate ids, all at once", () => {
    const problems = problemsOf({
      ...feedsBase,
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
    expect(problemsOf({ ...feedsBase, environment: "sandbox", feeds: [{ ...feed, every: "29s" }] })).toEqual([
      "/feeds/0/every: 29s is shorter than the minimum, 30s in the sandbox",
    ]);
  });

  test("credentials in the URL are refused (the URL is shown; headers are not), and not echoed", () => {
    const problems = problemsOf({
      ...feedsBase,
      feeds: [{ ...feed, url: "https://agency:hunter2@crm.example.com/feed.xml?key=abc" }],
    });
    expect(problems).toEqual([
      "/feeds/0/url: must not carry a user or password: put them in headers (Authorization), which are never shown (https://crm.example.com/feed.xml?…)",
    ]);
    expect(problems.join()).not.toContain("hunter2");
  });

  test("a header value with a line break is named by its header, its value never echoed", () => {
    const problems = problemsOf({
      ...feedsBase,
      feeds: [{ ...feed, headers: { Authorization: "Bearer s3cret\r\nX-Evil: 1" } }],
    });
    expect(problems).toEqual(["/feeds/0/headers/Authorization: must not contain line breaks or NUL"]);
    expect(problems.join()).not.toContain("s3cret");
  });

  test("schema problems: unknown keys, a bad mode, a ratio outside 0..1, a malformed interval", () => {
    const problems = problemsOf({
      ...feedsBase,
      feeds: [{ ...feed, mode: "delta", maxUnpublishRatio: 2, every: "soon", extra: 1 }],
    });
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
    expect(problemsOf({ ...feedsBase, feeds: [feed, { ...feed, id: "site" }] })).toEqual([
      '/feeds/1/mode: feeds "crm" and "site" are both full feeds of database "agency", so each run would unpublish the other\'s listings: make one of them "partial"',
    ]);
    // A full feed and partial ones may share a database.
    expect(
      loadConfigFile(write({ ...feedsBase, feeds: [feed, { ...feed, id: "site", mode: "partial" }] })).feeds,
    ).toHaveLength(2);
  });

  test("a timeout under a second", () => {
    expect(problemsOf({ ...feedsBase, feeds: [{ ...feed, timeout: "500ms" }] })).toEqual([
      "/feeds/0/timeout: must be at least 1s",
    ]);
  });
});

describe("a client's portal feed selection (docs/reference/behaviour-extensions.md §17)", () => {
  test("absent: every published listing; given: each key as written", () => {
    const config = loadConfigFile(
      write({
        clients: [
          goodClient,
          {
            ...goodClient,
            id: "zap",
            apiKey: "pk_live_zap_0001",
            feed: { operationType: ["SALE", "RENT"], status: ["AVAILABLE"], propertyType: ["Casa"], maxListings: 500 },
          },
          { ...goodClient, id: "olx", apiKey: "pk_live_olx_0001", feed: {} },
        ],
      }),
    );
    const none = { operationType: null, status: null, propertyType: null, maxListings: null };
    expect(config.clients.get("portal-x")!.feed).toEqual(none);
    expect(config.clients.get("olx")!.feed).toEqual(none);
    expect(config.clients.get("zap")!.feed).toEqual({
      operationType: ["SALE", "RENT"],
      status: ["AVAILABLE"],
      propertyType: ["Casa"],
      maxListings: 500,
    });
  });

  test("an unknown key, a value outside an enumeration, an empty list, a repeated value, a cap under 1: each named", () => {
    const problems = problemsOf({
      clients: [
        {
          ...goodClient,
          feed: { operationType: ["LEASE"], status: [], propertyType: ["Casa", "Casa"], maxListings: 0, region: "SP" },
        },
      ],
    });
    expect(problems).toEqual(
      expect.arrayContaining([
        "/clients/0/feed/region: unknown key",
        expect.stringMatching(/^\/clients\/0\/feed\/operationType\/0: /),
        expect.stringMatching(/^\/clients\/0\/feed\/status: /),
        expect.stringMatching(/^\/clients\/0\/feed\/propertyType: /),
        expect.stringMatching(/^\/clients\/0\/feed\/maxListings: /),
      ]),
    );
  });

  test("config-schema prints it, with its enumerations", async () => {
    const { ConfigSchema } = await import("../../src/config/schema.ts");
    const feed = (ConfigSchema.properties.clients.items.properties as Record<string, any>).feed;
    expect(Object.keys(feed.properties).sort()).toEqual(["maxListings", "operationType", "propertyType", "status"]);
    expect(feed.additionalProperties).toBe(false);
    expect(feed.properties.operationType.items.anyOf.map((s: { const: string }) => s.const)).toEqual([
      "SALE",
      "RENT",
      "SEASONAL",
    ]);
  });

  test("the file's last write is kept (what the feed's Last-Modified starts from)", () => {
    const path = write({ clients: [goodClient] });
    expect(loadConfigFile(path).modifiedAt).toBe(statSync(path).mtimeMs);
  });
});
