// The binary serving a workspace, started by the shared launcher (bench/harness/launch.ts):
// signal it, wait for the exit, and read its resident memory and open file descriptors.
import { join } from "node:path";
import { freePort, type Launched, launch, procStats } from "../../../bench/harness/launch.ts";
import type { Workspace } from "./workspace.ts";

export type ProcStats = NonNullable<ReturnType<typeof procStats>>;
export { procStats };

export class Server {
  private constructor(private readonly launched: Launched) {}

  static async start(
    workspace: Workspace,
    options: { port?: number; timeoutMs?: number; log?: string } = {},
  ): Promise<Server> {
    const port = options.port ?? freePort();
    return new Server(
      await launch({
        name: "server",
        argv: [workspace.binary, "serve", "--config", workspace.configPath, "--port", String(port)],
        port,
        core: null,
        cwd: workspace.dir,
        stderrFile: options.log ?? join(workspace.dir, "server.stderr.log"),
        readyTimeoutMs: options.timeoutMs ?? 15_000,
      }),
    );
  }

  get proc(): Launched["proc"] {
    return this.launched.proc;
  }

  get port(): number {
    return this.launched.port;
  }

  get url(): string {
    return this.launched.base;
  }

  /** Milliseconds from spawn to the first 200 from /health. */
  get startupMs(): number {
    return this.launched.startupMs;
  }

  get pid(): number {
    return this.launched.pid;
  }

  stats(): ProcStats | null {
    return procStats(this.launched.pid);
  }

  signal(signal: NodeJS.Signals): void {
    this.launched.signal(signal);
  }

  /** Exit code, or the signal name when killed by one. */
  exit(): Promise<number | string> {
    return this.launched.exit();
  }

  get alive(): boolean {
    return this.launched.alive;
  }
}
