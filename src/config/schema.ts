// The config file's TypeBox schema: the single source of its validation, its types and the
// JSON Schema printed by `partner-api config-schema`.
import { type Static, Type as T } from "@sinclair/typebox";
import { OPERATION_TYPES, PROPERTY_STATUSES } from "../catalog/enums.ts";
import { DEFAULT_READ_DEADLINE_MS, DEFAULT_READER_THREADS } from "../reads/settings.ts";
import { SCOPES } from "../security/scopes.ts";
import { SECRET_HASH_PATTERN } from "../security/secrets.ts";
import { DURATION_PATTERN } from "./duration.ts";

export const DEFAULT_RATE_LIMIT_PER_MINUTE = 60;
export const DEFAULT_PORT = 8080;
export const DEFAULT_REDIS_KEY_PREFIX = "partner-api:";
export const DEFAULT_FEED_EVERY = "15m";
export const DEFAULT_FEED_TIMEOUT = "30m";
export const DEFAULT_FEED_MAX_BYTES = 1024 * 1024 * 1024;
export const DEFAULT_MAX_UNPUBLISH_RATIO = 0.5;

/** One value of an enumeration, listed in the JSON Schema, typed as the enumeration. */
const enumValue = <V extends string>(values: readonly V[]) => T.Union(values.map((value) => T.Literal(value)));

/** What a portal client's feed (GET /v1/feeds/vrsync.xml, docs/reference/behaviour-extensions.md §17) carries; absent: every published listing. */
export const PortalFeedSchema = T.Object(
  {
    operationType: T.Optional(
      T.Array(enumValue(OPERATION_TYPES), {
        minItems: 1,
        uniqueItems: true,
        description: "Only listings of these kinds of deal",
      }),
    ),
    status: T.Optional(
      T.Array(enumValue(PROPERTY_STATUSES), {
        minItems: 1,
        uniqueItems: true,
        description: "Only listings in these states",
      }),
    ),
    propertyType: T.Optional(
      T.Array(T.String({ minLength: 1, maxLength: 200 }), {
        minItems: 1,
        uniqueItems: true,
        description:
          "Only listings of these property types, exact text as stored (see /v1/values/properties/propertyType)",
      }),
    ),
    maxListings: T.Optional(
      T.Integer({
        minimum: 1,
        description: "At most this many listings, the most recently updated first (a portal plan's limit)",
      }),
    ),
  },
  {
    additionalProperties: false,
    description:
      "The selection this client's portal feed (GET /v1/feeds/vrsync.xml) carries; absent: every published listing",
  },
);

/** The portals whose lead posts POST /v1/inbound/{clientId} reads (docs/operators/portal-leads.md). */
export const INBOUND_FORMATS = ["grupozap", "chavesnamao"] as const;

/** Where a portal posts this client's leads by itself, and the Basic auth it sends. */
export const InboundSchema = T.Object(
  {
    format: enumValue(INBOUND_FORMATS),
    username: T.Optional(
      T.String({
        minLength: 1,
        maxLength: 254,
        description:
          "The Basic auth user the portal sends (Grupo ZAP: always `vivareal`; Chaves na Mão: the agency's e-mail there); absent: any user with the right password",
      }),
    ),
    passwordHash: T.String({
      pattern: SECRET_HASH_PATTERN,
      description:
        "Output of `partner-api hash-secret PASSWORD` for the Basic auth password (Grupo ZAP: the secret chosen in Canal Pro; Chaves na Mão: its lead integration token)",
    }),
  },
  {
    additionalProperties: false,
    description:
      "A portal (grupozap: ZAP Imóveis, VivaReal, OLX; chavesnamao: Chaves na Mão) posts this client's leads to POST /v1/inbound/<client id> " +
      "in its own JSON with HTTP Basic auth; the client needs the scope leads:create",
  },
);

