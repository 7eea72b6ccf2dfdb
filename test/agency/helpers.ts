// Shared by the agency tests: temp folders, a seeded or empty database, the in-process API over a
// database file, and direct reads of what the API would show.
import type { Database } from "bun:sqlite";
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createApp } from "../../src/app.ts";
import { PROPERTY_FIELDS } from "../../src/catalog/properties.ts";
import { projection } from "../../src/catalog/sql.ts";
import { SANDBOX_API_KEY, SANDBOX_API_SECRET } from "../../src/cli/sandbox.ts";
import { resolveConfig, validateConfig } from "../../src/config/load.ts";
import { closeDatabase, openDatabase } from "../../src/db/open.ts";
import { silentLogger } from "../../src/logging.ts";
import { Runtime } from "../../src/runtime.ts";
import { hashSecret, randomToken } from "../../src/security/secrets.ts";
import { DEFAULT_SEED_OPTIONS, writeSeedDatabase } from "../../src/seed/generator.ts";
import { handleInNewTurn } from "../helpers/app.ts";

export const FIXTURES = join(import.meta.dir, "../fixtures/vrsync");

/** A temp folder per test file, removed by cleanup(). */
export function tempDir(): { path: (name: string) => string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), "pa-agency-"));
  return { path: (name) => join(dir, name), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

let seedMaster: string | null = null;

/** A copy of a small seeded database (built once per process). */
export function seededCopy(path: string): string {
  if (seedMaster === null) {
    seedMaster = join(mkdtempSync(join(tmpdir(), "pa-agency-seed-")), "seed.sqlite");
    writeSeedDatabase(seedMaster, { ...DEFAULT_SEED_OPTIONS, properties: 300, leads: 200 });
  }
  copyFileSync(seedMaster, path);
  return path;
}

/** Runs `body` on an open connection to the file, closing it after. */
export function withDb<T>(path: string, body: (db: Database) => T): T {
  const db = openDatabase(path);
  try {
    return body(db);
  } finally {
    closeDatabase(db);
  }
}

export type ApiProperty = Record<string, unknown> & {
  id: string;
  code: string | null;
  updatedAt: string;
  createdAt: string;
};

/** Every published property exactly as the API shapes it, by code then id. */
export function publishedProperties(path: string): ApiProperty[] {
  return withDb(path, (db) =>
    (
      db
        .query(
          `SELECT ${projection(PROPERTY_FIELDS, "stored")} AS json FROM properties p WHERE p.is_published = 1 ORDER BY p.code, p.id`,
        )
        .all() as { json: string }[]
    ).map((row) => JSON.parse(row.json) as ApiProperty),
  );
}

export function propertyByCode(path: string, code: string): ApiProperty | undefined {
  return publishedProperties(path).find((p) => p.code === code);
}

export interface Change {
  sequence: number;
  id: string;
  change: "upsert" | "remove";
}

export function propertyChanges(path: string, after = 0): Change[] {
  return withDb(
    path,
    (db) =>
      db
        .query(
          "SELECT sequence, record_id AS id, change FROM changes WHERE entity = 'properties' AND sequence > ? ORDER BY sequence",
        )
        .all(after) as Change[],
  );
}

export function lastSequence(path: string): number {
  return withDb(
    path,
    (db) => (db.query("SELECT coalesce(max(sequence), 0) AS n FROM changes").get() as { n: number }).n,
  );
}

/**
 * The in-process API over a database file, with a token of a sandbox client; `fullAddress`
 * gives that client the config key of the same name (it reads stored addresses whole).
 */
export async function apiOver(path: string, { fullAddress = false }: { fullAddress?: boolean } = {}) {
  const client = {
    id: "sandbox",
    apiKey: SANDBOX_API_KEY,
    secretHash: hashSecret(SANDBOX_API_SECRET),
    database: "sandbox",
    rateLimitPerMinute: 1_000_000,
    fullAddress,
  };
  const config = validateConfig({ environment: "sandbox", databases: { sandbox: path }, clients: [client] }, "test");
  const runtime = new Runtime(resolveConfig(config, { baseDir: process.cwd(), jwtSecret: randomToken(48) }));
  const app = createApp({ runtime, logger: silentLogger(), peerAddress: () => "127.0.0.1" });
  const tokenResponse = await app.handle(
    new Request("http://localhost/v1/auth/token", {
      method: "POST",
      headers: { "X-API-Key": SANDBOX_API_KEY, "X-API-Secret": SANDBOX_API_SECRET },
    }),
  );
  const { data } = (await tokenResponse.json()) as { data: { token: string } };
  const get = async (pathAndQuery: string) => {
    const response = await handleInNewTurn(
      app,
      new Request(`http://localhost${pathAndQuery}`, { headers: { Authorization: `Bearer ${data.token}` } }),
    );
    return { status: response.status, body: (await response.json()) as any };
  };
  return { get, close: () => runtime.close() };
}
