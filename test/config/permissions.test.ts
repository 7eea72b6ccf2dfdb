// Files that hold secrets and folders that hold databases, open to other users of the machine
// (src/config/permissions.ts): what is found, on real files with real modes; and `serve` (the
// compiled binary) saying it once at start, naming the file and the chmod that fixes it.
import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { exposedPaths } from "../../src/config/permissions.ts";
import { hashSecret } from "../../src/security/secrets.ts";
import { binaryInNewFolder, startBinary } from "../helpers/binary.ts";

const dir = mkdtempSync(join(tmpdir(), "pa-permissions-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, mode: number): string {
  const path = join(dir, name);
  writeFileSync(path, "x");
  chmodSync(path, mode);
  return path;
}

function folder(name: string, mode: number): string {
  const path = join(dir, name);
  mkdirSync(path, { recursive: true });
  chmodSync(path, mode);
  return path;
}

describe("exposedPaths", () => {
  test("the modes the setups use say nothing: config 0600 or 0640, secret 0600, data folder 0750 or 0700", () => {
    for (const configMode of [0o600, 0o640, 0o400]) {
      const config = file(`config-${configMode.toString(8)}.json`, configMode);
      const secret = file(`secret-${configMode.toString(8)}`, 0o600);
      expect(
        exposedPaths({
          config,
          jwtSecretFile: secret,
          databases: [join(folder("data-0750", 0o750), "a.sqlite"), join(folder("data-0700", 0o700), "b.sqlite")],
        }),
      ).toEqual([]);
    }
  });

  test("a config other users can read or change, a secret file anyone but its owner can touch, a data folder others can write: each named with its chmod", () => {
    const config = file("open-config.json", 0o666);
    const secret = file("open-secret", 0o644);
    const data = folder("open-data", 0o777);
    const found = exposedPaths({
      config,
      jwtSecretFile: secret,
      databases: [join(data, "a.sqlite"), join(data, "b.sqlite")],
    });
    expect(found).toEqual([
      {
        path: config,
        mode: "0666",
        problem: "the config file can be read and changed by other users",
        fix: `chmod 600 ${config}`,
      },
      {
        path: secret,
        mode: "0644",
        problem: expect.stringContaining("the token-signing secret file can be read by other users"),
        fix: `chmod 600 ${secret}`,
      },
      {
        path: data,
        mode: "0777",
        problem: expect.stringContaining("the database folder can be written by other users"),
        fix: `chmod o-w ${data}`,
      },
    ]);
    // The fixes do fix it.
    chmodSync(config, 0o600);
    chmodSync(secret, 0o600);
    chmodSync(data, 0o755);
    expect(exposedPaths({ config, jwtSecretFile: secret, databases: [join(data, "a.sqlite")] })).toEqual([]);
  });

  test("a group that may write the config, or read the secret, is other users too", () => {
    const config = file("group-write.json", 0o660);
    const secret = file("group-secret", 0o640);
    expect(exposedPaths({ config, jwtSecretFile: secret, databases: [] }).map((f) => f.path)).toEqual([config, secret]);
  });
});

describe("serve warns at start, once", () => {
  test("a config and a generated secret readable by all, a database folder writable by all: one warning each, with the chmod", async () => {
    const { dir: home, binary } = binaryInNewFolder("pa-permissions-serve-");
    try {
      const data = join(home, "data");
      mkdirSync(data);
      const seeded = Bun.spawnSync(
        [binary, "seed", "--out", join(data, "agency.sqlite"), "--properties", "5", "--leads", "5"],
        { cwd: home },
      );
      expect(seeded.exitCode).toBe(0);
      const config = join(home, "config.json");
      writeFileSync(
        config,
        JSON.stringify({
          databases: { agency: "data/agency.sqlite" },
          clients: [
            { id: "crm", apiKey: "pk_live_crm_key1", secretHash: hashSecret("sk_live_crm"), database: "agency" },
          ],
        }),
        { mode: 0o600 },
      );
      chmodSync(config, 0o600);
      // A first start makes the secret file (0600): no word about it.
      const first = await startBinary(binary, ["serve", "--config", config], home, {}, { captureStdout: true });
      await first.stop();
      const quiet = (await first.stdout()).split("\n").filter((line) => line.includes("chmod"));
      expect(quiet).toEqual([]);
      chmodSync(config, 0o666);
      chmodSync(`${config}.jwt-secret`, 0o644);
      chmodSync(data, 0o777);
      const server = await startBinary(binary, ["serve", "--config", config], home, {}, { captureStdout: true });
      // A reload is not a start: nothing said again.
      server.proc.kill("SIGHUP");
      await Bun.sleep(300);
      await server.stop();
      const warnings = (await server.stdout())
        .split("\n")
        .filter((line) => line.includes("chmod"))
        .map((line) => JSON.parse(line) as { level: number; msg: string; file: string; fix: string });
      expect(warnings.map((w) => ({ level: w.level, file: w.file, fix: w.fix }))).toEqual([
        { level: 40, file: config, fix: `chmod 600 ${config}` },
        { level: 40, file: `${config}.jwt-secret`, fix: `chmod 600 ${config}.jwt-secret` },
        { level: 40, file: data, fix: `chmod o-w ${data}` },
      ]);
      for (const warning of warnings) expect(warning.msg).toContain(`${warning.file} (mode `);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  }, 60_000);
});
