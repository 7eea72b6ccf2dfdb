// What a running server holds: the current config (swapped whole on reload), the token
// service for it, the open databases and the limiter state (which survives reloads). With
// `redis` in the config the limits live in Redis, shared by every process (docs/reference/behaviour-extensions.md §15); while
// Redis cannot answer, each process uses its own in-memory limiters.

import { type Clock, wallClock } from "./clock.ts";
import { clashingIds, withConsoleClients } from "./config/console-clients.ts";
import type { Client, RedisSettings, RuntimeConfig } from "./config/model.ts";
import { Checkpointer } from "./db/checkpointer.ts";
import type { ControlStore } from "./db/control/store.ts";
import { TenantRegistry } from "./db/tenants.ts";
import { ApiError } from "./errors.ts";
import { type NowOrLater, settle } from "./lib/now-or-later.ts";
import type { LimitDecision } from "./limits/decision.ts";
import { type HeaderRecord, writeClientRateLimitHeaders } from "./limits/headers.ts";
import { SlidingWindowLimiter } from "./limits/sliding-window.ts";
import { type BucketShape, TokenBucketLimiter } from "./limits/token-bucket.ts";
import { type Logger, silentLogger } from "./logging.ts";
import { ReaderPool } from "./reads/pool.ts";
import { RedisConnection } from "./redis/connection.ts";
import { type Admission, SharedLimits } from "./redis/limits.ts";
import { InFlightLocks } from "./redis/locks.ts";
import { RedisMetrics } from "./redis/metrics.ts";
import { TokenService } from "./security/tokens.ts";
import { UsageRecorder } from "./usage/recorder.ts";

/** Failed authentication per source IP: 20 attempts, refilled at 20 a minute (docs/reference/behaviour.md §6). */
export const AUTH_FAILURE_CAPACITY = 20;

/** What is shared through Redis, when the config names one. */
interface Shared {
  settings: RedisSettings;
  connection: RedisConnection;
  limits: SharedLimits;
  locks: InFlightLocks;
}

export interface RuntimeOptions {
  logger?: Logger;
  /** Told when the shared limits fall back to memory (true) and when they are back (false). */
  onRedisFallback?: (fallingBack: boolean) => void;
  /** How often an unavailable Redis is asked again (default 1 s; tests shorten it). */
  redisProbeEveryMs?: number;
  /** Replaces the config's `reads.deadlineMs` (tests: 0 cuts every dear read at once). */
  readDeadlineMs?: number;
}

/** How often each process asks the control database whether another process changed it. */
export const CONTROL_POLL_MS = 200;

/** A console partner's id (or key) is also a config file client's: the file and the console must not share one. */
export class ClientClashError extends Error {
  constructor(readonly ids: string[]) {
    super(
      `client id${ids.length > 1 ? "s" : ""} ${ids.map((id) => `"${id}"`).join(", ")} ` +
        "exist both in the config file and in the console; rename or remove one of them",
    );
  }
}

export class Runtime {
  /** The config served: the file's, with the partners made in the console joined in. */
  config: RuntimeConfig;
  /** The config file's own config, before the console's partners. */
  private fileConfig: RuntimeConfig;
  /** The control database (docs/operators/console.md), when `serve` opened one. */
  control: ControlStore | null = null;
  /** The CRM feeds' scheduler of `serve`, for an admin's "run now" (null elsewhere). */
  feedRuns: { runNow(feedId: string, liftGuard?: boolean): Promise<"started" | "running" | "unknown"> } | null = null;
  /** Records partners' use and the request log (docs/operators/console.md#what-the-agency-sees); null: off. */
  usage: UsageRecorder | null = null;
  private controlTimer: ReturnType<typeof setInterval> | null = null;
  tokens: TokenService;
  readonly tenants: TenantRegistry;
  readonly windows: SlidingWindowLimiter;
  readonly authFailures: TokenBucketLimiter;
  /** The reader threads: dear reads run there, never on the event loop (src/reads/). */
  readonly reads: ReaderPool;
  private readonly bursts = new Map<string, { perSecond: number; bucket: TokenBucketLimiter }>();
  private shared: Shared | null = null;
  private readonly logger: Logger;
  /** Whether the limits are in Redis now, and how often they fell back (in /metrics while `redis` is configured). */
  readonly redisMetrics = new RedisMetrics(() => this.redisAvailable);

