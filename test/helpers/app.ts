// Builds the real app over real SQLite files in a temp folder, with an injectable clock and
// a peer address taken from a test-only header (production reads it from the TCP socket).
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createApp } from "../../src/app.ts";
import { resolveConfig, validateConfig } from "../../src/config/load.ts";
import type { ConfigFile } from "../../src/config/schema.ts";
import { type Logger, silentLogger } from "../../src/logging.ts";
import { createServerWebhooks, type ServerWebhooks } from "../../src/modules/webhooks/service.ts";
import { Runtime } from "../../src/runtime.ts";
import { SCOPES } from "../../src/security/scopes.ts";
import { hashSecret } from "../../src/security/secrets.ts";
import { DEFAULT_SEED_OPTIONS, writeSeedDatabase } from "../../src/seed/generator.ts";

export const JWT_SECRET = "test-secret-that-is-long-enough-0123456789";
/** Test-only header naming the TCP peer; see peerAddress below. */
export const PEER_HEADER = "x-test-peer";
export const DEFAULT_PEER = "203.0.113.10";

/**
 * app.handle as a request from the network meets the server: in a turn of the event loop of
 * its own. The server asks SQLite whether anything was committed once per turn (see Tenant),
 * so a test that writes through another connection and then asks must let a turn pass, as
 * every real request does.
 */
export async function handleInNewTurn(
  app: { handle(request: Request): Promise<Response> },
  request: Request,
): Promise<Response> {
  await new Promise<void>((resolve) => setImmediate(resolve));
  return app.handle(request);
}

export class FakeClock {
  constructor(public ms = Date.parse("2026-06-01T12:00:00.000Z")) {}
  now(): number {
    return this.ms;
  }
  advance(ms: number): void {
    this.ms += ms;
  }
}

export interface TestClient {
  id: string;
  apiKey: string;
  secret: string;
}

/**
 * A client entry with its clear-text secret, for configs built in tests. It has every scope,
 * as the sandbox's client does, unless `extra` says otherwise (`scopes: undefined` gives the
 * config's defaults: a portal or a website).
 */
export function client(
  id: string,
  extra: Partial<ConfigFile["clients"][number]> = {},
): TestClient & { entry: ConfigFile["clients"][number] } {
  const apiKey = `pk_live_${id}_key`;
  const secret = `sk_live_${id}_secret`;
  const entry: ConfigFile["clients"][number] = {
    id,
    apiKey,
    secretHash: hashSecret(secret),
    database: "main",
    rateLimitPerMinute: 1000,
    scopes: [...SCOPES],
    ...extra,
  };
  if (entry.scopes === undefined) delete entry.scopes;
  return { id, apiKey, secret, entry };
}

const seeded = new Map<string, string>();

/** A seeded database file, built once per process per size and copied for each test app. */
export function seededDatabase(dir: string, properties = 300, leads = 600, seed = 42): string {
  const key = `${properties}/${leads}/${seed}`;
  let master = seeded.get(key);
  if (master === undefined) {
    master = join(mkdtempSync(join(tmpdir(), "pa-seed-")), "master.sqlite");
    writeSeedDatabase(master, { ...DEFAULT_SEED_OPTIONS, properties, leads, seed });
    seeded.set(key, master);
  }
  const copy = join(dir, `db-${seeded.size}-${Math.random().toString(36).slice(2)}.sqlite`);
  copyFileSync(master, copy);
  return copy;
}

export interface TestAppOptions {
  environment?: "production" | "sandbox";
  /** How long a dear read may take (the config's `reads.deadlineMs`); 0 answers each QUERY_TOO_BROAD. */
  readDeadlineMs?: number;
  clients?: ConfigFile["clients"];
  databases?: Record<string, string>;
  trustedProxies?: string[];
  properties?: number;
  leads?: number;
  redis?: ConfigFile["redis"];
  logger?: Logger;
  /** The webhook worker and metrics (default: a worker that is never started); tests of webhooks pass their own. */
  webhooks?: (runtime: Runtime) => ServerWebhooks;
  /** The config's `webhooks` key. */
  webhookTargets?: ConfigFile["webhooks"];
}

