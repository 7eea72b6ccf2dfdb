// clients/typescript taken straight from the repository, as a partner's project takes it with
// npm (`file:`), builds itself (its `prepare` script) and imports by its package name. Offline:
// the package's own dependencies are those the repository's install put beside it.
import { afterAll, describe, expect, test } from "bun:test";
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT } from "../helpers/binary.ts";

const CLIENT = join(ROOT, "clients/typescript");
const dir = mkdtempSync(join(tmpdir(), "pa-client-install-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the typed client as a file: dependency", () => {
  test("npm installs it from a checkout without dist/, builds it, and a Node project imports it", () => {
    // A checkout of the package as git holds it: no dist/, its dependencies installed beside it.
    const checkout = join(dir, "checkout");
    mkdirSync(checkout);
    for (const entry of [
      "package.json",
      "README.md",
      "openapi.json",
      "src",
      "scripts",
      "tsconfig.json",
      "tsconfig.build.json",
    ])
      cpSync(join(CLIENT, entry), join(checkout, entry), { recursive: true });
    symlinkSync(join(CLIENT, "node_modules"), join(checkout, "node_modules"));
    const project = join(dir, "project");
    mkdirSync(project);
    writeFileSync(join(project, "package.json"), JSON.stringify({ name: "crm", private: true, type: "module" }));
    const install = Bun.spawnSync(["npm", "install", "--offline", "--no-audit", "--no-fund", `file:${checkout}`], {
      cwd: project,
      stdout: "pipe",
      stderr: "pipe",
      env: { ...process.env, npm_config_cache: join(dir, "npm-cache") },
    });
    expect({
      exitCode: install.exitCode,
      output: install.exitCode === 0 ? "" : `${install.stdout}${install.stderr}`,
    }).toEqual({
      exitCode: 0,
      output: "",
    });
    expect(existsSync(join(checkout, "dist/index.js"))).toBe(true);
    writeFileSync(
      join(project, "use.mjs"),
      `import { PartnerApi, verifyWebhook } from "@partner-api/client";
const api = new PartnerApi({ baseUrl: "http://127.0.0.1:9", apiKey: "pk_sandbox_demo", apiSecret: "sk_sandbox_demo" });
console.log(typeof api.properties, typeof verifyWebhook);`,
    );
    const use = Bun.spawnSync(["node", "use.mjs"], { cwd: project, stdout: "pipe", stderr: "pipe" });
    expect({ exitCode: use.exitCode, output: `${use.stdout}${use.stderr}`.trim() }).toEqual({
      exitCode: 0,
      output: "function function",
    });
  }, 300_000);
});
