// The rate limits of CONTRACT §6 kept in Redis (CONTRACT §15): the per-client sliding windows,
// the burst buckets and the failed-authentication buckets, each decision one script run. The
// figures are those the in-memory limiters would give (src/limits/), so headers do not change.
import type { LimitDecision } from "../limits/decision.ts";
import { bucketDecision, type BucketShape } from "../limits/token-bucket.ts";
import { LuaScript, type RedisConnection } from "./connection.ts";
import { ADMIT_SCRIPT, BUCKET_SCRIPT, WINDOW_SCRIPT } from "./scripts.ts";

const WINDOW = new LuaScript(WINDOW_SCRIPT);
const BUCKET = new LuaScript(BUCKET_SCRIPT);
const ADMIT = new LuaScript(ADMIT_SCRIPT);

type WindowReply = [allowed: number, total: number, retryAfterSeconds: number, resetSeconds: number];

function windowDecision([allowed, total, retryAfterSeconds, resetSeconds]: WindowReply, limit: number): LimitDecision {
  return { allowed: allowed === 1, limit, remaining: allowed === 1 ? limit - total : 0, retryAfterSeconds, resetSeconds };
}

/** What the guard's last step decided: the burst cap (when the client has one), then the window. */
export interface Admission {
  burst: LimitDecision | null;
  window: LimitDecision;
}

export class SharedLimits {
  constructor(
    readonly redis: RedisConnection,
    /** Prepended to every key, so deployments sharing one Redis keep apart. */
    private readonly prefix: string,
    private readonly authShape: BucketShape,
  ) {}

  get available(): boolean {
    return this.redis.available;
  }

  async windowPeek(clientId: string, limit: number, now: number): Promise<LimitDecision> {
    const reply = (await this.redis.run(WINDOW, [this.windowKey(clientId)], [now, limit, 0])) as WindowReply;
    return windowDecision(reply, limit);
  }

  /** The burst bucket (null: none configured) and the window, in one round trip. */
  async admit(clientId: string, limit: number, burst: BucketShape | null, now: number): Promise<Admission> {
    if (burst === null) {
      const reply = (await this.redis.run(WINDOW, [this.windowKey(clientId)], [now, limit, 1])) as WindowReply;
      return { burst: null, window: windowDecision(reply, limit) };
    }
    const [allowed, level, ...window] = (await this.redis.run(
      ADMIT,
      [`${this.prefix}burst:${clientId}:${burst.capacity}`, this.windowKey(clientId)],
      [now, limit, burst.perToken, burst.perMs, burst.full],
    )) as [number, number, ...WindowReply];
    return { burst: bucketDecision(burst, allowed === 1, level), window: windowDecision(window, limit) };
  }

  /** Takes one of the address's failed-authentication attempts. */
  authTake(ip: string, now: number): Promise<LimitDecision> {
    return this.bucket(ip, now, 1);
  }

  /** The address's failed-authentication bucket as it stands. */
  authPeek(ip: string, now: number): Promise<LimitDecision> {
    return this.bucket(ip, now, 0);
  }

  private async bucket(ip: string, now: number, take: 0 | 1): Promise<LimitDecision> {
    const { perToken, perMs, full } = this.authShape;
    const [allowed, level] = (await this.redis.run(BUCKET, [`${this.prefix}auth:${ip}`], [now, perToken, perMs, full, take])) as [number, number];
    return bucketDecision(this.authShape, allowed === 1, level);
  }

  private windowKey(clientId: string): string {
    return `${this.prefix}window:${clientId}`;
  }
}
