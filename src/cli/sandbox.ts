// `partner-api sandbox`: the seeded fictitious dataset served with the published credentials.
import { existsSync, mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { resolveConfig, validateConfig } from "../config/load.ts";
import type { RuntimeConfig } from "../config/model.ts";
import { ControlStore } from "../db/control/store.ts";
import { removeDatabaseFiles } from "../db/files.ts";
import { refuseIfInUse } from "../db/in-use.ts";
import { SANDBOX_INBOUND } from "../docs/examples.ts";
import { createLogger } from "../logging.ts";
import { Runtime } from "../runtime.ts";
import { SCOPES } from "../security/scopes.ts";
import { hashSecret, randomToken } from "../security/secrets.ts";
import { assertWritable } from "../writable.ts";
import { choosePort, hostFlag, integerFlag, parseFlags, urlHost } from "./args.ts";
import { startServer } from "./server.ts";

export const SANDBOX_API_KEY = "pk_sandbox_demo";
export const SANDBOX_API_SECRET = "sk_sandbox_demo";
export const DEFAULT_SANDBOX_RATE_LIMIT = 600;
/** The sandbox's demo owner of the console (docs/operators/console.md): public, without TOTP. */
export const SANDBOX_ADMIN_EMAIL = "demo@sandbox.invalid";
export const SANDBOX_ADMIN_PASSWORD = "sandbox-demo";
/** Its credentials are public: the sandbox answers only this machine unless --host says otherwise. */
export const DEFAULT_SANDBOX_HOST = "127.0.0.1";

export function sandboxConfig(databasePath: string, rateLimitPerMinute: number): RuntimeConfig {
  const file = {
    environment: "sandbox" as const,
    databases: { sandbox: databasePath },
    clients: [
      {
        id: "sandbox",
        name: "Sandbox partner",
        apiKey: SANDBOX_API_KEY,
        secretHash: hashSecret(SANDBOX_API_SECRET),
        database: "sandbox",
        rateLimitPerMinute,
        // Partners try every route in the sandbox: its client has every scope.
        scopes: [...SCOPES],
      },
      // Portal leads can be tried too: one client per format, its Basic auth password the
      // sandbox secret. Their API secret is random: they are portals, not API partners.
      ...Object.entries(SANDBOX_INBOUND).map(([format, { clientId, username }]) => ({
        id: clientId,
        name: `Sandbox portal (${format})`,
        apiKey: `pk_sandbox_${format}`,
        secretHash: hashSecret(randomToken(40)),
        database: "sandbox",
        rateLimitPerMinute,
        scopes: ["leads:create" as const, "leads:read:own" as const],
        inbound: {
          format: format as keyof typeof SANDBOX_INBOUND,
          ...(username === null ? {} : { username }),
          passwordHash: hashSecret(SANDBOX_API_SECRET),
        },
      })),
    ],
  };
  // Through the same validation as a config file, so the sandbox can never run on a config
  // that production would refuse for its shape.
  return resolveConfig(validateConfig(file, "sandbox"), { baseDir: process.cwd(), jwtSecret: randomToken(48) });
}

/** The sandbox's control database beside its dataset, with the demo owner in it. */
export async function sandboxControl(dbPath: string): Promise<ControlStore> {
  const store = ControlStore.open(join(dirname(dbPath), "sandbox-control.sqlite"), { create: true });
  if (store.adminByEmail(SANDBOX_ADMIN_EMAIL) === null) {
    store.insertAdmin({
      email: SANDBOX_ADMIN_EMAIL,
      role: "owner",
      databases: [],
      status: "active",
      passwordHash: await Bun.password.hash(SANDBOX_ADMIN_PASSWORD, { algorithm: "argon2id" }),
      setupTokenHash: null,
      setupExpiresAt: null,
      createdAt: Date.now(),
    });
  }
  return store;
}

export async function sandboxCommand(args: string[]): Promise<void> {
  const { values } = parseFlags(args, {
    port: { type: "string" },
    host: { type: "string" },
    db: { type: "string" },
    "rate-limit": { type: "string" },
    reset: { type: "boolean" },
    "no-metrics": { type: "boolean" },
  });
  const dbPath = resolve(values.db ?? "data/sandbox.sqlite");
  const rateLimit = integerFlag(values["rate-limit"], "rate-limit", 1) ?? DEFAULT_SANDBOX_RATE_LIMIT;
  const port = choosePort(values.port, null);
  const host = hostFlag(values.host) ?? DEFAULT_SANDBOX_HOST;
  const logger = createLogger();

  mkdirSync(dirname(dbPath), { recursive: true });
  // Partners create leads: the dataset must be writable, whether it is built now or already there.
  assertWritable(dbPath, "the sandbox database", { sqlite: true });
  if (values.reset && existsSync(dbPath)) {
    refuseIfInUse(dbPath); // another sandbox serving this file would be corrupted
    removeDatabaseFiles(dbPath);
    removeDatabaseFiles(join(dirname(dbPath), "sandbox-control.sqlite"));
  }
  if (!existsSync(dbPath)) {
    // Loaded only when a dataset must be built: a start on an existing file skips its tables.
    const { DEFAULT_SEED_OPTIONS, writeSeedDatabase } = await import("../seed/generator.ts");
    const summary = writeSeedDatabase(dbPath, { ...DEFAULT_SEED_OPTIONS });
    logger.info({ ...summary, file: dbPath }, "sandbox dataset built");
  }

  const runtime = new Runtime(sandboxConfig(dbPath, rateLimit));
  runtime.attachControl(await sandboxControl(dbPath));
  const running = startServer({ runtime, logger, port, host, metrics: values["no-metrics"] !== true });
  // Every interface includes this machine's loopback: the URL a partner can paste here.
  const local = host === DEFAULT_SANDBOX_HOST || host === "0.0.0.0" || host === "::";
  const url = `http://${local ? "localhost" : urlHost(host)}:${running.port}`;
  process.stderr.write(
    [
      "",
      `partner-api sandbox is running at ${url}`,
      `  API key:    ${SANDBOX_API_KEY}`,
      `  API secret: ${SANDBOX_API_SECRET}`,
      `  rate limit: ${rateLimit} requests per minute`,
      `  docs:       ${url}/docs`,
      `  console:    ${url}/console  (${SANDBOX_ADMIN_EMAIL} / ${SANDBOX_ADMIN_PASSWORD}, no code)`,
      ...(host === DEFAULT_SANDBOX_HOST
        ? []
        : ["", `Listening on ${host}: anyone who can reach this address can use the public sandbox credentials.`]),
      "",
      "Get a token:",
      `  curl -s -X POST ${url}/v1/auth/token -H 'X-API-Key: ${SANDBOX_API_KEY}' -H 'X-API-Secret: ${SANDBOX_API_SECRET}'`,
      "",
    ].join("\n") + "\n",
  );
}
