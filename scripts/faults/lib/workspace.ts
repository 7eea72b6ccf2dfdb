// A production setup for a fault run: a seeded database written by the binary itself, a config
// with several clients (trusting 127.0.0.1 as a proxy, so X-Forwarded-For names many sources),
// and the paths a run needs. Everything lives in one temporary folder.
import { mkdirSync, mkdtempSync, renameSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hashSecret, randomToken } from "../../../src/security/secrets.ts";
import { ensureBinary } from "../../../test/helpers/binary.ts";

export interface FaultClient {
  id: string;
  apiKey: string;
  secret: string;
}

export interface Workspace {
  binary: string;
  dir: string;
  dbPath: string;
  configPath: string;
  clients: FaultClient[];
  /** The config as written; `writeConfig` rewrites it with changes. */
  config: Record<string, unknown>;
  writeConfig(config: Record<string, unknown>): void;
}

export interface WorkspaceOptions {
  properties?: number;
  leads?: number;
  clients?: number;
  rateLimitPerMinute?: number;
  /** Where the database lives (a tmpfs for the disk-full run); default: beside the config. */
  dbDir?: string;
}

export function makeWorkspace(name: string, options: WorkspaceOptions = {}): Workspace {
  const binary = ensureBinary();
  const dir = mkdtempSync(join(tmpdir(), `pa-${name}-`));
  const dbDir = options.dbDir ?? dir;
  mkdirSync(dbDir, { recursive: true });
  const dbPath = join(dbDir, "agency.sqlite");
  const seeded = Bun.spawnSync(
    [
      binary,
      "seed",
      "--out",
      dbPath,
      "--properties",
      String(options.properties ?? 300),
      "--leads",
      String(options.leads ?? 300),
    ],
    { cwd: dir, stdout: "pipe", stderr: "pipe" },
  );
  if (seeded.exitCode !== 0) throw new Error(`seed failed: ${seeded.stderr.toString()}`);
  const clients = Array.from({ length: options.clients ?? 4 }, (_, i) => ({
    id: `client-${i}`,
    apiKey: `pk_live_fault_${i}_${randomToken(8)}`,
    secret: `sk_live_${randomToken(24)}`,
  }));
  const config: Record<string, unknown> = {
    environment: "production",
    host: "127.0.0.1",
    trustedProxies: ["127.0.0.1"],
    jwtSecret: randomToken(48),
    databases: { agency: dbPath },
    logLevel: "warn",
    clients: clients.map((c) => ({
      id: c.id,
      apiKey: c.apiKey,
      secretHash: hashSecret(c.secret),
      database: "agency",
      rateLimitPerMinute: options.rateLimitPerMinute ?? 1_000_000,
    })),
  };
  const configPath = join(dir, "config.json");
  const workspace: Workspace = {
    binary,
    dir,
    dbPath,
    configPath,
    clients,
    config,
    writeConfig(next) {
      // Written whole then renamed: a reload never reads half a file.
      writeFileSync(`${configPath}.tmp`, JSON.stringify(next, null, 2));
      renameSync(`${configPath}.tmp`, configPath);
    },
  };
  workspace.writeConfig(config);
  return workspace;
}
