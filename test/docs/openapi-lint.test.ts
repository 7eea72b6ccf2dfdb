// The generated document passes a real OpenAPI linter (Redocly CLI, rules in redocly.yaml here)
// with no error and no warning.
import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { buildOpenApiDocument } from "../../src/openapi.ts";

const ROOT = resolve(import.meta.dir, "../..");
const REDOCLY = join(ROOT, "node_modules/.bin/redocly");
const CONFIG = join(import.meta.dir, "redocly.yaml");

interface LintReport {
  totals: { errors: number; warnings: number; ignored: number };
  problems: { ruleId: string; message: string; location: { pointer: string }[] }[];
}

describe("OpenAPI lint", () => {
  test("redocly lint finds no problem in the document", () => {
    const dir = mkdtempSync(join(tmpdir(), "pa-lint-"));
    try {
      const file = join(dir, "openapi.json");
      writeFileSync(file, JSON.stringify(buildOpenApiDocument({ version: "1.0.0" }), null, 2));
      const run = Bun.spawnSync([REDOCLY, "lint", file, "--config", CONFIG, "--format", "json"], {
        cwd: dir,
        // No update check or telemetry: CI may have no network.
        env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
        stdout: "pipe",
        stderr: "pipe",
      });
      const output = run.stdout.toString();
      expect(output, `redocly did not report:\n${run.stderr.toString()}`).toStartWith("{");
      const report = JSON.parse(output) as LintReport;
      const problems = report.problems.map((p) => `${p.ruleId} at ${p.location[0]?.pointer}: ${p.message}`);
      expect(problems).toEqual([]);
      expect(report.totals).toEqual({ errors: 0, warnings: 0, ignored: 0 });
      expect(run.exitCode).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  test("the linter would catch an example that contradicts its schema", () => {
    const dir = mkdtempSync(join(tmpdir(), "pa-lint-"));
    try {
      const document = buildOpenApiDocument({ version: "1.0.0" }) as any;
      document.paths["/v1/properties"].get.parameters.find((p: { name: string }) => p.name === "limit").example = 500;
      const file = join(dir, "openapi.json");
      writeFileSync(file, JSON.stringify(document));
      const run = Bun.spawnSync([REDOCLY, "lint", file, "--config", CONFIG, "--format", "json"], {
        cwd: dir,
        env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
        stdout: "pipe",
        stderr: "pipe",
      });
      const report = JSON.parse(run.stdout.toString()) as LintReport;
      expect(report.problems.map((p) => p.ruleId)).toEqual(["no-invalid-parameter-examples"]);
      expect(run.exitCode).not.toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
