// The server a load test drives when no --target is given: the compiled binary as a sandbox on
// a free loopback port, serving a copy of the data (the scripts create leads), with a rate
// limit no scenario reaches, so a run measures the API and not the limiter.
import { join } from "node:path";
import { freePort, launch, processCpuS } from "../../bench/harness/launch.ts";

/** Requests per minute: far beyond what k6 on this kind of machine can send. */
export const UNREACHABLE_RATE_LIMIT = 1_000_000_000;

export interface Sandbox {
  url: string;
  /** CPU seconds the server has used so far. */
  cpuSeconds(): number;
  /** The scrape of GET /metrics (open on the sandbox), or null when it could not be read. */
  metrics(): Promise<string | null>;
  stop(): Promise<void>;
}

/**
 * Starts `binary sandbox` in `workDir`. With `sourceDb`, serves a consistent copy of it made
 * by `partner-api backup` (safe while another server uses the file); without, the sandbox
 * builds its seeded dataset there. `cpu` pins the server to one core.
 */
export async function startSandbox(options: {
  binary: string;
  workDir: string;
  sourceDb: string | null;
  cpu: number | null;
}): Promise<Sandbox> {
  const db = join(options.workDir, "sandbox.sqlite");
  if (options.sourceDb !== null) {
    const copy = Bun.spawnSync([options.binary, "backup", "--db", options.sourceDb, "--out", db], {
      stdout: "pipe",
      stderr: "pipe",
    });
    if (copy.exitCode !== 0) throw new Error(`could not copy ${options.sourceDb}: ${copy.stderr.toString().trim()}`);
  }
  const port = freePort();
  // The shared launcher (bench/harness/launch.ts); its access log is part of the cost of a
  // request, keeping it is not (a line per request): stdout is dropped.
  const server = await launch({
    name: "the sandbox",
    argv: [
      options.binary,
      "sandbox",
      "--db",
      db,
      "--port",
      String(port),
      "--rate-limit",
      String(UNREACHABLE_RATE_LIMIT),
    ],
    port,
    core: options.cpu,
    cwd: options.workDir,
    stderrFile: join(options.workDir, "sandbox.stderr.log"),
  });
  const url = server.base;
  return {
    url,
    // taskset execs the binary, so the pid is the server's own.
    cpuSeconds: () => processCpuS(server.pid),
    async metrics() {
      try {
        const response = await fetch(`${url}/metrics`);
        return response.ok ? await response.text() : null;
      } catch {
        return null;
      }
    },
    stop: () => server.stop(),
  };
}
