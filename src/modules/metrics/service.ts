// GET /metrics without HTTP: who may scrape, and the scrape-time facts (database file sizes).
import { statSync } from "node:fs";
import type { RuntimeConfig } from "../../config/model.ts";
import type { DatabaseSize, ScrapeFacts } from "../../metrics/registry.ts";
import { hashSecret, verifySecret } from "../../security/secrets.ts";
import { VERSION } from "../../version.ts";

/**
 * The sandbox is open; production needs `metrics.token` in the config, presented as a bearer
 * token. Compared through digests in constant time, so timing reveals nothing of the token.
 */
export function mayScrape(config: RuntimeConfig, authorization: string | null): boolean {
  if (config.environment === "sandbox") return true;
  if (config.metricsToken === null || authorization === null) return false;
  if (authorization.slice(0, 7).toLowerCase() !== "bearer ") return false;
  return verifySecret(authorization.slice(7).trim(), hashSecret(config.metricsToken));
}

function sizeOf(path: string): number | null {
  return statSync(path, { throwIfNoEntry: false })?.size ?? null;
}

/** Each configured database's file and WAL sizes; a database whose file is missing is left out. */
export function databaseSizes(databases: ReadonlyMap<string, string>): DatabaseSize[] {
  const sizes: DatabaseSize[] = [];
  for (const [database, path] of databases) {
    const main = sizeOf(path);
    if (main === null) continue;
    sizes.push({ database, file: "main", bytes: main }, { database, file: "wal", bytes: sizeOf(`${path}-wal`) ?? 0 });
  }
  return sizes;
}

/** What a scrape reads at that moment: the version, the environment and the database sizes. */
export function scrapeFacts(config: RuntimeConfig): ScrapeFacts {
  return { version: VERSION, environment: config.environment, databases: databaseSizes(config.databases) };
}
