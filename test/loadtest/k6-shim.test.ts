// Every k6 scenario in loadtest/ runs clean against the real sandbox: the sandbox is started as
// a subprocess, each script goes through the shim runner (setup() and 3 iterations), and the
// sandbox is then stopped with SIGTERM. PARTNER_API_CMD runs the same proof against another
// build of the server, e.g. PARTNER_API_CMD=dist/partner-api.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import type { Summary } from "../../loadtest/shim/run.ts";
import { ROOT, runShim, successes, type ShimRun } from "./run-shim.ts";

const SCENARIOS = ["smoke", "average-load", "stress", "spike", "soak", "breakpoint"];
const ENDPOINTS = ["auth_token", "properties_list", "leads_list", "leads_create", "changes_list"];
const SERVER_CMD = (process.env.PARTNER_API_CMD ?? "bun src/main.ts").split(" ").filter(Boolean);
const CREDENTIALS = { "X-API-Key": "pk_sandbox_demo", "X-API-Secret": "sk_sandbox_demo" };

let dir = "";
let baseUrl = "";
let server: Subprocess<"ignore", "pipe", "pipe"> | null = null;
let leadsBefore = 0;
const runs = new Map<string, ShimRun>();

function freePort(): number {
  const probe = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const port = probe.port!;
  probe.stop(true);
  return port;
}

async function waitForHealth(deadlineMs: number): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  while (Date.now() < deadline) {
    if (server?.exitCode !== null) break;
    try {
      if ((await fetch(`${baseUrl}/health`)).status === 200) return;
    } catch {
      // Not listening yet.
    }
    await Bun.sleep(100);
  }
  server?.kill();
  const stderr = server ? await new Response(server.stderr).text() : "";
  throw new Error(`sandbox did not answer GET /health with 200 (exit ${server?.exitCode}):\n${stderr}`);
}

/** Total leads in the sandbox, read directly: the proof that the shim's requests landed. */
async function leadTotal(): Promise<number> {
  const auth = await fetch(`${baseUrl}/v1/auth/token`, { method: "POST", headers: CREDENTIALS });
  const { data } = (await auth.json()) as { data: { token: string } };
  const res = await fetch(`${baseUrl}/v1/leads?fields=id&limit=1`, { headers: { Authorization: `Bearer ${data.token}` } });
  const body = (await res.json()) as { meta: { total: number } };
  return body.meta.total;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "partner-api-loadtest-"));
  const port = freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  server = Bun.spawn(
    [...SERVER_CMD, "sandbox", "--port", String(port), "--db", join(dir, "sandbox.sqlite"), "--rate-limit", "1000000"],
    { cwd: ROOT, stdin: "ignore", stdout: "pipe", stderr: "pipe" },
  );
  // The sandbox seeds its database on first start, hence the generous wait.
  await waitForHealth(30_000);
  leadsBefore = await leadTotal();
});

afterAll(() => {
  if (server && server.exitCode === null) server.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

describe("each scenario, run through the shim against the sandbox", () => {
  for (const name of SCENARIOS) {
    test(`${name}.js: setup() and 3 iterations with no failed check, error or refused option`, async () => {
      const run = await runShim(`loadtest/${name}.js`, { BASE_URL: baseUrl });
      runs.set(name, run);
      const { summary, exitCode } = run;

      expect(summary.errors).toEqual([]);
      expect(summary.optionProblems).toEqual([]);
      expect(summary.completedIterations).toBe(3);
      expect(summary.failedChecks).toBe(0);
      expect(summary.passedChecks).toBeGreaterThan(0);
      expect(summary.failedRequests).toBe(0);
      // setup() takes a token and samples property codes; then one or more calls per iteration.
      expect(successes(summary, "auth_token")).toBeGreaterThanOrEqual(1);
      expect(summary.requests).toBeGreaterThanOrEqual(2 + 3);
      expect(exitCode).toBe(0);
    });
  }

  test("smoke.js reaches every endpoint its thresholds name", () => {
    const smoke = runs.get("smoke")?.summary;
    expect(smoke).toBeDefined();
    expect(smoke!.thresholdTagsWithoutTraffic).toEqual([]);
    for (const endpoint of ENDPOINTS) expect(successes(smoke!, endpoint)).toBeGreaterThan(0);
  });

  test("the requests reached the server: its lead count grew by the leads the scripts created", async () => {
    const created = [...runs.values()].reduce((n, run: { summary: Summary }) => n + successes(run.summary, "leads_create"), 0);
    expect(created).toBeGreaterThanOrEqual(3); // smoke creates one lead per iteration
    expect(await leadTotal()).toBe(leadsBefore + created);
  });
});

test("the sandbox stops cleanly on SIGTERM (exit 0)", async () => {
  server!.kill("SIGTERM");
  const exitCode = await Promise.race([server!.exited, Bun.sleep(12_000).then(() => "still running")]);
  expect(exitCode).toBe(0);
});
