// Runs one k6 script through the shim runner in its own process and returns its summary.
import { resolve } from "node:path";
import type { Summary } from "../../loadtest/shim/run.ts";

export const ROOT = resolve(import.meta.dir, "../..");

export interface ShimRun {
  exitCode: number;
  summary: Summary;
  stderr: string;
}

/**
 * A process per script: module state (a VU's token, cursors) and the `k6` import redirection
 * never leak from one script into the next.
 */
export async function runShim(script: string, env: Record<string, string>, iterations = 3): Promise<ShimRun> {
  const proc = Bun.spawn(["bun", "loadtest/shim/run.ts", script, "--iterations", String(iterations), "--json"], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, exitCode] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  const last = stdout.trim().split("\n").at(-1) ?? "";
  let summary: Summary;
  try {
    summary = JSON.parse(last) as Summary;
  } catch {
    throw new Error(`shim printed no summary for ${script} (exit ${exitCode}):\n${stdout}\n${stderr}`);
  }
  return { exitCode, summary, stderr };
}

/** Counts of the 2xx statuses answered to one endpoint tag. */
export function successes(summary: Summary, endpoint: string): number {
  const statuses = summary.byEndpoint[endpoint]?.statuses ?? {};
  return Object.entries(statuses).reduce((n, [status, count]) => (status.startsWith("2") ? n + count : n), 0);
}
