// The real app over a config file's databases, in this process (for /metrics after feed runs).
import { createApp } from "../../src/app.ts";
import type { Clock } from "../../src/clock.ts";
import { loadConfigFile } from "../../src/config/load.ts";
import { silentLogger } from "../../src/logging.ts";
import { Runtime } from "../../src/runtime.ts";
import { handleInNewTurn } from "../helpers/app.ts";

export function apiOverConfig(
  configPath: string,
  clock?: Clock,
): { handle(request: Request): Promise<Response>; close(): void } {
  const runtime = new Runtime(loadConfigFile(configPath), clock);
  const app = createApp({ runtime, logger: silentLogger() });
  return { handle: (request) => handleInNewTurn(app, request), close: () => runtime.close() };
}
