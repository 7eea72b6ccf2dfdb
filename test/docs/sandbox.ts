// The sandbox the docs tests run against: `partner-api sandbox` with its default dataset (the
// one the OpenAPI examples come from), built once per process into a temp folder and copied
// for each app.
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createApp } from "../../src/app.ts";
import { sandboxConfig } from "../../src/cli/sandbox.ts";
import { EXAMPLE_DATASET } from "../../src/docs/examples.ts";
import { silentLogger } from "../../src/logging.ts";
import type { MetricsRegistry } from "../../src/metrics/registry.ts";
import { Runtime } from "../../src/runtime.ts";
import { DEFAULT_SEED_OPTIONS, writeSeedDatabase } from "../../src/seed/generator.ts";

let master: string | null = null;

function masterDatabase(): string {
  if (master === null) {
    const path = join(mkdtempSync(join(tmpdir(), "pa-docs-seed-")), "sandbox.sqlite");
    writeSeedDatabase(path, { ...DEFAULT_SEED_OPTIONS, ...EXAMPLE_DATASET });
    master = path;
  }
  return master;
}

export interface SandboxApp {
  app: ReturnType<typeof createApp>;
  runtime: Runtime;
  dbPath: string;
  request(path: string, init?: RequestInit): Promise<Response>;
  token(): Promise<string>;
  close(): void;
}

export function sandboxApp(
  options: {
    metrics?: MetricsRegistry | null;
    /** Each client's requests per minute (default: no limit in reach). */
    rateLimitPerMinute?: number;
    /** The caller's address (default 127.0.0.1). */
    peer?: () => string;
  } = {},
): SandboxApp {
  const dir = mkdtempSync(join(tmpdir(), "pa-docs-"));
  const dbPath = join(dir, "sandbox.sqlite");
  copyFileSync(masterDatabase(), dbPath);
  const runtime = new Runtime(sandboxConfig(dbPath, options.rateLimitPerMinute ?? 1_000_000));
  const peer = options.peer ?? (() => "127.0.0.1");
  const app = createApp({
    runtime,
    logger: silentLogger(),
    peerAddress: () => peer(),
    ...(options.metrics !== undefined ? { metrics: options.metrics } : {}),
  });
  const request = (path: string, init?: RequestInit) => app.handle(new Request(`http://localhost${path}`, init));
  return {
    app,
    runtime,
    dbPath,
    request,
    async token() {
      const response = await request("/v1/auth/token", {
        method: "POST",
        headers: { "x-api-key": "pk_sandbox_demo", "x-api-secret": "sk_sandbox_demo" },
      });
      return ((await response.json()) as { data: { token: string } }).data.token;
    },
    close() {
      runtime.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
