// The product's server, run from source, with its rate-limit step on or off: the bench's
// "limiter" scenario serves the same route from both, in the same run, so the ratio between
// them is what the limiter costs on the whole hot path (guard, limiter, headers, logging).
// Both sides start from here, not one from the compiled binary, so nothing else differs.
//
// With `--limiter redis --redis URL` the limits live in that Redis, as with `"redis"` in a config.
//
//   bun bench/baselines/limiter-switch.ts --port P --db FILE --limiter on|off|redis [--redis URL]
import { parseArgs } from "node:util";
import { sandboxConfig } from "../../src/cli/sandbox.ts";
import { startServer } from "../../src/cli/server.ts";
import { wallClock } from "../../src/clock.ts";
import type { Client } from "../../src/config/model.ts";
import type { HeaderRecord } from "../../src/limits/headers.ts";
import { createLogger } from "../../src/logging.ts";
import { Runtime } from "../../src/runtime.ts";

const { values } = parseArgs({
  options: { port: { type: "string" }, db: { type: "string" }, limiter: { type: "string" }, redis: { type: "string" } },
});
if (
  !values.port ||
  !values.db ||
  !["on", "off", "redis"].includes(values.limiter ?? "") ||
  (values.limiter === "redis") !== (values.redis !== undefined)
) {
  console.error("usage: bun bench/baselines/limiter-switch.ts --port P --db FILE --limiter on|off|redis [--redis URL]");
  process.exit(2);
}

/** Skips the burst cap, the window and their headers; every other step of the guard runs. */
class RuntimeWithoutLimiter extends Runtime {
  override admit(_client: Client, _headers: HeaderRecord): undefined {}
}

// The sandbox's own config, with the limit the product gets in the bench: counted, never refused.
const sandbox = sandboxConfig(values.db, 1_000_000_000);
const config = values.redis === undefined ? sandbox : { ...sandbox, redis: { url: values.redis, keyPrefix: "bench:" } };
const logger = createLogger({ pretty: false });
const runtime =
  values.limiter === "off" ? new RuntimeWithoutLimiter(config) : new Runtime(config, wallClock, { logger });
startServer({ runtime, logger, port: Number(values.port), host: "0.0.0.0", metrics: true });
