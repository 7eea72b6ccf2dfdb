// What the figures were measured on: they mean little without the machine, its load, the
// Bun and product versions and the commit.
import { readFileSync } from "node:fs";
import { cpus, loadavg, release, totalmem } from "node:os";

export interface Machine {
  nproc: number;
  cpu: string;
  memoryGiB: number;
  kernel: string;
  bun: string;
  commit: string;
  loadStart: string;
}

function sh(argv: string[], cwd?: string): string {
  const proc = Bun.spawnSync(argv, { stdout: "pipe", stderr: "ignore", ...(cwd ? { cwd } : {}) });
  return proc.exitCode === 0 ? proc.stdout.toString().trim() : "unknown";
}

export function loadAverage(): string {
  return loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");
}

export function describeMachine(root: string): Machine {
  const cpuinfo = readFileSync("/proc/cpuinfo", "utf8");
  const model = /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1] ?? cpus()[0]?.model ?? "unknown";
  const commit = sh(["git", "rev-parse", "--short", "HEAD"], root);
  // Others edit the same checkout: say when src/ differs from the commit that is named.
  const dirty = sh(["git", "status", "--porcelain", "--", "src"], root) !== "";
  return {
    nproc: Number(sh(["nproc"])) || cpus().length,
    cpu: model.trim(),
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    kernel: release(),
    bun: Bun.version,
    commit: dirty ? `${commit} (src/ with uncommitted changes)` : commit,
    loadStart: loadAverage(),
  };
}
