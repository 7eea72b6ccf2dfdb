// `partner-api healthcheck`: the container's health check (the image has no curl). Exit 0 when
// GET /health on this machine answers 200; else 1, saying what answered or why nothing did.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { binaryInNewFolder, freePort, type RunningBinary, startBinary } from "../helpers/binary.ts";

let dir: string;
let binary: string;
let sandbox: RunningBinary;

beforeAll(async () => {
  ({ dir, binary } = binaryInNewFolder("pa-healthcheck-"));
  sandbox = await startBinary(binary, ["sandbox", "--db", join(dir, "sandbox.sqlite")], dir);
});
afterAll(async () => {
  await sandbox.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** Spawned, not spawnSync: the degraded server below answers from this process's event loop. */
async function healthcheck(args: string[], env: Record<string, string> = {}) {
  const { PORT: _, ...rest } = process.env;
  const proc = Bun.spawn([binary, "healthcheck", ...args], { env: { ...rest, ...env }, stderr: "pipe" });
  const [stderr, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
  return { code, stderr };
}

describe("partner-api healthcheck", () => {
  const port = () => new URL(sandbox.url).port;

  test("a healthy server: exit 0, silent; the port from --port or, as for serve, from PORT", async () => {
    expect(await healthcheck(["--port", port()])).toEqual({ code: 0, stderr: "" });
    expect(await healthcheck([], { PORT: port() })).toEqual({ code: 0, stderr: "" });
  });

  test("nothing listening: exit 1 naming the URL", async () => {
    const closed = String(freePort());
    const result = await healthcheck(["--port", closed]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`http://127.0.0.1:${closed}/health`);
  });

  test("a degraded server (503): exit 1 with what it answered", async () => {
    const degraded = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch: () => Response.json({ status: "degraded" }, { status: 503 }),
    });
    try {
      const result = await healthcheck(["--port", String(degraded.port)]);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`answered 503: {"status":"degraded"}`);
    } finally {
      degraded.stop(true);
    }
  });

  test("bad flags are a usage error (exit 2)", async () => {
    expect((await healthcheck(["--port", "x"])).code).toBe(2);
    expect((await healthcheck(["--nope"])).code).toBe(2);
  });
});
