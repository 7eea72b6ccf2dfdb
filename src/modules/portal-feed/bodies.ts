// How many portal-feed bodies stream at once in one process. Each body holds a read snapshot
// (a connection and its page cache), a gzip state and up to 256 KiB waiting for its reader:
// 100 portals fetching a 54 MB feed at once took the process from 147 to 605 MB, and the memory
// stayed with it after. Streaming them side by side is no faster than in turns either: their
// slices share the server's one event loop. So a few stream at once; the next ones wait their
// turn, first come first served, holding only their socket; past the queue's length, or after
// waiting too long, the answer is 503 with Retry-After, which portals' fetchers honour.

/** Bodies streaming at once. */
export const MAX_STREAMING = 4;
/** Requests waiting for a body's turn; one more is answered 503 at once. */
export const MAX_WAITING = 64;
/**
 * The longest a request waits for its turn before it is answered 503: within the server's idle
 * timeout (30 s, cli/server.ts), past which Bun closes a connection that got no answer at all.
 */
export const MAX_WAIT_MS = 20_000;
/** What a 503 asks a portal to wait before it fetches again (seconds). */
export const RETRY_AFTER_SECONDS = 60;

export interface BodyLimits {
  streaming: number;
  waiting: number;
  waitMs: number;
}

export const BODY_LIMITS: BodyLimits = { streaming: MAX_STREAMING, waiting: MAX_WAITING, waitMs: MAX_WAIT_MS };

/** Gives back a body's place; a second call does nothing. */
export type Release = () => void;

interface Waiter {
  grant: (release: Release) => void;
}

export class BodyTurns {
  private active = 0;
  private readonly queue: Waiter[] = [];

  constructor(private readonly limits: BodyLimits = BODY_LIMITS) {}

  /** Bodies streaming now, and requests waiting for their turn. */
  counts(): { streaming: number; waiting: number } {
    return { streaming: this.active, waiting: this.queue.length };
  }

  /**
   * Resolves to the place of one body once it may stream; to null when it may not (the queue
   * is full, or the wait ran out): the request is then answered 503. A request whose client
   * goes away while it waits (`signal`) leaves the queue and resolves to null.
   */
  take(signal?: AbortSignal): Promise<Release | null> {
    if (this.active < this.limits.streaming && this.queue.length === 0) return Promise.resolve(this.place());
    if (this.queue.length >= this.limits.waiting || signal?.aborted) return Promise.resolve(null);
    return new Promise((resolve) => {
      const leave = () => {
        const at = this.queue.indexOf(waiter);
        if (at >= 0) this.queue.splice(at, 1);
        clearTimeout(timer);
        signal?.removeEventListener("abort", leave);
        resolve(null);
      };
      const waiter: Waiter = {
        grant: (release) => {
          clearTimeout(timer);
          signal?.removeEventListener("abort", leave);
          resolve(release);
        },
      };
      const timer = setTimeout(leave, this.limits.waitMs);
      signal?.addEventListener("abort", leave);
      this.queue.push(waiter);
    });
  }

  private place(): Release {
    this.active++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.active--;
      // The place goes straight to the next in line, if any.
      const next = this.queue.shift();
      if (next !== undefined) next.grant(this.place());
    };
  }
}
