// `serve --workers N`: a supervisor that starts N copies of this same command, each a whole
// server listening on one shared port (SO_REUSEPORT: the kernel spreads connections between
// them) over the same database files, with their limits and idempotency locks in Redis. The
// supervisor serves nothing itself: it forwards SIGHUP and SIGTERM to every worker, restarts a
// worker that dies, collects every worker's metrics for a scrape (src/metrics/cluster.ts), and
// exits once every worker has stopped.
import type { Subprocess } from "bun";
import { selfCommand } from "../executable.ts";
import type { Logger } from "../logging.ts";
import { collectWorkerMetrics } from "../metrics/cluster.ts";
import { assertPortFree } from "./server.ts";

/** Set in a worker's environment: its number, and that it shares its port on purpose. */
export const WORKER_ENV = "PARTNER_API_WORKER";
/** Set in a worker's environment: its supervisor's pid. */
const SUPERVISOR_ENV = "PARTNER_API_SUPERVISOR";

/** A worker that dies this soon after starting is restarted after a pause, not at once. */
const QUICK_DEATH_MS = 5_000;
const RESTART_PAUSE_MS = 1_000;
/** Longer than a worker's own drain (10 s), so a clean stop is never cut short. */
const STOP_TIMEOUT_MS = 15_000;

/** The worker number of this process, or null when it is not a worker. */
export function workerNumber(): number | null {
  const value = process.env[WORKER_ENV];
  return value !== undefined && /^\d+$/.test(value) ? Number(value) : null;
}

/**
 * A worker stops (cleanly, as on SIGTERM) once its supervisor is gone: killed outright, the
 * supervisor cannot forward anything, and orphaned workers would keep the port and the files.
 */
export function stopWhenOrphaned(): void {
  // From the environment, not from process.ppid now: the supervisor may already be gone.
  const supervisor = Number(process.env[SUPERVISOR_ENV]);
  const check = () => {
    if (process.ppid !== supervisor) process.kill(process.pid, "SIGTERM");
  };
  check();
  setInterval(check, 1_000).unref();
}

export async function superviseWorkers(options: {
  count: number;
  args: string[];
  host: string;
  port: number;
  logger: Logger;
}): Promise<void> {
  const { count, args, logger } = options;
  // A port held by anything else is refused here, before the workers would share it.
  await assertPortFree(options.host, options.port);
  const workers = new Map<number, { proc: Subprocess; startedAt: number }>();
  let stopping = false;
  // A scrape of /metrics reaching one worker is answered for all of them, through us.
  const onMessage = collectWorkerMetrics(() => [...workers.values()].map((w) => w.proc));

  const start = (n: number) => {
    const proc = Bun.spawn(selfCommand(args), {
      env: { ...process.env, [WORKER_ENV]: String(n), [SUPERVISOR_ENV]: String(process.pid) },
      stdio: ["ignore", "inherit", "inherit"],
      ipc: onMessage,
      serialization: "json",
    });
    workers.set(n, { proc, startedAt: performance.now() });
    void proc.exited.then((code) => {
      if (stopping) return;
      const lived = performance.now() - (workers.get(n)?.startedAt ?? 0);
      logger.error({ worker: n, pid: proc.pid, code, signal: proc.signalCode }, "worker exited; starting it again");
      setTimeout(
        () => {
          if (!stopping) start(n);
        },
        lived < QUICK_DEATH_MS ? RESTART_PAUSE_MS : 0,
      );
    });
  };
  for (let n = 1; n <= count; n++) start(n);
  logger.info(
    { workers: count, port: options.port, pids: [...workers.values()].map((w) => w.proc.pid) },
    "workers started",
  );

  process.on("SIGHUP", () => {
    for (const { proc } of workers.values()) proc.kill("SIGHUP");
  });
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    logger.info("stopping the workers");
    for (const { proc } of workers.values()) proc.kill("SIGTERM");
    const all = Promise.all([...workers.values()].map(({ proc }) => proc.exited));
    const timeout = new Promise<"timeout">((resolve) => setTimeout(() => resolve("timeout"), STOP_TIMEOUT_MS).unref());
    if ((await Promise.race([all, timeout])) === "timeout") {
      logger.warn("workers still running after 15 s; killing them");
      for (const { proc } of workers.values()) proc.kill("SIGKILL");
      await all;
    }
    logger.info("stopped");
    logger.flush?.();
    process.exit(0);
  };
  process.on("SIGTERM", () => void stop());
  process.on("SIGINT", () => void stop());
}
