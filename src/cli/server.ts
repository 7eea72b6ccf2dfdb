// Running the HTTP server: listen, reload on SIGHUP, and stop gracefully on SIGTERM/SIGINT
// (stop accepting, let in-flight requests finish for up to 10 s, close databases, exit 0).
import { createApp } from "../app.ts";
import type { RuntimeConfig } from "../config/model.ts";
import { scheduleCompaction } from "../db/compaction.ts";
import type { Logger } from "../logging.ts";
import { MetricsRegistry } from "../metrics/registry.ts";
import { createServerWebhooks } from "../modules/webhooks/service.ts";
import { lastResort } from "../plugins/errors.ts";
import type { Runtime } from "../runtime.ts";
import { serverFeedScheduler } from "./crm-feed-child.ts";

const DRAIN_TIMEOUT_MS = 10_000;
/**
 * No transport cap: past one, Bun answers a bare 413 itself (no `{ error, code }`, no request
 * id). Bodies stream; every route that takes one reads it through plugins/body.ts, which stops
 * at 64 KiB (declared or counted) with the contract's 413, and the rest never read it at all.
 */
const TRANSPORT_BODY_LIMIT = Number.MAX_SAFE_INTEGER;

/** The listen failure in words an operator can act on (exit 1 through main). */
function listenError(error: unknown, host: string, port: number): Error {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === "EADDRINUSE") {
    return new Error(
      `port ${port} on ${host} is already in use (another partner-api, or another program, is listening there): ` +
        "stop it or choose another port with --port",
    );
  }
  if (code === "EACCES")
    return new Error(
      `not allowed to listen on ${host}:${port} (ports below 1024 need privileges): choose another with --port`,
    );
  if (code === "EADDRNOTAVAIL")
    return new Error(`cannot listen on ${host}: no such address on this machine (check --host or the config's host)`);
  return new Error(`cannot listen on ${host}:${port}: ${(error as Error).message}`);
}

/** Throws the listen error an operator can act on when host:port is taken. */
export async function assertPortFree(host: string, port: number): Promise<void> {
  let probe: ReturnType<typeof Bun.serve>;
  try {
    probe = Bun.serve({ hostname: host, port, reusePort: false, fetch: () => new Response(null, { status: 503 }) });
  } catch (error) {
    throw listenError(error, host, port);
  }
  await probe.stop(true);
}

export interface RunningServer {
  port: number;
  stop(): Promise<void>;
}

export function startServer(options: {
  runtime: Runtime;
  logger: Logger;
  port: number;
  host: string;
  /** Called on SIGHUP; returns the new config or throws to keep the old one. */
  reload?: () => RuntimeConfig;
  /** False: request metrics are not recorded (GET /metrics still shows database sizes). */
  metrics?: boolean;
  /**
   * One of `serve --workers N`: shares its port with the other workers on purpose, and its
   * scrapes of /metrics answer for all of them.
   */
  worker?: boolean;
}): RunningServer {
  const { runtime, logger } = options;
  const webhooks = createServerWebhooks(runtime, { logger });
  // Null: request metrics off (createApp then keeps a registry of its own without them).
  const metrics = options.metrics === false ? null : new MetricsRegistry();
  const app = createApp({ runtime, logger, webhooks, worker: options.worker === true, metrics });
  try {
    app.listen({
      port: options.port,
      hostname: options.host,
      // Elysia asks for SO_REUSEPORT by default: a second server on a busy port would then start
      // silently and the kernel would split connections between the two. A busy port is an
      // error, except between the workers of one `serve --workers N` (whose supervisor checked it).
      reusePort: options.worker === true,
      maxRequestBodySize: TRANSPORT_BODY_LIMIT,
      // Slow clients may not hold a connection open forever.
      idleTimeout: 30,
      development: false,
      error: lastResort({ logger, requests: metrics?.requests ?? null }),
    });
  } catch (error) {
    runtime.close();
    throw listenError(error, options.host, options.port);
  }
  const server = app.server!;
  // The reader threads load now, not on the first search a partner sends: each builds the
  // listing index of every database before its first job (seconds at a million listings), so the
  // databases are opened first for the threads to find them.
  for (const path of new Set(runtime.config.databases.values())) runtime.tenants.get(path);
  runtime.reads.warm();
  webhooks.worker.start();
  const feeds = serverFeedScheduler(runtime, logger);
  feeds.start();
  runtime.feedRuns = feeds;
  const stopCompaction = scheduleCompaction(
    () => runtime.tenants.all(),
    (error) => logger.warn({ err: (error as Error).message }, "change-feed compaction step failed"),
  );

  let stopping: Promise<void> | null = null;
  const stop = () => {
    stopping ??= (async () => {
      logger.info("shutting down: finishing in-flight requests");
      stopCompaction();
      // Attempts under way end within their 10 s timeout; one cut short is retried after a restart.
      const deliveriesDone = webhooks.worker.stop();
      // A feed run under way stops between two chunks of writes; the next run completes it.
      const feedsDone = feeds.stop();
      const drained = server.stop(false);
      const timeout = new Promise<"timeout">((resolve) =>
        setTimeout(() => resolve("timeout"), DRAIN_TIMEOUT_MS).unref(),
      );
      if ((await Promise.race([drained.then(() => "drained" as const), timeout])) === "timeout") {
        logger.warn("in-flight requests still running after 10 s; closing them");
        await server.stop(true);
      }
      await Promise.race([Promise.all([deliveriesDone, feedsDone]), timeout]);
      // Writes already queued for a group commit settle before the databases close.
      await new Promise((resolve) => setImmediate(resolve));
      await runtime.closeUsage();
      runtime.close();
      logger.info("stopped");
      logger.flush?.();
    })();
    return stopping;
  };

  const onSignal = () => {
    void stop().then(() => process.exit(0));
  };
  process.on("SIGTERM", onSignal);
  process.on("SIGINT", onSignal);
  if (options.reload) {
    const reload = options.reload;
    process.on("SIGHUP", () => {
      try {
        runtime.reload(reload());
        feeds.reload();
        logger.info({ clients: runtime.config.clients.size, feeds: runtime.config.feeds.length }, "config reloaded");
      } catch (error) {
        logger.error({ err: (error as Error).message }, "config reload refused; the previous config stays in force");
      }
    });
  }
  logger.info({ port: server.port, host: options.host, environment: runtime.config.environment }, "listening");
  return { port: server.port!, stop };
}
