// Real k6 is the proof of the load-test scripts: k6 itself reads every scenario's options,
// executors and thresholds, then runs smoke.js and a short breakpoint.js ramp against the
// compiled binary, and breakpoint.js aborts at a breaking point as written.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT, scenarioNames } from "../../scripts/loadtest/k6.ts";
import { ensureBinary, type RunningBinary, sandboxToken, startBinary } from "../helpers/binary.ts";
import { failedChecks, K6, metric, passes, runK6 } from "./k6.ts";

const ENDPOINTS = ["auth_token", "properties_list", "leads_list", "leads_create", "changes_list"];

const describeWithK6 = K6 === null ? describe.skip : describe;
/** A k6 run takes seconds (smoke.js paces itself at one iteration a second). */
const K6_RUN_MS = 60_000;

function inspect(script: string, env: Record<string, string> = {}) {
  const settings = Object.entries(env).flatMap(([name, value]) => ["-e", `${name}=${value}`]);
  const result = Bun.spawnSync([K6!, "inspect", "--execution-requirements", ...settings, script], {
    cwd: ROOT,
    stdout: "pipe",
    stderr: "pipe",
  });
  return { exitCode: result.exitCode, stdout: result.stdout.toString(), stderr: result.stderr.toString() };
}

describeWithK6("every scenario as k6 reads it", () => {
  for (const name of scenarioNames()) {
    test(`${name}.js: k6 accepts its executors and thresholds, with a latency threshold per endpoint`, () => {
      const result = inspect(`loadtest/${name}.js`);
      expect({ exitCode: result.exitCode, stderr: result.stderr }).toEqual({ exitCode: 0, stderr: "" });
      const options = JSON.parse(result.stdout) as {
        scenarios: Record<string, unknown>;
        thresholds: Record<string, unknown>;
      };
      expect(Object.keys(options.scenarios).length).toBe(1);
      for (const endpoint of ENDPOINTS)
        expect(Object.keys(options.thresholds)).toContain(`http_req_duration{endpoint:${endpoint}}`);
    });
  }

  test("the sizing knobs reach the options, and a bad one stops the script before it starts", () => {
    const sized = JSON.parse(
      inspect("loadtest/average-load.js", { VUS: "200", RAMP_DURATION: "30s", STEADY_DURATION: "3m" }).stdout,
    );
    expect(sized.scenarios.average_load.stages).toEqual([
      { duration: "30s", target: 200 },
      { duration: "3m0s", target: 200 },
      { duration: "1m0s", target: 0 },
    ]);
    const refused = inspect("loadtest/average-load.js", { VUS: "-3" });
    expect(refused.exitCode).not.toBe(0);
    expect(refused.stderr).toContain("VUS must be a positive number");
  });
});

describeWithK6("against the compiled binary", () => {
  let dir: string;
  let server: RunningBinary;
  let token: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "pa-k6-binary-"));
    server = await startBinary(
      ensureBinary(),
      ["sandbox", "--db", join(dir, "sandbox.sqlite"), "--rate-limit", "1000000"],
      dir,
    );
    token = await sandboxToken(server.url);
  });

  afterAll(async () => {
    expect(await server.stop()).toBe(0);
    rmSync(dir, { recursive: true, force: true });
  });

  async function leadTotal(): Promise<number> {
    const response = await fetch(`${server.url}/v1/leads?fields=id&limit=1`, {
      headers: { authorization: `Bearer ${token}` },
    });
    return ((await response.json()) as { meta: { total: number } }).meta.total;
  }

  test(
    "smoke.js passes every check and threshold, reaching every endpoint; each lead it created is on the server",
    async () => {
      const before = await leadTotal();
      const run = await runK6("loadtest/smoke.js", { BASE_URL: server.url });
      expect({ exitCode: run.exitCode, output: run.exitCode === 0 ? "" : run.output }).toEqual({
        exitCode: 0,
        output: "",
      });
      const summary = run.summary!;
      expect(failedChecks(summary)).toEqual([]);
      expect(metric(summary, "http_req_failed", "value")).toBe(0);
      for (const endpoint of ENDPOINTS)
        expect(passes(summary, `${endpoint}: status ${endpoint === "leads_create" ? 201 : 200}`)).toBeGreaterThan(0);
      const created = passes(summary, "leads_create: status 201");
      expect(await leadTotal()).toBe(before + created);
    },
    K6_RUN_MS,
  );

  test(
    "breakpoint.js ramps its arrival rate as written and stays under its thresholds at a rate the server takes",
    async () => {
      // 10/s rising to 40/s over 10 s: about 250 iterations, one request each.
      const run = await runK6("loadtest/breakpoint.js", {
        BASE_URL: server.url,
        MAX_RATE: "40",
        RAMP_DURATION: "10s",
        MAX_VUS: "40",
      });
      expect({ exitCode: run.exitCode, output: run.exitCode === 0 ? "" : run.output }).toEqual({
        exitCode: 0,
        output: "",
      });
      const summary = run.summary!;
      expect(failedChecks(summary)).toEqual([]);
      expect(metric(summary, "http_req_failed", "value")).toBe(0);
      expect(metric(summary, "iterations", "count")).toBeGreaterThanOrEqual(200);
      expect(metric(summary, "iterations", "count")).toBeLessThanOrEqual(300);
      expect(metric(summary, "dropped_iterations", "count") ?? 0).toBe(0);
    },
    K6_RUN_MS,
  );
});

describeWithK6("breakpoint.js at a breaking point", () => {
  let fake: ReturnType<typeof Bun.serve>;
  beforeAll(() => {
    // A server whose API fails once setup() has its token and listings: the broken server.
    fake = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch(request) {
        const url = new URL(request.url);
        if (url.pathname === "/v1/auth/token")
          return Response.json({ data: { token: "t", expiresIn: 3600, tokenType: "Bearer" } });
        if (url.pathname === "/v1/properties" && url.searchParams.get("fields") === "code,updatedAt") {
          return Response.json({ data: [], meta: { page: 1, limit: 100, total: 0, totalPages: 0 } });
        }
        return Response.json({ error: "Internal error", code: "INTERNAL_ERROR" }, { status: 500 });
      },
    });
  });
  afterAll(() => fake.stop(true));

  test(
    "aborts as soon as errors cross its threshold (once the abort delay has passed), with k6's threshold exit code",
    async () => {
      const run = await runK6("loadtest/breakpoint.js", {
        BASE_URL: `http://127.0.0.1:${fake.port}`,
        RAMP_DURATION: "2m",
        ABORT_DELAY: "2s",
      });
      expect(run.exitCode).toBe(99);
      expect(run.output).toContain("stopping test prematurely");
    },
    K6_RUN_MS,
  );
});
