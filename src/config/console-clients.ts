// Partners made in the console (docs/operators/console.md) joined to the config file's clients:
// the runtime serves one map of clients, and the guard finds either kind the same way.
import type { PartnerRow } from "../db/control/store.ts";
import { RangeMatcher } from "../security/ip.ts";
import { isScope, type Scope } from "../security/scopes.ts";
import type { Client, RuntimeConfig } from "./model.ts";
import type { InboundFormat } from "./schema.ts";

/** Every listing: console partners have no feed selection (the config file's clients may). */
const WHOLE_FEED = Object.freeze({ operationType: null, status: null, propertyType: null, maxListings: null });

/** The client a console partner row stands for, in the config's databases. */
export function consoleClient(row: PartnerRow, databases: ReadonlyMap<string, string>): Client {
  const previous =
    row.previousSecretHash !== null && row.previousValidUntil !== null
      ? Object.freeze({
          id: row.id,
          apiKey: row.apiKey,
          secretHash: row.previousSecretHash,
          validUntil: row.previousValidUntil,
        })
      : null;
  return Object.freeze({
    id: row.id,
    name: row.name,
    apiKey: row.apiKey,
    secretHash: row.secretHash,
    enabled: row.enabled,
    databasePath: databases.get(row.database) ?? null,
    ipWhitelist: row.allowedIps.length > 0 ? new RangeMatcher(row.allowedIps) : null,
    rateLimitPerMinute: row.rateLimitPerMinute,
    burstPerSecond: null,
    fullAddress: false,
    feed: WHOLE_FEED,
    scopes: new Set(row.scopes.filter(isScope) as Scope[]),
    inbound:
      row.inboundFormat !== null && row.inboundPasswordHash !== null
        ? Object.freeze({
            format: row.inboundFormat as InboundFormat,
            username: row.inboundUsername,
            passwordHash: row.inboundPasswordHash,
            previous:
              row.previousInboundPasswordHash !== null && row.previousValidUntil !== null
                ? { passwordHash: row.previousInboundPasswordHash, validUntil: row.previousValidUntil }
                : null,
          })
        : null,
    source: "console",
    previous,
  });
}

/** Ids of console partners that a config file's client also has (a clash fails the start). */
export function clashingIds(config: RuntimeConfig, rows: readonly PartnerRow[]): string[] {
  return rows.filter((row) => config.clients.has(row.id) || config.clientsByKey.has(row.apiKey)).map((r) => r.id);
}

/**
 * The config file's clients and the console's in one config. A console partner whose id or key
 * a file client holds is left out (the file wins; the start refused such a clash already).
 */
export function withConsoleClients(config: RuntimeConfig, rows: readonly PartnerRow[]): RuntimeConfig {
  if (rows.length === 0) return config;
  const clients = new Map(config.clients);
  const clientsByKey = new Map(config.clientsByKey);
  for (const row of rows) {
    if (clients.has(row.id) || clientsByKey.has(row.apiKey)) continue;
    const client = consoleClient(row, config.databases);
    clients.set(client.id, client);
    clientsByKey.set(client.apiKey, client);
  }
  return Object.freeze({ ...config, clients, clientsByKey });
}