  constructor(
    config: RuntimeConfig,
    readonly clock: Clock = wallClock,
    private readonly options: RuntimeOptions = {},
  ) {
    this.config = config;
    this.fileConfig = config;
    this.tokens = new TokenService(config.jwtSecret, config.environment, clock);
    this.logger = options.logger ?? silentLogger();
    this.tenants = new TenantRegistry(clock, new Checkpointer((what) => this.logger.error(what)));
    this.windows = new SlidingWindowLimiter({ clock });
    this.authFailures = new TokenBucketLimiter({
      capacity: AUTH_FAILURE_CAPACITY,
      refillPerMinute: AUTH_FAILURE_CAPACITY,
      clock,
    });
    this.reads = new ReaderPool({
      threads: config.reads.threads,
      deadlineMs: () => this.options.readDeadlineMs ?? this.config.reads.deadlineMs,
      clock,
      onError: (what) => this.logger.error(what),
      tenants: () => this.tenants.all(),
    });
    this.connectShared(config.redis);
  }

  /** Writes what the figures' recorder holds (a stopping server waits for it; at most 2 s). */
  async closeUsage(): Promise<void> {
    const usage = this.usage;
    this.usage = null;
    await usage?.close();
  }

  /** Swaps in a new config; issued tokens stay valid while the signing secret is unchanged. */
  reload(config: RuntimeConfig): void {
    // Refused before anything changes: a file that would share an id with the console keeps the old config whole.
    const partners = this.control?.partners() ?? [];
    const clashes = clashingIds(config, partners);
    if (clashes.length > 0) throw new ClientClashError(clashes);
    if (config.jwtSecret !== this.config.jwtSecret || config.environment !== this.config.environment) {
      this.tokens = new TokenService(config.jwtSecret, config.environment, this.clock);
    }
    const before = this.config.redis;
    if (before?.url !== config.redis?.url || before?.keyPrefix !== config.redis?.keyPrefix)
      this.connectShared(config.redis);
    this.fileConfig = config;
    this.config = withConsoleClients(config, partners);
  }

  /**
   * Serves the control database's partners beside the file's, and follows its changes: this
   * process's own at once (refreshConsoleClients), another's within CONTROL_POLL_MS. Throws a
   * ClientClashError when an id is in both.
   */
  attachControl(control: ControlStore, options: { pollMs?: number; usageFlushMs?: number } = {}): void {
    const clashes = clashingIds(this.fileConfig, control.partners());
    if (clashes.length > 0) throw new ClientClashError(clashes);
    this.control = control;
    this.refreshConsoleClients();
    this.usage = new UsageRecorder(control.path, {
      requests: this.config.usage.record,
      logRows: () => this.config.usage.requestLogRows,
      now: () => this.clock.now(),
      onError: (message) => this.logger.error({ err: message }, message),
      ...(options.usageFlushMs === undefined ? {} : { flushEveryMs: options.usageFlushMs }),
    });
    this.usage.start();
    this.controlTimer = setInterval(() => {
      try {
        if (control.changed()) this.refreshConsoleClients();
      } catch (error) {
        this.logger.error({ err: (error as Error).message }, "reading the control database failed");
      }
    }, options.pollMs ?? CONTROL_POLL_MS);
    this.controlTimer.unref();
  }

  /** Joins the console's partners, as they are now, to the file's clients. */
  refreshConsoleClients(): void {
    if (this.control === null) return;
    this.config = withConsoleClients(this.fileConfig, this.control.partners());
  }

  private connectShared(settings: RedisSettings | null): void {
    this.shared?.connection.close();
    this.shared = null;
    if (settings === null) return;
    const connection = new RedisConnection({
      url: settings.url,
      logger: this.logger,
      onFallback: (fallingBack) => {
        if (fallingBack) this.redisMetrics.fellBack();
        this.options.onRedisFallback?.(fallingBack);
      },
      ...(this.options.redisProbeEveryMs ? { probeEveryMs: this.options.redisProbeEveryMs } : {}),
    });
    this.shared = {
      settings,
      connection,
      limits: new SharedLimits(connection, settings.keyPrefix, this.authFailures.shape),
      locks: new InFlightLocks(connection, settings.keyPrefix, this.clock),
    };
  }

  /** The shared limits when Redis is configured and answering; else null (use memory). */
  private sharedLimits(): SharedLimits | null {
    const shared = this.shared;
    return shared !== null && shared.connection.available ? shared.limits : null;
  }

