// `bun run seed` (package.json): the seed command from the sources, writing the sandbox's
// database unless told another file, with the command's own flags and refusals.
import { Database } from "bun:sqlite";
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT } from "../helpers/binary.ts";

const dir = mkdtempSync(join(tmpdir(), "pa-seed-script-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(command: string[], cwd: string) {
  const result = Bun.spawnSync(command, { cwd, stdout: "pipe", stderr: "pipe" });
  return { code: result.exitCode, stdout: result.stdout.toString(), stderr: result.stderr.toString() };
}

/** Rows as the file holds them, read apart from the seed's own summary. */
function counts(path: string): { properties: number; leads: number } {
  const db = new Database(path, { readonly: true });
  try {
    const count = (table: string) => (db.query(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
    return { properties: count("properties"), leads: count("leads") };
  } finally {
    db.close();
  }
}

describe("bun run seed", () => {
  test("writes the file --out names, with the counts asked for", () => {
    const out = join(dir, "trial.sqlite");
    const result = run([process.execPath, "run", "seed", "--out", out, "--properties", "7", "--leads", "3"], ROOT);
    expect({ code: result.code, stderr: result.code === 0 ? "" : result.stderr }).toEqual({ code: 0, stderr: "" });
    expect(JSON.parse(result.stdout.trim().split("\n").at(-1)!)).toMatchObject({ properties: 7, leads: 3 });
    expect(counts(out)).toEqual({ properties: 7, leads: 3 });
  }, 60_000);

  test("without --out, writes data/sandbox.sqlite (what the sandbox serves), and refuses to overwrite it without --force", () => {
    const project = join(dir, "project");
    mkdirSync(join(project, "data"), { recursive: true });
    const script = [process.execPath, join(ROOT, "scripts/seed.ts"), "--properties", "4", "--leads", "2"];
    expect(run(script, project).code).toBe(0);
    expect(counts(join(project, "data/sandbox.sqlite"))).toEqual({ properties: 4, leads: 2 });
    const again = run(script, project);
    expect(again.code).not.toBe(0);
    expect(again.stderr).toContain("data/sandbox.sqlite already exists; refusing to overwrite it");
    expect(run([...script, "--force", "--properties", "5"], project).code).toBe(0);
    expect(counts(join(project, "data/sandbox.sqlite"))).toEqual({ properties: 5, leads: 2 });
  }, 60_000);
});