function configFileFor(dir: string, options: TestAppOptions): ConfigFile {
  return {
    environment: options.environment ?? "production",
    jwtSecret: JWT_SECRET,
    databases: options.databases ?? { main: seededDatabase(dir, options.properties, options.leads) },
    clients: options.clients ?? [client("portal").entry],
    ...(options.trustedProxies ? { trustedProxies: options.trustedProxies } : {}),
    ...(options.redis ? { redis: options.redis } : {}),
    ...(options.webhookTargets ? { webhooks: options.webhookTargets } : {}),
  };
}

function resolveTestConfig(dir: string, file: ConfigFile) {
  return resolveConfig(validateConfig(file, "test"), { baseDir: dir, jwtSecret: JWT_SECRET });
}

export interface TestApp {
  app: ReturnType<typeof createApp>;
  runtime: Runtime;
  clock: FakeClock;
  dir: string;
  webhooks: ServerWebhooks;
  /** Sends a request through app.handle; `peer` sets the TCP peer address. */
  request(path: string, init?: RequestInit & { peer?: string }): Promise<Response>;
  token(who: TestClient, peer?: string): Promise<string>;
  get(path: string, token: string, peer?: string): Promise<Response>;
  /** Reloads the config with some keys replaced, as SIGHUP does. */
  reload(changes: Partial<ConfigFile>): void;
  /**
   * Another server on the same config and files, as a second process would be: its own
   * runtime (open databases, in-memory limits), the same clock. Closed with this one.
   */
  sibling(): TestApp;
  close(): void;
}

export function createTestApp(options: TestAppOptions = {}): TestApp {
  const dir = mkdtempSync(join(tmpdir(), "pa-test-"));
  const webhooks =
    options.webhooks ?? ((runtime: Runtime) => createServerWebhooks(runtime, { logger: silentLogger() }));
  return testAppOn(
    dir,
    configFileFor(dir, options),
    new FakeClock(),
    options.logger ?? silentLogger(),
    webhooks,
    () => rmSync(dir, { recursive: true, force: true }),
    options.readDeadlineMs,
  );
}

function testAppOn(
  dir: string,
  file: ConfigFile,
  clock: FakeClock,
  logger: Logger,
  makeWebhooks: (runtime: Runtime) => ServerWebhooks,
  cleanUp: () => void,
  readDeadlineMs?: number,
): TestApp {
  const runtime = new Runtime(resolveTestConfig(dir, file), clock, {
    logger,
    redisProbeEveryMs: 50,
    ...(readDeadlineMs === undefined ? {} : { readDeadlineMs }),
  });
  const siblings: TestApp[] = [];
  const webhooks = makeWebhooks(runtime);
  const app = createApp({
    runtime,
    logger,
    peerAddress: (request) => request.headers.get(PEER_HEADER),
    webhooks,
  });
  const request = (path: string, init: RequestInit & { peer?: string } = {}) => {
    const headers = new Headers(init.headers);
    if (!headers.has(PEER_HEADER)) headers.set(PEER_HEADER, init.peer ?? DEFAULT_PEER);
    return handleInNewTurn(app, new Request(`http://localhost${path}`, { ...init, headers }));
  };
  const token = async (who: TestClient, peer?: string) => {
    const response = await request("/v1/auth/token", {
      method: "POST",
      headers: { "x-api-key": who.apiKey, "x-api-secret": who.secret },
      ...(peer ? { peer } : {}),
    });
    if (response.status !== 200) throw new Error(`token failed: ${response.status} ${await response.text()}`);
    return ((await response.json()) as { data: { token: string } }).data.token;
  };
  return {
    app,
    runtime,
    clock,
    dir,
    webhooks,
    request,
    token,
    get: (path, bearer, peer) =>
      request(path, { headers: { authorization: `Bearer ${bearer}` }, ...(peer ? { peer } : {}) }),
    reload: (changes) => runtime.reload(resolveTestConfig(dir, { ...file, ...changes })),
    sibling() {
      const other = testAppOn(dir, file, clock, logger, makeWebhooks, () => {});
      siblings.push(other);
      return other;
    },
    close() {
      for (const other of siblings) other.close();
      runtime.close();
      cleanUp();
    },
  };
}

/** The parsed JSON body and status of a response. */
export async function read<T = any>(response: Response): Promise<{ status: number; body: T; headers: Headers }> {
  return { status: response.status, body: (await response.json()) as T, headers: response.headers };
}
