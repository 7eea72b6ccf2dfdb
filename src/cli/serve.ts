// `partner-api serve [--config FILE] [--port P]`: production from a config file.
import { loadConfigFile } from "../config/load.ts";
import { createLogger } from "../logging.ts";
import { Runtime } from "../runtime.ts";
import { unwritableReason } from "../writable.ts";
import { choosePort, hostFlag, parseFlags } from "./args.ts";
import { startServer } from "./server.ts";

export function serveCommand(args: string[]): void {
  const { values } = parseFlags(args, {
    config: { type: "string" },
    port: { type: "string" },
    host: { type: "string" },
    "no-metrics": { type: "boolean" },
  });
  const configPath = values.config ?? "./config.json";
  const config = loadConfigFile(configPath);
  const port = choosePort(values.port, config.port);
  const logger = createLogger({ level: config.logLevel });
  const runtime = new Runtime(config);
  for (const [name, path] of config.databases) {
    if (runtime.tenants.get(path) === null) {
      logger.warn({ database: name, reason: runtime.tenants.failure(path) }, "database unavailable: its clients get NO_DATABASE");
      continue;
    }
    // SQLite opens a write-protected file read-only without a word: say so now, not at the first lead.
    const unwritable = unwritableReason(path, "the database", { sqlite: true });
    if (unwritable !== null) logger.warn({ database: name, reason: unwritable }, "database read-only: reads are served, lead creation answers 503 until it is writable");
  }
  startServer({
    runtime,
    logger,
    port,
    host: hostFlag(values.host) ?? config.host,
    reload: () => loadConfigFile(configPath),
    metrics: values["no-metrics"] !== true,
  });
}
