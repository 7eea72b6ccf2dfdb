// The connection to the Redis that processes share (docs/reference/behaviour-extensions.md §15), through Bun's built-in
// client. Every command has a bounded wait: Redis down or slow must never fail or stall a
// request. On the first failure the connection is marked unavailable (logged once) and callers
// use their in-memory limits; a probe every second brings it back as soon as Redis answers.
import { RedisClient } from "bun";
import type { Logger } from "../logging.ts";

/** How long a command may take before the request goes on without Redis. */
export const COMMAND_TIMEOUT_MS = 250;
export const PROBE_EVERY_MS = 1_000;

export class RedisTimeoutError extends Error {}

/** A Lua script run by its SHA-1 (EVALSHA), loaded again when Redis has forgotten it. */
export class LuaScript {
  readonly sha: string;
  constructor(readonly source: string) {
    this.sha = new Bun.CryptoHasher("sha1").update(source).digest("hex");
  }
}

export interface RedisConnectionOptions {
  url: string;
  logger: Logger;
  /** Told each time Redis becomes unavailable (true) or available again (false). */
  onFallback?: (fallingBack: boolean) => void;
  timeoutMs?: number;
  /** How often an unavailable Redis is asked again (tests shorten it). */
  probeEveryMs?: number;
}

export class RedisConnection {
  private readonly client: RedisClient;
  private readonly timeoutMs: number;
  private up = true;
  private closed = false;
  private probing: ReturnType<typeof setInterval> | null = null;
  /** Commands waiting for an answer, oldest first, and the timer that times them out. */
  private readonly waiting = new Set<{ startedAt: number; reject: (error: Error) => void }>();
  private watchdog: ReturnType<typeof setInterval> | null = null;

  constructor(private readonly options: RedisConnectionOptions) {
    this.timeoutMs = options.timeoutMs ?? COMMAND_TIMEOUT_MS;
    // Commands sent while connecting wait in the client's queue (the first requests after a
    // start); while Redis is marked unavailable none are sent but the probe's.
    this.client = new RedisClient(options.url, {
      connectionTimeout: this.timeoutMs * 4,
      autoReconnect: true,
    });
    this.client.onclose = () => this.markDown("connection closed");
    void this.client.connect().catch((error: unknown) => this.markDown((error as Error).message));
  }

  /** False while requests use their in-memory limits instead. */
  get available(): boolean {
    return this.up;
  }

  /** Runs a script; rejects (and marks Redis unavailable) on an error or after the timeout. */
  async run(script: LuaScript, keys: string[], args: (string | number)[]): Promise<unknown> {
    const argv = [String(keys.length), ...keys, ...args.map(String)];
    try {
      return await this.bounded(this.client.send("EVALSHA", [script.sha, ...argv]));
    } catch (error) {
      if (!String((error as Error).message).includes("NOSCRIPT")) {
        this.markDown((error as Error).message);
        throw error;
      }
    }
    // A restarted Redis has an empty script cache: EVAL loads the script again.
    try {
      return await this.bounded(this.client.send("EVAL", [script.source, ...argv]));
    } catch (error) {
      this.markDown((error as Error).message);
      throw error;
    }
  }

  /** A plain command with the same bounded wait (SET NX for locks, and so on). */
  async send(command: string, args: (string | number)[]): Promise<unknown> {
    try {
      return await this.bounded(this.client.send(command, args.map(String)));
    } catch (error) {
      this.markDown((error as Error).message);
      throw error;
    }
  }

  /**
   * The command's answer, or a RedisTimeoutError once it has waited too long. One watchdog
   * timer serves every command in flight (a timer per command was a measurable share of a
   * request): commands start in order, so it checks the oldest first.
   */
  private bounded<T>(command: Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const waiting = { startedAt: performance.now(), reject };
      this.waiting.add(waiting);
      this.watch();
      command.then(
        (value) => {
          this.waiting.delete(waiting);
          resolve(value);
        },
        (error: unknown) => {
          this.waiting.delete(waiting);
          reject(error);
        },
      );
    });
  }

  private watch(): void {
    if (this.watchdog !== null) return;
    this.watchdog = setInterval(
      () => {
        const now = performance.now();
        for (const waiting of this.waiting) {
          if (now - waiting.startedAt < this.timeoutMs) break;
          this.waiting.delete(waiting);
          waiting.reject(new RedisTimeoutError(`no answer within ${this.timeoutMs} ms`));
        }
        if (this.waiting.size === 0 && this.watchdog !== null) {
          clearInterval(this.watchdog);
          this.watchdog = null;
        }
      },
      Math.max(10, this.timeoutMs / 5),
    );
    this.watchdog.unref();
  }

  private markDown(reason: string): void {
    if (!this.up || this.closed) return;
    this.up = false;
    this.options.logger.warn(
      { reason },
      "redis unavailable: each process uses its own in-memory limits until it answers again",
    );
    this.options.onFallback?.(true);
    this.probing = setInterval(() => void this.probe(), this.options.probeEveryMs ?? PROBE_EVERY_MS);
    this.probing.unref();
  }

  private async probe(): Promise<void> {
    try {
      if (!this.client.connected) await this.bounded(this.client.connect());
      await this.bounded(this.client.send("PING", []));
    } catch {
      return; // still down: the next probe tries again
    }
    // A probe under way when the connection was closed (a reload, a shutdown) ends silently.
    if (this.up || this.closed) return;
    this.up = true;
    if (this.probing !== null) clearInterval(this.probing);
    this.probing = null;
    this.options.logger.info("redis available again: limits are shared across processes again");
    this.options.onFallback?.(false);
  }

  close(): void {
    this.closed = true;
    if (this.probing !== null) clearInterval(this.probing);
    if (this.watchdog !== null) clearInterval(this.watchdog);
    this.client.onclose = null;
    this.client.close();
  }
}
