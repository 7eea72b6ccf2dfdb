// Where k6 is found, and how a run is asked to write its reports. Shared by `bun run loadtest`
// and the tests that prove the scripts with real k6.
import { readdirSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";

export const ROOT = resolve(import.meta.dir, "../..");
export const LOADTEST_DIR = join(ROOT, "loadtest");
export const REPORTS_DIR = join(LOADTEST_DIR, "reports");

/**
 * Where k6 may be, in order: the K6 environment variable, the k6 the team keeps beside the
 * repository (`../shared/tools/k6/k6` from its root, so CI's checkout finds it too), `k6` on
 * PATH. Absolute paths, or a bare name to look up on PATH.
 */
export function k6Candidates(env: Record<string, string | undefined> = process.env): string[] {
  const candidates: string[] = [];
  const fromEnv = env.K6?.trim();
  if (fromEnv) candidates.push(isAbsolute(fromEnv) ? fromEnv : resolve(fromEnv));
  candidates.push(resolve(ROOT, "../shared/tools/k6/k6"), "k6");
  return candidates;
}

/** The scenarios: every loadtest/*.js, by name without the extension. */
export function scenarioNames(): string[] {
  return readdirSync(LOADTEST_DIR)
    .filter((name) => name.endsWith(".js"))
    .map((name) => name.slice(0, -3))
    .sort();
}

/** The script of a scenario named with or without `.js`, or null when there is none. */
export function scenarioPath(name: string): string | null {
  const wanted = name.replace(/\.js$/, "");
  return scenarioNames().includes(wanted) ? join(LOADTEST_DIR, `${wanted}.js`) : null;
}

export interface ReportPaths {
  html: string;
  json: string;
}

/**
 * k6's environment for a run that writes its HTML report (the web dashboard's export, with no
 * HTTP port of its own). The dashboard skips the report of a run shorter than a few of its
 * aggregation periods, so short scenarios use a 1 s period; k6's default of 10 s keeps the
 * report of an hours-long soak small.
 */
export function reportEnv(
  paths: ReportPaths,
  scenario: string,
  env: Record<string, string | undefined>,
): Record<string, string> {
  return {
    K6_WEB_DASHBOARD: "true",
    K6_WEB_DASHBOARD_PORT: "-1",
    K6_WEB_DASHBOARD_EXPORT: paths.html,
    K6_WEB_DASHBOARD_PERIOD: env.K6_WEB_DASHBOARD_PERIOD ?? (scenario === "soak" ? "10s" : "1s"),
  };
}
