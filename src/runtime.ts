// What a running server holds: the current config (swapped whole on reload), the token
// service for it, the open databases and the limiter state (which survives reloads).
import type { Client, RuntimeConfig } from "./config/model.ts";
import { TenantRegistry } from "./db/tenants.ts";
import { ApiError } from "./errors.ts";
import { writeClientRateLimitHeaders, type HeaderRecord } from "./limits/headers.ts";
import { wallClock, type Clock } from "./clock.ts";
import { SlidingWindowLimiter } from "./limits/sliding-window.ts";
import { TokenBucketLimiter } from "./limits/token-bucket.ts";
import { TokenService } from "./security/tokens.ts";

/** Failed authentication per source IP: 20 attempts, refilled at 20 a minute (CONTRACT §6). */
export const AUTH_FAILURE_CAPACITY = 20;


export class Runtime {
  config: RuntimeConfig;
  tokens: TokenService;
  readonly tenants: TenantRegistry;
  readonly windows: SlidingWindowLimiter;
  readonly authFailures: TokenBucketLimiter;
  private readonly bursts = new Map<string, { perSecond: number; bucket: TokenBucketLimiter }>();

  constructor(
    config: RuntimeConfig,
    readonly clock: Clock = wallClock,
  ) {
    this.config = config;
    this.tokens = new TokenService(config.jwtSecret, config.environment, clock);
    this.tenants = new TenantRegistry(clock);
    this.windows = new SlidingWindowLimiter({ clock });
    this.authFailures = new TokenBucketLimiter({
      capacity: AUTH_FAILURE_CAPACITY,
      refillPerMinute: AUTH_FAILURE_CAPACITY,
      clock,
    });
  }

  /** Swaps in a new config; issued tokens stay valid while the signing secret is unchanged. */
  reload(config: RuntimeConfig): void {
    if (config.jwtSecret !== this.config.jwtSecret || config.environment !== this.config.environment) {
      this.tokens = new TokenService(config.jwtSecret, config.environment, this.clock);
    }
    this.config = config;
  }

  /**
   * The guard's last step (CONTRACT §6): the client's burst cap, then its sliding window.
   * Writes the rate-limit headers either way; throws RATE_LIMIT_EXCEEDED on a refusal.
   */
  admit(client: Client, headers: HeaderRecord): void {
    const burst = this.burstFor(client)?.take(client.id);
    if (burst && !burst.allowed) {
      const window = this.windows.peek(client.id, client.rateLimitPerMinute);
      writeClientRateLimitHeaders(headers, { ...window, allowed: false, retryAfterSeconds: burst.retryAfterSeconds });
      throw new ApiError("RATE_LIMIT_EXCEEDED");
    }
    const decision = this.windows.hit(client.id, client.rateLimitPerMinute);
    writeClientRateLimitHeaders(headers, decision);
    if (!decision.allowed) throw new ApiError("RATE_LIMIT_EXCEEDED");
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
    this.tenants.closeAll();
  }
}
