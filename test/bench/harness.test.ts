// The launcher the bench, the fault scripts and the load tests share: a real process that
// answers /health is ready, watched, signalled and stopped; one that never answers or dies
// early is reported with where its stderr went.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, launch, processCpuS, procStats } from "../../bench/harness/launch.ts";

const dir = mkdtempSync(join(tmpdir(), "pa-harness-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SERVER = join(dir, "server.ts");
writeFileSync(
  SERVER,
  `const port = Number(process.argv[2]);
   console.error("listening on " + port);
   Bun.serve({ port, hostname: "127.0.0.1", fetch: (r) => new Response(new URL(r.url).pathname === "/health" ? "ok" : "no", { status: new URL(r.url).pathname === "/health" ? 200 : 404 }) });
   process.on("SIGTERM", () => { console.error("stopping"); process.exit(0); });`,
);

describe("launch", () => {
  test("waits for /health, watches the process through /proc, and stops it with SIGTERM", async () => {
    const port = freePort();
    const log = join(dir, "ok.log");
    const server = await launch({
      name: "test server",
      argv: [process.execPath, SERVER, String(port)],
      port,
      core: null,
      stderrFile: log,
    });
    expect(server.base).toBe(`http://127.0.0.1:${port}`);
    expect(server.alive).toBe(true);
    expect((await fetch(`${server.base}/health`)).status).toBe(200);
    expect(procStats(server.pid)!.rssMiB).toBeGreaterThan(1);
    expect(processCpuS(server.pid)).toBeGreaterThanOrEqual(0);
    await server.stop();
    expect(server.alive).toBe(false);
    expect(await server.exit()).toBe(0);
    expect(readFileSync(log, "utf8")).toContain("stopping");
    expect(procStats(server.pid)).toBeNull();
  });

  test("pinned to a core, the pid is still the server's own (taskset execs it)", async () => {
    const port = freePort();
    const server = await launch({
      name: "pinned",
      argv: [process.execPath, SERVER, String(port)],
      port,
      core: 0,
      stderrFile: join(dir, "pinned.log"),
    });
    try {
      expect(server.command.startsWith("taskset -c 0 ")).toBe(true);
      expect(readFileSync(`/proc/${server.pid}/cmdline`, "utf8")).toContain("server.ts");
    } finally {
      await server.stop();
    }
  });

  test("a process that exits before it is ready is reported with its stderr file", async () => {
    const port = freePort();
    const log = join(dir, "dies.log");
    await expect(
      launch({ name: "dies", argv: [process.execPath, "-e", "process.exit(3)"], port, core: null, stderrFile: log }),
    ).rejects.toThrow(`dies exited (3) before it was ready; see ${log}`);
  });

  test("one that never answers is killed after the timeout", async () => {
    const port = freePort();
    await expect(
      launch({
        name: "silent",
        argv: [process.execPath, "-e", "setInterval(() => {}, 1000)"],
        port,
        core: null,
        stderrFile: join(dir, "silent.log"),
        readyTimeoutMs: 500,
      }),
    ).rejects.toThrow(/silent not ready .* after 500 ms/);
  });
});
