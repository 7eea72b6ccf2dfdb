// Loading the config file (CONTRACT §3): defaults, resolution, and every problem named by path.
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
      write({ jwtSecret: "x".repeat(32), databases: { agency: "data/agency.sqlite" }, clients: [{ ...goodClient, database: "agency" }] }),
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
    const problems = problemsOf({ trustedProxies: ["10.0.0.0/33"], clients: [{ ...goodClient, ipWhitelist: ["203.0.113.7", "300.1.1.1"] }] });
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
    expect(problemsOf({ jwtSecret: "short", clients: [goodClient] }).some((p) => p.startsWith("/jwtSecret:"))).toBe(true);
  });

  test("a secretHash that is not a digest (a clear-text secret pasted by mistake)", () => {
    expect(problemsOf({ clients: [{ ...goodClient, secretHash: "sk_live_x" }] }).some((p) => p.startsWith("/clients/0/secretHash:"))).toBe(
      true,
    );
  });
});
