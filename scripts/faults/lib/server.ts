// The binary serving a workspace: start (ready when /health answers 200), signal, wait for the
// exit, and read the process's resident memory and open file descriptors from /proc.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { freePort } from "../../../test/helpers/binary.ts";
import type { Workspace } from "./workspace.ts";

export interface ProcStats {
  rssMiB: number;
  fds: number;
}

export function procStats(pid: number): ProcStats | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const rssKiB = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
    return { rssMiB: Math.round((rssKiB / 1024) * 10) / 10, fds: readdirSync(`/proc/${pid}/fd`).length };
  } catch {
    return null; // the process is gone
  }
}

export class Server {
  private constructor(
    readonly proc: ReturnType<typeof Bun.spawn>,
    readonly port: number,
    readonly url: string,
    /** Milliseconds from spawn to the first 200 from /health. */
    readonly startupMs: number,
  ) {}

  static async start(
    workspace: Workspace,
    options: { port?: number; timeoutMs?: number; log?: string } = {},
  ): Promise<Server> {
    const port = options.port ?? freePort();
    const started = performance.now();
    const proc = Bun.spawn([workspace.binary, "serve", "--config", workspace.configPath, "--port", String(port)], {
      cwd: workspace.dir,
      stdout: "ignore",
      // A file, not a pipe: nobody reads a pipe during a run, and a full pipe would stall the server.
      stderr: Bun.file(options.log ?? join(workspace.dir, "server.stderr.log")),
    });
    const url = `http://127.0.0.1:${port}`;
    const deadline = Date.now() + (options.timeoutMs ?? 15_000);
    while (Date.now() < deadline) {
      if (proc.exitCode !== null || proc.signalCode !== null) break;
      try {
        if ((await fetch(`${url}/health`, { signal: AbortSignal.timeout(1_000) })).status === 200) {
          return new Server(proc, port, url, Math.round(performance.now() - started));
        }
      } catch {
        // not listening yet
      }
      await Bun.sleep(20);
    }
    proc.kill("SIGKILL");
    throw new Error(`server did not become healthy on ${url} (exit ${proc.exitCode ?? proc.signalCode})`);
  }

  get pid(): number {
    return this.proc.pid;
  }

  stats(): ProcStats | null {
    return procStats(this.proc.pid);
  }

  signal(signal: NodeJS.Signals): void {
    this.proc.kill(signal);
  }

  /** Exit code, or the signal name when killed by one. */
  async exit(): Promise<number | string> {
    await this.proc.exited;
    return this.proc.signalCode ?? this.proc.exitCode ?? -1;
  }

  get alive(): boolean {
    return this.proc.exitCode === null && this.proc.signalCode === null;
  }
}
