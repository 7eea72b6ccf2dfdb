// `partner-api serve [--config FILE] [--port P] [--host H] [--workers N]`: production from a
// config file; with --workers, N processes sharing the port (docs/reference/behaviour-extensions.md §15).
import { wallClock } from "../clock.ts";
import { clashingIds } from "../config/console-clients.ts";
import { exposedPathsOf, loadConfigFile } from "../config/load.ts";
import { ControlStore } from "../db/control/store.ts";
import { createLogger, type Logger } from "../logging.ts";
import { ClientClashError, Runtime } from "../runtime.ts";
import { unwritableReason } from "../writable.ts";
import { choosePort, hostFlag, integerFlag, parseFlags, UsageError } from "./args.ts";
import { startServer } from "./server.ts";
import { stopWhenOrphaned, superviseWorkers, workerNumber } from "./workers.ts";

/** More processes than this on one host only fight over its cores. */
const MAX_WORKERS = 64;

export async function serveCommand(args: string[]): Promise<void> {
  const { values } = parseFlags(args, {
    config: { type: "string" },
    port: { type: "string" },
    host: { type: "string" },
    workers: { type: "string" },
    "no-metrics": { type: "boolean" },
  });
  const configPath = values.config ?? "./config.json";
  const config = loadConfigFile(configPath);
  const port = choosePort(values.port, config.port);
  const host = hostFlag(values.host) ?? config.host;
  const workers = integerFlag(values.workers, "workers", 1, MAX_WORKERS) ?? 1;
  const worker = workerNumber();
  if (workers > 1 && config.redis === null) {
    throw new UsageError(
      `--workers ${workers} needs "redis": { "url": "redis://host:6379/0" } in the config: the processes must share ` +
        "their rate limits and idempotency locks, and without Redis each would keep its own",
    );
  }
  const logger = createLogger({ level: config.logLevel });
  // Said once, by the process started by hand (the supervisor of --workers, not each worker).
  if (worker === null) {
    for (const exposed of exposedPathsOf(configPath, config)) {
      logger.warn(
        { file: exposed.path, mode: exposed.mode, fix: exposed.fix },
        `${exposed.problem}: ${exposed.path} (mode ${exposed.mode}); fix: ${exposed.fix}`,
      );
    }
  }
  // The control database is made (and migrated) once, before any worker opens it.
  if (worker === null) {
    const control = openControl(config.controlPath, logger);
    if (control !== null) {
      const clashes = clashingIds(config, control.partners());
      control.close();
      if (clashes.length > 0) throw new UsageError(new ClientClashError(clashes).message);
    }
  }
  if (workers > 1 && worker === null) {
    // The workers are this same command with the same flags; they know they are workers by their environment.
    await superviseWorkers({ count: workers, args: ["serve", ...args], host, port, logger });
    return;
  }
  const runtime = new Runtime(config, wallClock, { logger });
  for (const [name, path] of config.databases) {
    if (runtime.tenants.get(path) === null) {
      logger.warn(
        { database: name, reason: runtime.tenants.failure(path) },
        "database unavailable: its clients get NO_DATABASE",
      );
      continue;
    }
    // SQLite opens a write-protected file read-only without a word: say so now, not at the first lead.
    const unwritable = unwritableReason(path, "the database", { sqlite: true });
    if (unwritable !== null)
      logger.warn(
        { database: name, reason: unwritable },
        "database read-only: reads are served, lead creation answers 503 until it is writable",
      );
  }
  const control = openControl(config.controlPath, logger);
  if (control !== null) {
    try {
      runtime.attachControl(control);
    } catch (error) {
      control.close();
      if (error instanceof ClientClashError) throw new UsageError(error.message);
      throw error;
    }
  }
  if (worker !== null) stopWhenOrphaned();
  startServer({
    runtime,
    logger,
    port,
    host,
    reload: () => loadConfigFile(configPath),
    metrics: values["no-metrics"] !== true,
    worker: worker !== null,
  });
}

/**
 * The control database (docs/operators/console.md), made beside the config when missing. A
 * server that cannot make or open it serves as before, without a console, and says why.
 */
function openControl(path: string, logger: Logger): ControlStore | null {
  try {
    return ControlStore.open(path, { create: true });
  } catch (error) {
    logger.warn(
      { file: path, reason: (error as Error).message },
      "control database unavailable: no console, no console-made partners",
    );
    return null;
  }
}
