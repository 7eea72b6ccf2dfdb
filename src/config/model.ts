// The validated, frozen configuration the server runs with (swapped whole on reload).
import type { OperationType, PropertyStatus } from "../catalog/enums.ts";
import type { RangeMatcher } from "../security/ip.ts";
import type { Scope } from "../security/scopes.ts";
import type { Environment } from "../security/tokens.ts";
import type { InboundFormat } from "./schema.ts";

export interface Client {
  id: string;
  name: string;
  apiKey: string;
  secretHash: string;
  enabled: boolean;
  /** Resolved database file, or null when the client names none (or an unknown one). */
  databasePath: string | null;
  /** Null when any address is allowed. */
  ipWhitelist: RangeMatcher | null;
  rateLimitPerMinute: number;
  burstPerSecond: number | null;
  /** Reads stored addresses whole, whatever the listing's `displayAddress` hides from partners. */
  fullAddress: boolean;
  /** What this client's portal feed carries (docs/reference/behaviour-extensions.md §17). */
  feed: PortalFeedSelection;
  /** What this client may do (docs/partners/scopes.md); the defaults when the config names none. */
  scopes: ReadonlySet<Scope>;
  /** How a portal posts this client's leads to POST /v1/inbound/{clientId}; null: it does not. */
  inbound: InboundSettings | null;
  /** Where the client was made: the config file (absent means so) or the console (docs/operators/console.md). */
  source?: "config" | "console";
  /**
   * The secret a rotation replaced, still accepted (and its tokens still valid) until
   * `validUntil` (ms since the epoch); console partners only.
   */
  previous?: PreviousCredentials | null;
}

/** A replaced secret during a rotation's overlap: bound to the same id and key as the client. */
export interface PreviousCredentials {
  id: string;
  apiKey: string;
  secretHash: string;
  validUntil: number;
}

/** A portal's lead posts for one client (docs/operators/portal-leads.md). */
export interface InboundSettings {
  format: InboundFormat;
  /** The Basic auth user to require; null: any user with the right password. */
  username: string | null;
  passwordHash: string;
  /** The password a rotation replaced, accepted until `validUntil` (console partners only). */
  previous?: { passwordHash: string; validUntil: number } | null;
}

/** A portal feed's selection: null is "no condition"; listings must meet every condition given. */
export interface PortalFeedSelection {
  operationType: readonly OperationType[] | null;
  status: readonly PropertyStatus[] | null;
  propertyType: readonly string[] | null;
  /** At most this many listings, the most recently updated first. */
  maxListings: number | null;
}

/** Where the state shared by several processes lives (docs/reference/behaviour-extensions.md §15). */
export interface RedisSettings {
  url: string;
  /** Prepended to every key, so deployments sharing one Redis keep apart. */
  keyPrefix: string;
}

/** A CRM feed `serve` pulls on a schedule (docs/reference/behaviour-extensions.md §14), resolved. */
export interface FeedSpec {
  id: string;
  /** The `databases` name, and its resolved file. */
  database: string;
  databasePath: string;
  url: string;
  everyMs: number;
  mode: "full" | "partial";
  /** Secrets (an Authorization, a token): never logged, never printed. */
  headers: Readonly<Record<string, string>>;
  maxUnpublishRatio: number;
  /** The whole download's time limit. */
  timeoutMs: number;
  maxBytes: number;
}

export interface RuntimeConfig {
  environment: Environment;
  port: number | null;
  host: string;
  trustedProxies: RangeMatcher;
  jwtSecret: string;
  /** Database name → absolute file path. */
  databases: ReadonlyMap<string, string>;
  clients: ReadonlyMap<string, Client>;
  clientsByKey: ReadonlyMap<string, Client>;
  metricsToken: string | null;
  /** Which webhook targets partners may subscribe (both true in the sandbox, for local receivers). */
  webhooks: WebhookTargetPolicy;
  logLevel: string;
  /** Null: limits and idempotency locks stay in this process's memory. */
  redis: RedisSettings | null;
  /** CRM feeds pulled by `serve`, in config order. */
  feeds: readonly FeedSpec[];
  /** The control database's file (docs/operators/console.md); `serve` opens it. */
  controlPath: string;
  /** The reader threads (read at start) and how long a read may run. */
  reads: { threads: number; deadlineMs: number };
  /** Recording partners' use and the request log (docs/operators/console.md#what-the-agency-sees). */
  usage: { record: boolean; requestLogRows: number };
  /** When the config file was last written (ms since the epoch); null for a config made in code (the sandbox). */
  modifiedAt: number | null;
}

export interface WebhookTargetPolicy {
  allowHttp: boolean;
  allowPrivateTargets: boolean;
}
