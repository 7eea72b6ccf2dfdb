// Loads, validates and resolves a config file. Every problem is named with its JSON path.

import { readFileSync, statSync } from "node:fs";
import { dirname, isAbsolute, resolve } from "node:path";
import { Value } from "@sinclair/typebox/value";
import { DEFAULT_READ_DEADLINE_MS, DEFAULT_READER_THREADS } from "../reads/settings.ts";
import { parseRange, RangeMatcher } from "../security/ip.ts";
import { DEFAULT_SCOPES, SCOPES } from "../security/scopes.ts";
import { MIN_SECRET_BYTES } from "../security/tokens.ts";
import { DEFAULT_REQUEST_LOG_ROWS } from "../usage/settings.ts";
import { feedProblems, resolveFeeds } from "./crm-feeds.ts";
import { generatedJwtSecret, jwtSecretFileOf } from "./jwt-secret.ts";
import type { Client, RuntimeConfig } from "./model.ts";
import { type ExposedPath, exposedPaths } from "./permissions.ts";
import { type ConfigFile, ConfigSchema, DEFAULT_RATE_LIMIT_PER_MINUTE, DEFAULT_REDIS_KEY_PREFIX } from "./schema.ts";

export const SANDBOX_KEY_PREFIX = "pk_sandbox_";

export class ConfigError extends Error {
  constructor(
    readonly file: string,
    readonly problems: string[],
  ) {
    super(`${file}: invalid config\n${problems.map((p) => `  - ${p}`).join("\n")}`);
  }
}

/** Schema problems as "<json path>: <message>", one per path. */
function schemaProblems(value: unknown): string[] {
  const seen = new Set<string>();
  const problems: string[] = [];
  for (const error of Value.Errors(ConfigSchema, value)) {
    const path = error.path || "/";
    // Union members each report; the first message per path is the useful one.
    if (seen.has(path)) continue;
    seen.add(path);
    const unknownKey = error.message.startsWith("Unexpected property");
    if (/^\/clients\/\d+\/scopes\/\d+$/.test(path)) {
      problems.push(`${path}: unknown scope ${JSON.stringify(error.value)}; scopes are ${SCOPES.join(", ")}`);
      continue;
    }
    problems.push(unknownKey ? `${path}: unknown key` : `${path}: ${error.message.toLowerCase()}`);
  }
  return problems;
}

function semanticProblems(config: ConfigFile): string[] {
  const problems: string[] = [];
  const environment = config.environment ?? "production";
  const ids = new Map<string, number>();
  const keys = new Map<string, number>();
  (config.trustedProxies ?? []).forEach((range, i) => {
    if (!parseRange(range)) problems.push(`/trustedProxies/${i}: "${range}" is not an IP address or CIDR range`);
  });
  if (config.jwtSecret !== undefined && Buffer.byteLength(config.jwtSecret) < MIN_SECRET_BYTES) {
    problems.push(`/jwtSecret: must be at least ${MIN_SECRET_BYTES} bytes`);
  }
  config.clients.forEach((client, i) => {
    const first = ids.get(client.id);
    if (first !== undefined)
      problems.push(`/clients/${i}/id: duplicate client id "${client.id}" (also /clients/${first}/id)`);
    else ids.set(client.id, i);
    const firstKey = keys.get(client.apiKey);
    if (firstKey !== undefined)
      problems.push(`/clients/${i}/apiKey: duplicate apiKey (also /clients/${firstKey}/apiKey)`);
    else keys.set(client.apiKey, i);
    if (environment === "production" && client.apiKey.startsWith(SANDBOX_KEY_PREFIX)) {
      problems.push(`/clients/${i}/apiKey: sandbox keys (${SANDBOX_KEY_PREFIX}…) are not accepted in production`);
    }
    if (client.inbound !== undefined && !(client.scopes ?? DEFAULT_SCOPES).includes("leads:create")) {
      problems.push(
        `/clients/${i}/inbound: client "${client.id}" takes portal leads, so it needs the scope leads:create`,
      );
    }
    (client.ipWhitelist ?? []).forEach((range, j) => {
      if (!parseRange(range)) {
        problems.push(`/clients/${i}/ipWhitelist/${j}: "${range}" is not an IP address or CIDR range`);
      }
    });
  });
  problems.push(...feedProblems(config));
  return problems;
}

/** Validates a parsed config object; throws ConfigError listing every problem. */
export function validateConfig(value: unknown, file: string): ConfigFile {
  const problems = schemaProblems(value);
  if (problems.length > 0) throw new ConfigError(file, problems);
  const config = value as ConfigFile;
  const semantic = semanticProblems(config);
  if (semantic.length > 0) throw new ConfigError(file, semantic);
  return config;
}

function resolvePath(baseDir: string, path: string): string {
  return isAbsolute(path) ? path : resolve(baseDir, path);
}

