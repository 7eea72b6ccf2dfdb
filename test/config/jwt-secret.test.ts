// The generated token secret (docs/reference/behaviour.md §3: jwtSecret absent): made once, kept in a file, read at
// every start after; PARTNER_API_JWT_SECRET_FILE moves it (the container image puts it on its
// data volume) without losing one an earlier version left beside the config.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { JWT_SECRET_FILE_ENV } from "../../src/config/jwt-secret.ts";
import { loadConfigFile } from "../../src/config/load.ts";
import { hashSecret } from "../../src/security/secrets.ts";
import { UnwritablePathError } from "../../src/writable.ts";

let dir: string;
let configPath: string;
const savedEnv = process.env[JWT_SECRET_FILE_ENV];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "pa-jwt-secret-"));
  configPath = join(dir, "config.json");
  writeFileSync(
    configPath,
    JSON.stringify({
      clients: [{ id: "portal-x", apiKey: "pk_live_portalx_7Hq2", secretHash: hashSecret("sk_live_x") }],
    }),
  );
});
afterEach(() => {
  if (savedEnv === undefined) delete process.env[JWT_SECRET_FILE_ENV];
  else process.env[JWT_SECRET_FILE_ENV] = savedEnv;
  rmSync(dir, { recursive: true, force: true });
});

describe(`${JWT_SECRET_FILE_ENV} names where the generated secret is kept`, () => {
  test("made there at first start with mode 0600, nothing beside the config, and read again at the next start", () => {
    const secretFile = join(dir, "data", "jwt-secret");
    process.env[JWT_SECRET_FILE_ENV] = secretFile;
    // The folder must exist: the secret is kept with the data, never in a folder made up for it.
    expect(() => loadConfigFile(configPath)).toThrow(UnwritablePathError);

    mkdirSync(join(dir, "data"));
    const first = loadConfigFile(configPath).jwtSecret;
    expect(Buffer.byteLength(first)).toBeGreaterThanOrEqual(32);
    expect(statSync(secretFile).mode & 0o777).toBe(0o600);
    expect(readFileSync(secretFile, "utf8").trim()).toBe(first);
    expect(existsSync(`${configPath}.jwt-secret`)).toBe(false);
    expect(loadConfigFile(configPath).jwtSecret).toBe(first);
  });

  test("a secret an earlier version kept beside the config stays in force (tokens survive the upgrade)", () => {
    const earlier = "e".repeat(48);
    writeFileSync(`${configPath}.jwt-secret`, earlier + "\n", { mode: 0o600 });
    process.env[JWT_SECRET_FILE_ENV] = join(dir, "jwt-secret");
    expect(loadConfigFile(configPath).jwtSecret).toBe(earlier);
    expect(existsSync(join(dir, "jwt-secret"))).toBe(false);
  });

  test("jwtSecret in the config wins over every file", () => {
    writeFileSync(configPath, JSON.stringify({ jwtSecret: "c".repeat(40), clients: [] }));
    writeFileSync(`${configPath}.jwt-secret`, "e".repeat(48));
    process.env[JWT_SECRET_FILE_ENV] = join(dir, "jwt-secret");
    expect(loadConfigFile(configPath).jwtSecret).toBe("c".repeat(40));
  });

  test("a relative path resolves against the working folder", () => {
    process.env[JWT_SECRET_FILE_ENV] = "relative-secret";
    const cwd = process.cwd();
    process.chdir(dir);
    try {
      const secret = loadConfigFile(configPath).jwtSecret;
      expect(readFileSync(join(dir, "relative-secret"), "utf8").trim()).toBe(secret);
    } finally {
      process.chdir(cwd);
    }
  });
});

describe("a secret file that cannot be used refuses to start, saying what to do", () => {
  test("a folder that does not exist: named, with both ways out (jwtSecret, or a writable folder)", () => {
    process.env[JWT_SECRET_FILE_ENV] = join(dir, "missing", "jwt-secret");
    let message = "";
    try {
      loadConfigFile(configPath);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain(`the folder ${join(dir, "missing")} does not exist`);
    expect(message).toContain('set "jwtSecret" in the config');
    expect(message).toContain("openssl rand -base64 48");
    expect(message).toContain(JWT_SECRET_FILE_ENV);
  });

  test("a file shorter than 32 bytes (emptied, hand-edited) is refused, never signed with", () => {
    writeFileSync(`${configPath}.jwt-secret`, "\n");
    expect(() => loadConfigFile(configPath)).toThrow(
      `the token secret in ${configPath}.jwt-secret is shorter than 32 bytes`,
    );
    process.env[JWT_SECRET_FILE_ENV] = join(dir, "short");
    rmSync(`${configPath}.jwt-secret`);
    writeFileSync(join(dir, "short"), "too short");
    expect(() => loadConfigFile(configPath)).toThrow("is shorter than 32 bytes");
  });
});