  /** Idempotency-Key locks across processes; null without Redis. */
  get idempotencyLocks(): InFlightLocks | null {
    return this.shared?.locks ?? null;
  }

  /** Whether Redis is configured and answering (false also without Redis). */
  get redisAvailable(): boolean {
    return this.sharedLimits() !== null;
  }

  /**
   * Asks Redis when it is configured and answering, and memory otherwise, or when Redis
   * fails on the way (the request never fails for it).
   */
  private limit<T>(shared: (limits: SharedLimits) => Promise<T>, local: () => T): NowOrLater<T> {
    const limits = this.sharedLimits();
    return limits === null ? local() : shared(limits).catch(() => local());
  }

  /** The client's window as it stands, counting nothing (refusals before the limit step). */
  clientWindow(client: Client): NowOrLater<LimitDecision> {
    return this.limit(
      (limits) => limits.windowPeek(client.id, client.rateLimitPerMinute, this.clock.now()),
      () => this.windows.peek(client.id, client.rateLimitPerMinute),
    );
  }

  /** A failed authentication from `ip`: takes one of its attempts (a refusal takes nothing). */
  authFailure(ip: string): NowOrLater<LimitDecision> {
    return this.limit(
      (limits) => limits.authTake(ip, this.clock.now()),
      () => this.authFailures.take(ip),
    );
  }

  /** The failed-authentication bucket of `ip` as it stands; not allowed when empty. */
  authStanding(ip: string): NowOrLater<LimitDecision> {
    return this.limit(
      (limits) => limits.authPeek(ip, this.clock.now()),
      () => this.authFailures.peek(ip),
    );
  }

  /**
   * The guard's last step (docs/reference/behaviour.md §6): the client's burst cap, then its sliding window.
   * Writes the rate-limit headers either way; throws RATE_LIMIT_EXCEEDED on a refusal.
   */
  admit(client: Client, headers: HeaderRecord): NowOrLater<void> {
    return settle(
      this.limit(
        (limits) => limits.admit(client.id, client.rateLimitPerMinute, this.burstShape(client), this.clock.now()),
        () => this.admitLocally(client),
      ),
      (admission) => applyAdmission(admission, headers),
    );
  }

  private admitLocally(client: Client): Admission {
    const burst = this.burstFor(client)?.take(client.id) ?? null;
    if (burst !== null && !burst.allowed)
      return { burst, window: this.windows.peek(client.id, client.rateLimitPerMinute) };
    return { burst, window: this.windows.hit(client.id, client.rateLimitPerMinute) };
  }

  private burstShape(client: Client): BucketShape | null {
    if (client.burstPerSecond === null) return null;
    return this.burstFor(client)!.shape;
  }

  /** The client's burst bucket, when its config sets `burstPerSecond`. */
  burstFor(client: Client): TokenBucketLimiter | null {
    if (client.burstPerSecond === null) return null;
    const existing = this.bursts.get(client.id);
    if (existing && existing.perSecond === client.burstPerSecond) return existing.bucket;
    const bucket = new TokenBucketLimiter({
      capacity: client.burstPerSecond,
      refillPerSecond: client.burstPerSecond,
      clock: this.clock,
      maxKeys: 1,
    });
    this.bursts.set(client.id, { perSecond: client.burstPerSecond, bucket });
    return bucket;
  }

  close(): void {
    this.reads.close();
    if (this.controlTimer !== null) clearInterval(this.controlTimer);
    // What is left is handed to the writer thread; `serve` waits for it before (closeUsage).
    void this.usage?.close();
    this.usage = null;
    this.control?.close();
    this.control = null;
    this.shared?.connection.close();
    this.tenants.closeAll();
  }
}

/** The window's headers, with the burst cap's wait when the cap refused; throws on a refusal. */
function applyAdmission({ burst, window }: Admission, headers: HeaderRecord): void {
  if (burst !== null && !burst.allowed) {
    writeClientRateLimitHeaders(headers, { ...window, allowed: false, retryAfterSeconds: burst.retryAfterSeconds });
    throw new ApiError("RATE_LIMIT_EXCEEDED");
  }
  writeClientRateLimitHeaders(headers, window);
  if (!window.allowed) throw new ApiError("RATE_LIMIT_EXCEEDED");
}
