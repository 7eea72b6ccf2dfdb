// Driving podman from the container tests: podman's settings on this kind of machine, and
// commands run to completion with their output.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "../helpers/binary.ts";

export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Where no container registry is reachable (this project's machines), the shared tool makes the
 * Dockerfile's two base images locally and names the podman settings such a machine needs; it is
 * idempotent and instant once the images exist. CI runs it first and exports CONTAINERS_CONF; a
 * suite run by hand from a checkout beside the shared folder (../shared) or from a worktree one
 * level further down (../../shared) runs it here. Elsewhere podman's own settings apply.
 */
export function podmanEnvironment(): Record<string, string> {
  if (process.env.CONTAINERS_CONF) return {};
  const script = ["../shared", "../../shared"]
    .map((folder) => join(ROOT, folder, "tools/container/local-base-images"))
    .find((path) => existsSync(path));
  if (script === undefined) return {};
  const result = Bun.spawnSync(["bash", script], { stdout: "pipe", stderr: "pipe" });
  if (result.exitCode !== 0) throw new Error(`${script} failed:\n${result.stderr.toString()}`);
  const conf = /export CONTAINERS_CONF=(\S+)/.exec(result.stdout.toString())?.[1];
  return conf === undefined ? {} : { CONTAINERS_CONF: conf };
}

export function commandRunner(env: Record<string, string>, cwd = ROOT) {
  return async (command: string[], extraEnv: Record<string, string> = {}): Promise<Ran> => {
    const proc = Bun.spawn(command, {
      cwd,
      env: { ...process.env, ...env, ...extraEnv },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [stdout, stderr, code] = await Promise.all([
      new Response(proc.stdout).text(),
      new Response(proc.stderr).text(),
      proc.exited,
    ]);
    return { code, stdout, stderr };
  };
}
