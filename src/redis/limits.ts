// The rate limits of docs/reference/behaviour.md §6 kept in Redis (docs/reference/behaviour-extensions.md §15): the per-client sliding windows,
// the burst buckets and the failed-authentication buckets, each decision made atomically in a
// script run (the admissions of one turn of the event loop share one). The figures are those
// the in-memory limiters would give (src/limits/), so headers do not change.
import type { LimitDecision } from "../limits/decision.ts";
import { type BucketShape, bucketDecision } from "../limits/token-bucket.ts";
import { LuaScript, type RedisConnection } from "./connection.ts";
import { ADMIT_SCRIPT, BUCKET_SCRIPT, WINDOW_SCRIPT } from "./scripts.ts";

const WINDOW = new LuaScript(WINDOW_SCRIPT);
const BUCKET = new LuaScript(BUCKET_SCRIPT);
const ADMIT = new LuaScript(ADMIT_SCRIPT);

type WindowReply = [allowed: number, total: number, retryAfterSeconds: number, resetSeconds: number];

function windowDecision([allowed, total, retryAfterSeconds, resetSeconds]: WindowReply, limit: number): LimitDecision {
  return {
    allowed: allowed === 1,
    limit,
    remaining: allowed === 1 ? limit - total : 0,
    retryAfterSeconds,
    resetSeconds,
  };
}

/** What the guard's last step decided: the burst cap (when the client has one), then the window. */
export interface Admission {
  burst: LimitDecision | null;
  window: LimitDecision;
}

interface PendingAdmission {
  clientId: string;
  limit: number;
  burst: BucketShape | null;
  now: number;
  resolve: (admission: Admission) => void;
  reject: (error: unknown) => void;
}

export class SharedLimits {
  /** Admissions asked in this turn of the event loop, sent together at its end. */
  private admissions: PendingAdmission[] = [];

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

  /**
   * The burst bucket (null: none configured) and the window. The admissions asked in one turn
   * of the event loop go to Redis together, in one script run (one round trip, one script
   * call's overhead shared), the way group commit shares an fsync.
   */
  admit(clientId: string, limit: number, burst: BucketShape | null, now: number): Promise<Admission> {
    return new Promise<Admission>((resolve, reject) => {
      this.admissions.push({ clientId, limit, burst, now, resolve, reject });
      if (this.admissions.length === 1) setImmediate(() => void this.sendAdmissions());
    });
  }

  private async sendAdmissions(): Promise<void> {
    const batch = this.admissions;
    this.admissions = [];
    const keys: string[] = [];
    const args: (string | number)[] = [];
    for (const { clientId, limit, burst, now } of batch) {
      keys.push(`${this.prefix}burst:${clientId}:${burst?.capacity ?? 0}`, this.windowKey(clientId));
      args.push(now, limit, burst === null ? 0 : 1, burst?.perToken ?? 0, burst?.perMs ?? 0, burst?.full ?? 0);
    }
    let reply: number[];
    try {
      reply = (await this.redis.run(ADMIT, keys, args)) as number[];
    } catch (error) {
      for (const admission of batch) admission.reject(error);
      return;
    }
    batch.forEach(({ limit, burst, resolve }, i) => {
      const [allowed, level, ...window] = reply.slice(i * 6, i * 6 + 6) as [number, number, ...WindowReply];
      resolve({
        burst: burst === null ? null : bucketDecision(burst, allowed === 1, level),
        window: windowDecision(window, limit),
      });
    });
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
    const [allowed, level] = (await this.redis.run(
      BUCKET,
      [`${this.prefix}auth:${ip}`],
      [now, perToken, perMs, full, take],
    )) as [number, number];
    return bucketDecision(this.authShape, allowed === 1, level);
  }

  private windowKey(clientId: string): string {
    return `${this.prefix}window:${clientId}`;
  }
}