/** The sandbox serves partners on their own machine, so its webhooks may target local receivers. */
function webhookPolicy(config: ConfigFile): RuntimeConfig["webhooks"] {
  const sandbox = config.environment === "sandbox";
  return Object.freeze({
    allowHttp: config.webhooks?.allowHttp ?? sandbox,
    allowPrivateTargets: config.webhooks?.allowPrivateTargets ?? sandbox,
  });
}

/** Turns a validated config into the frozen runtime form. */
export function resolveConfig(
  config: ConfigFile,
  options: { baseDir: string; jwtSecret: string; modifiedAt?: number },
): RuntimeConfig {
  const databases = new Map(
    Object.entries(config.databases ?? {}).map(([name, path]) => [name, resolvePath(options.baseDir, path)]),
  );
  const clients = new Map<string, Client>();
  for (const entry of config.clients) {
    const whitelist = entry.ipWhitelist ?? [];
    clients.set(
      entry.id,
      Object.freeze({
        id: entry.id,
        name: entry.name ?? entry.id,
        apiKey: entry.apiKey,
        secretHash: entry.secretHash,
        enabled: entry.enabled ?? true,
        databasePath: entry.database !== undefined ? (databases.get(entry.database) ?? null) : null,
        ipWhitelist: whitelist.length > 0 ? new RangeMatcher(whitelist) : null,
        rateLimitPerMinute: entry.rateLimitPerMinute ?? DEFAULT_RATE_LIMIT_PER_MINUTE,
        burstPerSecond: entry.burstPerSecond ?? null,
        fullAddress: entry.fullAddress ?? false,
        feed: Object.freeze({
          operationType: entry.feed?.operationType ?? null,
          status: entry.feed?.status ?? null,
          propertyType: entry.feed?.propertyType ?? null,
          maxListings: entry.feed?.maxListings ?? null,
        }),
        scopes: new Set(entry.scopes ?? DEFAULT_SCOPES),
        inbound: entry.inbound
          ? Object.freeze({
              format: entry.inbound.format,
              username: entry.inbound.username ?? null,
              passwordHash: entry.inbound.passwordHash,
            })
          : null,
      }),
    );
  }
  return Object.freeze({
    environment: config.environment ?? "production",
    port: config.port ?? null,
    host: config.host ?? "0.0.0.0",
    trustedProxies: new RangeMatcher(config.trustedProxies ?? []),
    jwtSecret: options.jwtSecret,
    databases,
    clients,
    clientsByKey: new Map([...clients.values()].map((c) => [c.apiKey, c])),
    metricsToken: config.metrics?.token ?? null,
    webhooks: webhookPolicy(config),
    logLevel: config.logLevel ?? "info",
    redis: config.redis
      ? { url: config.redis.url, keyPrefix: config.redis.keyPrefix ?? DEFAULT_REDIS_KEY_PREFIX }
      : null,
    feeds: resolveFeeds(config, databases),
    controlPath: resolvePath(options.baseDir, config.control ?? "control.sqlite"),
    reads: {
      threads: config.reads?.threads ?? DEFAULT_READER_THREADS,
      deadlineMs: config.reads?.deadlineMs ?? DEFAULT_READ_DEADLINE_MS,
    },
    usage: {
      record: config.usage?.record ?? true,
      requestLogRows: config.usage?.requestLogRows ?? DEFAULT_REQUEST_LOG_ROWS,
    },
    modifiedAt: options.modifiedAt ?? null,
  });
}

/** Reads and validates a config file; throws ConfigError naming every problem. */
export function readConfigFile(path: string): {
  config: ConfigFile;
  baseDir: string;
  file: string;
  modifiedAt: number;
} {
  const file = resolve(path);
  let text: string;
  let modifiedAt: number;
  try {
    modifiedAt = statSync(file).mtimeMs;
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new ConfigError(path, [
      `cannot read the file: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    ]);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(path, [`not valid JSON: ${(error as Error).message}`]);
  }
  return { config: validateConfig(value, path), baseDir: dirname(file), file, modifiedAt };
}

/** Reads, validates and resolves a config file; throws ConfigError naming every problem. */
export function loadConfigFile(path: string): RuntimeConfig {
  const { config, baseDir, file, modifiedAt } = readConfigFile(path);
  return resolveConfig(config, { baseDir, jwtSecret: config.jwtSecret ?? generatedJwtSecret(file), modifiedAt });
}

/**
 * The config file, the generated secret file (when the config has no jwtSecret) and the
 * database folders of a loaded config that other users can read or change (permissions.ts).
 */
export function exposedPathsOf(path: string, config: RuntimeConfig): ExposedPath[] {
  const { config: file, file: resolved } = readConfigFile(path);
  return exposedPaths({
    config: resolved,
    jwtSecretFile: file.jwtSecret === undefined ? jwtSecretFileOf(resolved) : null,
    databases: config.databases.values(),
  });
}
