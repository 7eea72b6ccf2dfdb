// `bun run loadtest`: a run a performance engineer can look at (k6's HTML report and JSON
// summary, and the sandbox's own /metrics), against a sandbox it starts and stops itself or a
// --target; and bad input said plainly, with a non-zero exit.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT } from "../../scripts/loadtest/k6.ts";
import { ensureBinary, type RunningBinary, startBinary } from "../helpers/binary.ts";
import { parseExposition, sampleValue } from "../metrics/parse.ts";
import { K6 } from "./k6.ts";

const K6_RUN_MS = 90_000;

let reports: string;
beforeAll(() => {
  reports = mkdtempSync(join(tmpdir(), "pa-loadtest-reports-"));
});
afterAll(() => rmSync(reports, { recursive: true, force: true }));

async function loadtest(args: string[], env: Record<string, string> = {}) {
  const proc = Bun.spawn([process.execPath, "scripts/loadtest.ts", ...args], {
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
  return { exitCode, stdout, stderr };
}

/** The report paths the runner printed, by what it called them. */
function printedPaths(stderr: string): Record<string, string> {
  const paths: Record<string, string> = {};
  for (const match of stderr.matchAll(/^loadtest: (HTML report|JSON summary|server \/metrics): (.+)$/gm)) {
    paths[match[1]!] = join(ROOT, match[2]!);
  }
  return paths;
}

describe("bad input", () => {
  test("an unknown scenario is named, with the scenarios there are", async () => {
    const result = await loadtest(["nope"]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('unknown scenario "nope"');
    expect(result.stderr).toContain("average-load, breakpoint, smoke, soak, spike, stress");
  });

  test("no scenario, or two", async () => {
    expect((await loadtest([])).stderr).toContain("which scenario?");
    expect((await loadtest(["smoke", "soak"])).exitCode).toBe(2);
  });

  test("an unreachable --target says so", async () => {
    const closed = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
    const url = `http://127.0.0.1:${closed.port}`;
    closed.stop(true);
    const result = await loadtest(["smoke", "--target", url]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain(`--target ${url}: cannot reach it`);
  });

  test("a --target that is not an http URL", async () => {
    const result = await loadtest(["smoke", "--target", "ftp://example.com"]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain("not an http(s) URL");
  });

  test("no k6 where K6 points", async () => {
    // A reachable target, so that k6 is the only thing missing.
    const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("ok") });
    try {
      const result = await loadtest(["smoke", "--target", `http://127.0.0.1:${server.port}`], {
        K6: "/nonexistent/k6",
      });
      expect(result.exitCode).toBe(2);
      expect(result.stderr).toContain("K6=/nonexistent/k6: no k6 there");
    } finally {
      server.stop(true);
    }
  });

  test("-e takes NAME=VALUE, and --db belongs to the sandbox only", async () => {
    expect((await loadtest(["smoke", "-e", "VUS"])).stderr).toContain('-e takes NAME=VALUE, got "VUS"');
    expect((await loadtest(["smoke", "--db", "x.sqlite", "--target", "http://127.0.0.1:9"])).stderr).toContain(
      "with --target there is no sandbox",
    );
    expect((await loadtest(["smoke", "--db", "/nonexistent.sqlite"])).stderr).toContain("no such file");
  });
});

const describeWithK6 = K6 === null ? describe.skip : describe;

describeWithK6("a run", () => {
  test(
    "without --target: a sandbox of the compiled binary, stopped afterwards; the HTML report, the JSON summary (no token in it) and the server's /metrics",
    async () => {
      ensureBinary();
      const result = await loadtest(["smoke", "--reports", reports], { K6: K6! });
      expect({ exitCode: result.exitCode, stderr: result.exitCode === 0 ? "" : result.stderr }).toEqual({
        exitCode: 0,
        stderr: "",
      });
      const paths = printedPaths(result.stderr);
      expect(Object.keys(paths).sort()).toEqual(["HTML report", "JSON summary", "server /metrics"]);
      for (const path of Object.values(paths)) expect(path.startsWith(reports)).toBe(true);

      expect(readFileSync(paths["HTML report"]!, "utf8").includes("<title>k6 report</title>")).toBe(true);
      const summary = JSON.parse(readFileSync(paths["JSON summary"]!, "utf8")) as Record<string, unknown>;
      expect(Object.keys(summary)).not.toContain("setup_data");
      expect(Object.keys(summary.metrics as object)).toContain("http_req_duration{endpoint:leads_create}");
      // smoke.js creates a lead in each of its 5 iterations.
      const scrape = parseExposition(readFileSync(paths["server /metrics"]!, "utf8"));
      expect(sampleValue(scrape, "partner_api_leads_created_total", {})).toBe(5);

      // The sandbox it started is gone.
      const sandboxUrl = /^loadtest: sandbox serving at (\S+)/m.exec(result.stderr)![1]!;
      await expect(fetch(`${sandboxUrl}/health`)).rejects.toThrow();
    },
    K6_RUN_MS,
  );

  test(
    "with --target: that server, the -e settings forwarded to k6",
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "pa-loadtest-target-"));
      let server: RunningBinary | null = null;
      try {
        server = await startBinary(
          ensureBinary(),
          ["sandbox", "--db", join(dir, "sandbox.sqlite"), "--rate-limit", "1000000"],
          dir,
        );
        // 10/s rising to 20/s over 4 s: about 60 iterations.
        const result = await loadtest(
          [
            "breakpoint",
            "--target",
            server.url,
            "--reports",
            reports,
            "-e",
            "MAX_RATE=20",
            "-e",
            "RAMP_DURATION=4s",
            "-e",
            "MAX_VUS=10",
          ],
          { K6: K6! },
        );
        expect({ exitCode: result.exitCode, stderr: result.exitCode === 0 ? "" : result.stderr }).toEqual({
          exitCode: 0,
          stderr: "",
        });
        const paths = printedPaths(result.stderr);
        expect(paths["server /metrics"]).toBeUndefined();
        const summary = JSON.parse(readFileSync(paths["JSON summary"]!, "utf8")) as {
          metrics: Record<string, { count?: number }>;
        };
        expect(summary.metrics.iterations!.count).toBeGreaterThanOrEqual(45);
        expect(summary.metrics.iterations!.count).toBeLessThanOrEqual(75);
        expect(existsSync(paths["HTML report"]!)).toBe(true);
      } finally {
        await server?.stop();
        rmSync(dir, { recursive: true, force: true });
      }
    },
    K6_RUN_MS,
  );
});
