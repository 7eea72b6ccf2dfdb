// The connection to the Redis that processes share (CONTRACT §15), through Bun's built-in
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
  private probing: ReturnType<typeof setInterval> | null = null;

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

  private bounded<T>(command: Promise<T>): Promise<T> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new RedisTimeoutError(`no answer within ${this.timeoutMs} ms`)), this.timeoutMs);
    });
    // A command that answers after its timeout has nobody waiting: its rejection is handled here.
    command.catch(() => {});
    return Promise.race([command, timeout]).finally(() => clearTimeout(timer));
  }

  private markDown(reason: string): void {
    if (!this.up) return;
    this.up = false;
    this.options.logger.warn({ reason }, "redis unavailable: each process uses its own in-memory limits until it answers again");
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
    if (this.up) return;
    this.up = true;
    if (this.probing !== null) clearInterval(this.probing);
    this.probing = null;
    this.options.logger.info("redis available again: limits are shared across processes again");
    this.options.onFallback?.(false);
  }

  close(): void {
    if (this.probing !== null) clearInterval(this.probing);
    this.client.onclose = null;
    this.client.close();
  }
}
