// In-flight locks of Idempotency-Keys across processes (docs/reference/behaviour.md §9, §15): a request arriving
// while another process creates the lead for the same key waits for it, then replays it. The
// lock only saves the work: the creation itself checks the key again under the database's
// write lock, so even with Redis down no key ever makes two leads.
import type { Clock } from "../clock.ts";
import { LuaScript, type RedisConnection } from "./connection.ts";
import { RELEASE_SCRIPT } from "./scripts.ts";

const RELEASE = new LuaScript(RELEASE_SCRIPT);
/** A holder that died frees its key after this long; a creation takes milliseconds. */
const LOCK_TTL_MS = 10_000;
const POLL_MS = 20;

export class InFlightLocks {
  constructor(
    private readonly redis: RedisConnection,
    private readonly prefix: string,
    private readonly clock: Clock,
  ) {}

  /**
   * Holds `key` for this process, waiting while another holds it. Resolves to a release
   * function, or to null when Redis cannot be asked (the caller goes on without the lock).
   */
  async acquire(key: string): Promise<(() => void) | null> {
    if (!this.redis.available) return null;
    const lockKey = `${this.prefix}idempotency:${key}`;
    const token = crypto.randomUUID();
    const deadline = this.clock.now() + LOCK_TTL_MS;
    try {
      while ((await this.redis.send("SET", [lockKey, token, "NX", "PX", LOCK_TTL_MS])) === null) {
        if (this.clock.now() > deadline) return null;
        await Bun.sleep(POLL_MS);
      }
    } catch {
      return null;
    }
    return () => void this.redis.run(RELEASE, [lockKey], [token]).catch(() => {});
  }
}