export const ClientSchema = T.Object(
  {
    id: T.String({
      pattern: "^[A-Za-z0-9._-]{1,64}$",
      description: "Stable client identifier (letters, digits, . _ -)",
    }),
    name: T.Optional(T.String({ maxLength: 200, description: "Partner company name" })),
    apiKey: T.String({ minLength: 8, maxLength: 200, description: "Public key sent as X-API-Key" }),
    secretHash: T.String({ pattern: SECRET_HASH_PATTERN, description: "Output of `partner-api hash-secret SECRET`" }),
    enabled: T.Optional(T.Boolean({ default: true, description: "False refuses the client with API_DISABLED" })),
    database: T.Optional(T.String({ description: "Name of an entry of `databases`" })),
    ipWhitelist: T.Optional(
      T.Array(T.String(), { description: "Allowed source addresses or CIDR ranges; absent or empty allows any" }),
    ),
    rateLimitPerMinute: T.Optional(
      T.Integer({ minimum: 1, default: DEFAULT_RATE_LIMIT_PER_MINUTE, description: "Requests per sliding minute" }),
    ),
    burstPerSecond: T.Optional(T.Integer({ minimum: 1, description: "Optional cap on requests per second" })),
    fullAddress: T.Optional(
      T.Boolean({
        default: false,
        description:
          "True: this client reads the stored address and coordinates whole, whatever a listing's displayAddress hides " +
          "from partners (the agency's own site or CRM, or a portal that places listings on its map but shows only what " +
          "address.visibility allows)",
      }),
    ),
    feed: T.Optional(PortalFeedSchema),
    scopes: T.Optional(
      T.Array(enumValue(SCOPES), {
        uniqueItems: true,
        description:
          "What this client may do; absent: properties:read, feed:read, leads:create, leads:read:own and webhooks " +
          "(a portal or a website). The agency's CRM takes leads:read and leads:update",
      }),
    ),
    inbound: T.Optional(InboundSchema),
  },
  { additionalProperties: false },
);

/** A CRM's feed that `serve` pulls on a schedule (docs/reference/behaviour-extensions.md §14). */
export const FeedSchema = T.Object(
  {
    id: T.String({ pattern: "^[A-Za-z0-9._-]{1,64}$", description: "Unique feed identifier (letters, digits, . _ -)" }),
    database: T.String({ description: "Name of the entry of `databases` the feed is imported into" }),
    url: T.String({ minLength: 1, maxLength: 2048, description: "http(s) URL of the VRSync XML or NDJSON feed" }),
    every: T.Optional(
      T.String({
        pattern: DURATION_PATTERN,
        default: DEFAULT_FEED_EVERY,
        description: "Interval between runs: 30s, 15m, 1h…; at least 1m (30s in the sandbox)",
      }),
    ),
    mode: T.Optional(
      T.Union([T.Literal("full"), T.Literal("partial")], {
        default: "full",
        description: "full: unpublishes what the feed no longer lists; partial: a delta, unpublishes nothing",
      }),
    ),
    headers: T.Optional(
      T.Record(T.String({ pattern: "^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$" }), T.String({ maxLength: 8192 }), {
        description: "Request headers (e.g. Authorization): secrets, never logged nor printed",
      }),
    ),
    maxUnpublishRatio: T.Optional(
      T.Number({
        minimum: 0,
        maximum: 1,
        default: DEFAULT_MAX_UNPUBLISH_RATIO,
        description: "A full run that would unpublish more than this share of the published listings changes nothing",
      }),
    ),
    timeout: T.Optional(
      T.String({
        pattern: DURATION_PATTERN,
        default: DEFAULT_FEED_TIMEOUT,
        description: "The whole download's time limit (at least 1s)",
      }),
    ),
    maxBytes: T.Optional(
      T.Integer({
        minimum: 1,
        default: DEFAULT_FEED_MAX_BYTES,
        description: "The most bytes a download may bring, counted both as received and once inflated",
      }),
    ),
  },
  { additionalProperties: false },
);

