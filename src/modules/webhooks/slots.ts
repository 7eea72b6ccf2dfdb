// The delivery slots of one process: how many attempts may be under way at once, per
// subscription and in all, and who gets a slot that frees. A receiver that hangs holds only
// its own subscription's slots, and never the last ones of the process: a subscription with
// nothing under way may always start one attempt, so its deliveries (test events included)
// never wait behind another subscription's slow receiver.

/**
 * Attempts at once per subscription. Bun's fetch keeps at most 64 idle connections for reuse
 * in all; with 32 per subscription, 4 busy subscriptions ran 128 at once and half of every
 * delivery's connections were opened and closed again (thousands in TIME_WAIT; for https, a
 * TLS handshake each). 16 keeps 4 busy subscriptions within the pool at the same throughput
 * (bench, side by side: 20,000 deliveries in 3.09 vs 3.15 s, the server's CPU 83 vs 91 %).
 */
export const PER_SUBSCRIPTION = 16;
/**
 * Attempts at once in all: Bun's fetch runs at most 256 requests at once per process
 * (BUN_CONFIG_MAX_HTTP_REQUESTS) and queues the rest behind them, so more would only wait
 * there, behind whatever hangs.
 */
export const MAX_IN_FLIGHT = 256;
/**
 * Of MAX_IN_FLIGHT, the slots only a subscription with nothing under way may take. Without
 * them, 16 subscriptions whose receivers hang (two partners' worth) held all 256, and every
 * other partner's deliveries and test events waited for them: each freed slot went back to the
 * flood's own queue. With them, up to 64 subscriptions at once still start their first attempt
 * when the rest of the pool is held.
 */
export const RESERVED_FOR_IDLE = 64;

export interface SlotLimits {
  perSubscription: number;
  maxInFlight: number;
  reservedForIdle: number;
}

const LIMITS: SlotLimits = {
  perSubscription: PER_SUBSCRIPTION,
  maxInFlight: MAX_IN_FLIGHT,
  reservedForIdle: RESERVED_FOR_IDLE,
};

/**
 * Slots held per subscription, and the callers waiting for one of a subscription's slots (test
 * events), first come first served. A slot that frees goes to its subscription's waiters before
 * anything else may hold it; they wait behind nothing of other subscriptions and take nothing
 * from them.
 */
export class SlotPool {
  private readonly held = new Map<string, number>();
  private total = 0;
  private readonly waiters = new Map<string, (() => void)[]>();

  constructor(private readonly limits: SlotLimits = LIMITS) {}

  /** Slots held now, by one subscription or (without an id) in all. */
  inFlight(subscriptionId?: string): number {
    return subscriptionId === undefined ? this.total : (this.held.get(subscriptionId) ?? 0);
  }

  /**
   * The subscription's free slots: its own bound, within what the pool has left. Past the first,
   * a subscription's slots come from the shared part of the pool only (all but the reserve).
   */
  free(subscriptionId: string): number {
    const { perSubscription, maxInFlight, reservedForIdle } = this.limits;
    const own = this.inFlight(subscriptionId);
    const left = maxInFlight - this.total;
    const shared = left - reservedForIdle;
    const room = own === 0 ? Math.min(left, Math.max(1, shared)) : shared;
    return Math.max(0, Math.min(perSubscription - own, room));
  }

  /** Holds and returns the subscription's free slots; none while callers wait for them. */
  holdSpare(subscriptionId: string): number {
    const n = this.waiters.has(subscriptionId) ? 0 : this.free(subscriptionId);
    if (n > 0) this.hold(subscriptionId, n);
    return n;
  }

  /**
   * Resolves to true once one slot of the subscription is held for the caller (given back with
   * release(id, 1)), or to false when none freed within `waitMs`.
   */
  take(subscriptionId: string, waitMs: number): Promise<boolean> {
    if (!this.waiters.has(subscriptionId) && this.free(subscriptionId) > 0) {
      this.hold(subscriptionId, 1);
      return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      const waiters = this.waiters.get(subscriptionId) ?? [];
      const granted = () => {
        clearTimeout(timer);
        resolve(true);
      };
      const timer = setTimeout(() => {
        const at = waiters.indexOf(granted);
        if (at >= 0) waiters.splice(at, 1);
        if (waiters.length === 0 && this.waiters.get(subscriptionId) === waiters) this.waiters.delete(subscriptionId);
        resolve(false);
      }, waitMs);
      waiters.push(granted);
      this.waiters.set(subscriptionId, waiters);
    });
  }

  /** Gives back `n` slots of the subscription; waiting callers get them first. */
  release(subscriptionId: string, n: number): void {
    if (n === 0) return;
    const left = this.inFlight(subscriptionId) - n;
    if (left > 0) this.held.set(subscriptionId, left);
    else this.held.delete(subscriptionId);
    this.total -= n;
    if (this.waiters.size > 0) this.grantWaiting();
  }

  private hold(subscriptionId: string, n: number): void {
    this.held.set(subscriptionId, this.inFlight(subscriptionId) + n);
    this.total += n;
  }

  /** Hands freed slots to the callers waiting for them. */
  private grantWaiting(): void {
    for (const [subscriptionId, waiters] of this.waiters) {
      while (waiters.length > 0 && this.free(subscriptionId) > 0) {
        this.hold(subscriptionId, 1);
        waiters.shift()!();
      }
      if (waiters.length === 0) this.waiters.delete(subscriptionId);
    }
  }
}
