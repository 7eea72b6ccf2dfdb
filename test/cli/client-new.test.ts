// `partner-api client new` (docs/reference/behaviour.md §1) and its --portal form (docs/reference/behaviour-extensions.md §17): the printed entry
// is a valid client whose printed key and secret work, and a portal's snippet names the feed URL,
// the user and the password to paste, which open the feed.
import { afterEach, describe, expect, test } from "bun:test";
import { validateConfig } from "../../src/config/load.ts";
import { verifySecret } from "../../src/security/secrets.ts";
import { createTestApp, type TestApp } from "../helpers/app.ts";
import { ROOT } from "../helpers/binary.ts";

let t: TestApp | undefined;
afterEach(() => t?.close());

function run(args: string[]): { code: number; stdout: string; stderr: string } {
  const result = Bun.spawnSync([process.execPath, "src/main.ts", "client", "new", ...args], {
    cwd: ROOT,
    stdout: "pipe",
    stderr: "pipe",
  });
  return { code: result.exitCode, stdout: result.stdout.toString(), stderr: result.stderr.toString() };
}

/** The JSON entry printed between the instructions. */
const entryOf = (stdout: string) => JSON.parse(stdout.slice(stdout.indexOf("{"), stdout.indexOf("\n}\n") + 2));
const line = (stdout: string, label: string) => new RegExp(`^\\s*${label}:\\s+(\\S+)$`, "m").exec(stdout)?.[1];

describe("client new", () => {
  test("prints a key, a secret and a valid entry whose secretHash is that secret's", () => {
    const { code, stdout } = run(["--id", "crm", "--name", "CRM"]);
    expect(code).toBe(0);
    const entry = entryOf(stdout);
    expect(() => validateConfig({ clients: [entry] }, "test")).not.toThrow();
    expect(entry.apiKey).toBe(line(stdout, "API key"));
    expect(verifySecret(line(stdout, "API secret")!, entry.secretHash)).toBe(true);
    expect(entry.feed).toBeUndefined();
    expect(stdout).not.toContain("/v1/feeds/vrsync.xml");
  });

  test("--portal --url: the entry has a feed selection, and the snippet's URL, user and password open the feed", async () => {
    const { code, stdout } = run([
      "--id",
      "zap",
      "--name",
      "ZAP Imóveis",
      "--portal",
      "--url",
      "https://api.imobiliaria.com.br/",
    ]);
    expect(code).toBe(0);
    const entry = entryOf(stdout);
    expect(entry.feed).toEqual({});
    expect(line(stdout, "URL")).toBe("https://api.imobiliaria.com.br/v1/feeds/vrsync.xml");
    expect(line(stdout, "User")).toBe(entry.apiKey);
    const password = line(stdout, "Password")!;
    expect(password).toBe(line(stdout, "API secret")!);

    t = createTestApp({ clients: [{ ...entry, database: "main" }] });
    const path = new URL(line(stdout, "URL")!).pathname;
    const response = await t.request(path, {
      headers: { authorization: `Basic ${btoa(`${line(stdout, "User")}:${password}`)}` },
    });
    expect(response.status).toBe(200);
    expect((await response.text()).includes("<ListingDataFeed")).toBe(true);
  });

  test("--portal without --url names the place of the server's address", () => {
    const { stdout } = run(["--id", "olx", "--portal"]);
    expect(stdout).toContain("https://<this server's public address>/v1/feeds/vrsync.xml");
  });

  test("a bad --url, or --url without --portal: exit 2, saying why", () => {
    for (const args of [
      ["--id", "x", "--portal", "--url", "api.example.com"],
      ["--id", "x", "--url", "https://api.example.com"],
    ]) {
      const { code, stderr, stdout } = run(args);
      expect({ args, code }).toEqual({ args, code: 2 });
      expect(stderr).toContain("--url");
      expect(stdout).toBe("");
    }
  });
});