export const ConfigSchema = T.Object(
  {
    $schema: T.Optional(T.String({ description: "Path or URL of this schema, for editors" })),
    environment: T.Optional(T.Union([T.Literal("production"), T.Literal("sandbox")], { default: "production" })),
    port: T.Optional(T.Integer({ minimum: 1, maximum: 65535, default: DEFAULT_PORT })),
    host: T.Optional(T.String({ default: "0.0.0.0", description: "Address to listen on" })),
    trustedProxies: T.Optional(
      T.Array(T.String(), { description: "Proxies whose X-Forwarded-For is honoured (addresses or CIDR ranges)" }),
    ),
    jwtSecret: T.Optional(
      T.String({
        minLength: 32,
        description: "HMAC key for tokens; absent: generated once and kept beside the config",
      }),
    ),
    databases: T.Optional(
      T.Record(T.String({ pattern: "^[A-Za-z0-9._-]{1,64}$" }), T.String({ minLength: 1 }), {
        description: "Database name → SQLite file (relative paths resolve against the config's folder)",
      }),
    ),
    clients: T.Array(ClientSchema, { description: "Partner clients" }),
    metrics: T.Optional(
      T.Object(
        { token: T.String({ minLength: 16, description: "Bearer token required by GET /metrics" }) },
        { additionalProperties: false },
      ),
    ),
    webhooks: T.Optional(
      T.Object(
        {
          allowHttp: T.Optional(
            T.Boolean({
              description: "Accept http:// webhook URLs, not only https:// (default: false; the sandbox: true)",
            }),
          ),
          allowPrivateTargets: T.Optional(
            T.Boolean({
              description:
                "Accept webhook URLs whose host is or resolves to a loopback, private, link-local, unique-local or metadata address (default: false; the sandbox: true)",
            }),
          ),
        },
        { additionalProperties: false, description: "What partners' webhook subscriptions may target" },
      ),
    ),
    redis: T.Optional(
      T.Object(
        {
          url: T.String({
            pattern: "^(redis|rediss|valkey|valkeys)://",
            description: "Redis 7 or Valkey shared by every process: redis://host:6379/0 (rediss:// for TLS)",
          }),
          keyPrefix: T.Optional(
            T.String({
              pattern: "^[A-Za-z0-9:._-]{1,64}$",
              default: DEFAULT_REDIS_KEY_PREFIX,
              description: "Prepended to every key, so deployments sharing one Redis keep apart",
            }),
          ),
        },
        {
          additionalProperties: false,
          description:
            "Shared rate limits and idempotency locks for several processes (serve --workers, several hosts)",
        },
      ),
    ),
    feeds: T.Optional(T.Array(FeedSchema, { description: "CRM feeds pulled on a schedule by serve" })),
    control: T.Optional(
      T.String({
        minLength: 1,
        description:
          "The control database (the console's admins, sessions, partners made in the console, the audit log); default control.sqlite beside this file",
      }),
    ),
    reads: T.Optional(
      T.Object(
        {
          threads: T.Optional(
            T.Integer({
              minimum: 1,
              maximum: 64,
              default: DEFAULT_READER_THREADS,
              description:
                "Reader threads of each process, which run searches, facets, values, lead lists and the change feed off the event loop (read at start; default 3: one more than a partner may hold at once)",
            }),
          ),
          deadlineMs: T.Optional(
            T.Integer({
              minimum: 1,
              maximum: 60_000,
              default: DEFAULT_READ_DEADLINE_MS,
              description:
                "A read still running this many milliseconds after it arrived is answered 422 QUERY_TOO_BROAD (default 5000)",
            }),
          ),
        },
        { additionalProperties: false, description: "The dear reads, run off the event loop and cut at a deadline" },
      ),
    ),
    usage: T.Optional(
      T.Object(
        {
          record: T.Optional(
            T.Boolean({
              default: true,
              description:
                "Record each partner's use by day, its last request and the request log in the control database (default true; false records none of them, the console's figures then stay still)",
            }),
          ),
          requestLogRows: T.Optional(
            T.Integer({
              minimum: 1000,
              maximum: 10_000_000,
              default: 200_000,
              description: "How many of the last requests the request log keeps for the whole server (default 200000)",
            }),
          ),
        },
        {
          additionalProperties: false,
          description:
            "What the agency sees in the console: partners' use and the request log (never a body or a query value)",
        },
      ),
    ),
    logLevel: T.Optional(
      T.Union(
        ["fatal", "error", "warn", "info", "debug"].map((l) => T.Literal(l)),
        { default: "info" },
      ),
    ),
  },
  { additionalProperties: false },
);

export type ConfigFile = Static<typeof ConfigSchema>;
export type InboundFormat = (typeof INBOUND_FORMATS)[number];
