// The external tools the bench needs, and how to get them when they are missing.

const HINTS: Record<string, string> = {
  wrk: "apt-get update && apt-get install -y wrk",
  "redis-server": "apt-get update && apt-get install -y redis-server   (the shared-limit and workers scenarios)",
  taskset: "apt-get update && apt-get install -y util-linux   (taskset is part of util-linux)",
};

/** Exits with the install command when a tool is missing, before anything is started. */
export function requireTools(): void {
  const missing = Object.keys(HINTS).filter((tool) => Bun.which(tool) === null);
  if (missing.length === 0) return;
  console.error("The benchmark needs tools that are not installed:");
  for (const tool of missing) console.error(`  ${tool}: ${HINTS[tool]}`);
  process.exit(2);
}

/** Two cores at least: the server gets one, the load generator the other. */
export function requireCores(serverCore: number, loadCore: number): void {
  const available = navigator.hardwareConcurrency;
  if (Math.max(serverCore, loadCore) >= available || serverCore === loadCore) {
    console.error(
      `The benchmark pins the server to core ${serverCore} and wrk to core ${loadCore}; this machine has ${available} core(s).`,
    );
    process.exit(2);
  }
}

/** Keeps the runner itself off the server's core (it samples /proc and times single requests). */
export function pinSelf(core: number): void {
  Bun.spawnSync(["taskset", "-a", "-cp", String(core), String(process.pid)], { stdout: "ignore", stderr: "ignore" });
}
