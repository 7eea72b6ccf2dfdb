// Runs the compiled binary as a subprocess for end-to-end tests (built once if missing or stale).
import { copyFileSync, existsSync, mkdtempSync, readdirSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

export const ROOT = resolve(import.meta.dir, "../..");
export const BINARY = join(ROOT, "dist/partner-api");

function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSource(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/** Builds dist/partner-api unless it is newer than every file of src/. */
export function ensureBinary(): string {
  if (!existsSync(BINARY) || statSync(BINARY).mtimeMs < newestSource(join(ROOT, "src"))) {
    const build = Bun.spawnSync([process.execPath, "run", "build"], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
    if (build.exitCode !== 0) throw new Error(`build failed:\n${build.stderr.toString()}`);
  }
  return BINARY;
}

/** A new temporary folder (named from `prefix`) holding a copy of the binary alone, as an agency would run it. */
export function binaryInNewFolder(prefix: string): { dir: string; binary: string } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const binary = join(dir, "partner-api");
  copyFileSync(ensureBinary(), binary);
  return { dir, binary };
}

/** A port that was free a moment ago. */
export function freePort(): number {
  const server = Bun.serve({ port: 0, fetch: () => new Response() });
  const port = server.port!;
  server.stop(true);
  return port;
}

export interface RunningBinary {
  proc: ReturnType<typeof Bun.spawn>;
  url: string;
  stderr(): Promise<string>;
  /** What the server wrote to stdout (its log lines); empty unless started with captureStdout. */
  stdout(): Promise<string>;
  stop(signal?: NodeJS.Signals): Promise<number>;
}

export async function waitHealthy(url: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(`${url}/health`)).status === 200) return;
    } catch {
      // not listening yet
    }
    await Bun.sleep(50);
  }
  throw new Error(`server at ${url} did not become healthy`);
}

/** Starts `binary args…` with --port appended, waits for /health. */
export async function startBinary(
  binary: string,
  args: string[],
  cwd: string,
  env: Record<string, string> = {},
  options: { captureStdout?: boolean } = {},
): Promise<RunningBinary> {
  const port = freePort();
  const proc = Bun.spawn([binary, ...args, "--port", String(port)], {
    cwd,
    env: { ...process.env, ...env },
    // Unread, a piped stdout would fill and hold the server's log lines: piped only on request.
    stdout: options.captureStdout ? "pipe" : "ignore",
    stderr: "pipe",
  });
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitHealthy(url);
  } catch (error) {
    proc.kill("SIGKILL");
    throw new Error(`${(error as Error).message}\n${await new Response(proc.stderr).text()}`);
  }
  return {
    proc,
    url,
    stderr: () => new Response(proc.stderr).text(),
    stdout: () => (proc.stdout instanceof ReadableStream ? new Response(proc.stdout).text() : Promise.resolve("")),
    async stop(signal = "SIGTERM") {
      proc.kill(signal);
      return await proc.exited;
    },
  };
}

export async function sandboxToken(url: string): Promise<string> {
  const response = await fetch(`${url}/v1/auth/token`, {
    method: "POST",
    headers: { "x-api-key": "pk_sandbox_demo", "x-api-secret": "sk_sandbox_demo" },
  });
  if (response.status !== 200) throw new Error(`token: ${response.status}`);
  return ((await response.json()) as { data: { token: string } }).data.token;
}
