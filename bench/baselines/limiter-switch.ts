// The product's server, run from source, with its rate-limit step on or off: the bench's
// "limiter" scenario serves the same route from both, in the same run, so the ratio between
// them is what the limiter costs on the whole hot path (guard, limiter, headers, logging).
// Both sides start from here, not one from the compiled binary, so nothing else differs.
//
//   bun bench/baselines/limiter-switch.ts --port P --db FILE --limiter on|off
import { parseArgs } from "node:util";
import type { Client } from "../../src/config/model.ts";
import { sandboxConfig } from "../../src/cli/sandbox.ts";
import { startServer } from "../../src/cli/server.ts";
import type { HeaderRecord } from "../../src/limits/headers.ts";
import { createLogger } from "../../src/logging.ts";
import { Runtime } from "../../src/runtime.ts";

const { values } = parseArgs({ options: { port: { type: "string" }, db: { type: "string" }, limiter: { type: "string" } } });
if (!values.port || !values.db || (values.limiter !== "on" && values.limiter !== "off")) {
  console.error("usage: bun bench/baselines/limiter-switch.ts --port P --db FILE --limiter on|off");
  process.exit(2);
}

/** Skips the burst cap, the window and their headers; every other step of the guard runs. */
class RuntimeWithoutLimiter extends Runtime {
  override admit(_client: Client, _headers: HeaderRecord): void {}
}

// The sandbox's own config, with the limit the product gets in the bench: counted, never refused.
const config = sandboxConfig(values.db, 1_000_000_000);
const runtime = values.limiter === "on" ? new Runtime(config) : new RuntimeWithoutLimiter(config);
startServer({ runtime, logger: createLogger({ pretty: false }), port: Number(values.port), host: "0.0.0.0", metrics: true });
