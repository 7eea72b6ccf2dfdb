// Real k6 for the tests that prove the load-test scripts: found where `bun run loadtest` finds
// it, skipped with a notice where absent (a fresh machine), mandatory where CI requires it.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { k6Candidates, ROOT } from "../../scripts/loadtest/k6.ts";
import { toolForTests } from "../helpers/tools.ts";

export const K6 = toolForTests(
  "k6",
  k6Candidates(),
  "set K6=/path/to/k6, or keep the team's k6 at ../shared/tools/k6/k6 beside the repository",
);

export interface CheckCount {
  passes: number;
  fails: number;
}

interface CheckGroup {
  checks: Record<string, CheckCount>;
  /** setup() and teardown() are groups of their own. */
  groups?: Record<string, CheckGroup>;
}

/** The parts of k6's --summary-export this suite reads. */
export interface K6Summary {
  root_group: CheckGroup;
  metrics: Record<string, Record<string, number | Record<string, boolean>>>;
}

export interface K6Run {
  exitCode: number;
  summary: K6Summary | null;
  output: string;
}

/** `k6 run` of `script` (relative to the repository) with `-e` settings; its summary parsed. */
export async function runK6(script: string, env: Record<string, string>, extraArgs: string[] = []): Promise<K6Run> {
  const dir = mkdtempSync(join(tmpdir(), "pa-k6-"));
  const summaryPath = join(dir, "summary.json");
  try {
    const settings = Object.entries(env).flatMap(([name, value]) => ["-e", `${name}=${value}`]);
    const proc = Bun.spawn(
      [K6!, "run", "--quiet", "--no-color", ...settings, ...extraArgs, "--summary-export", summaryPath, script],
      {
        cwd: ROOT,
        stdout: "pipe",
        stderr: "pipe",
      },
    );
    const [stdout, stderr, exitCode] = await Promise.all([
      new Response(proc.stdout).text(),
      new Response(proc.stderr).text(),
      proc.exited,
    ]);
    let summary: K6Summary | null = null;
    try {
      summary = JSON.parse(readFileSync(summaryPath, "utf8")) as K6Summary;
    } catch {
      // No summary: k6 refused the script; the output says why.
    }
    return { exitCode, summary, output: stdout + stderr };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Every check of the run, setup()'s included, summed by name. */
function checkCounts(group: CheckGroup, into = new Map<string, CheckCount>()): Map<string, CheckCount> {
  for (const [name, count] of Object.entries(group.checks)) {
    const sum = into.get(name) ?? { passes: 0, fails: 0 };
    into.set(name, { passes: sum.passes + count.passes, fails: sum.fails + count.fails });
  }
  for (const inner of Object.values(group.groups ?? {})) checkCounts(inner, into);
  return into;
}

/** Checks with at least one failure, by name. */
export function failedChecks(summary: K6Summary): string[] {
  return [...checkCounts(summary.root_group)].filter(([, count]) => count.fails > 0).map(([name]) => name);
}

/** Passes of one check, 0 when it never ran. */
export function passes(summary: K6Summary, check: string): number {
  return checkCounts(summary.root_group).get(check)?.passes ?? 0;
}

/** A numeric field of a metric of the summary (count, rate, value, p(95)…). */
export function metric(summary: K6Summary, name: string, field: string): number | undefined {
  const value = summary.metrics[name]?.[field];
  return typeof value === "number" ? value : undefined;
}
