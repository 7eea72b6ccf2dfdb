// Feed bodies take turns with the rest of the server. A 100,000-listing feed is seconds of CPU on
// the server's one event loop; done in one go it would hold every lead creation and list read
// for as long. Work here is cut into slices of about a millisecond, one slice per turn of the
// event loop across every feed being served, so a request arriving meanwhile waits for one
// slice at most, never for a feed.
//
// Resolving a promise does not let the event loop turn (its continuation runs as a microtask of
// the same turn), so a turn is granted from setImmediate: I/O is polled between two slices.

/** How long one slice of feed work may run before it gives the event loop back. */
export const SLICE_MS = 0.25;

export class Turns {
  private readonly waiting: (() => void)[] = [];
  private pumping = false;
  private sliceStartedAt = 0;

  /** Resolves in a later turn of the event loop, when it is this caller's turn to work for a slice. */
  next(): Promise<void> {
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      if (!this.pumping) {
        this.pumping = true;
        setImmediate(this.grant);
      }
    });
  }

  /** True once the current slice has run its time: the worker should ask for its next turn. */
  sliceOver(): boolean {
    return performance.now() - this.sliceStartedAt >= SLICE_MS;
  }

  private readonly grant = () => {
    const next = this.waiting.shift();
    if (next === undefined) {
      this.pumping = false;
      return;
    }
    this.sliceStartedAt = performance.now();
    next();
    if (this.waiting.length > 0) setImmediate(this.grant);
    else this.pumping = false;
  };
}

/** The one scheduler of the process: slices of every feed served take turns with each other too. */
export const feedTurns = new Turns();
