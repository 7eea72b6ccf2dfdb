// Feed bodies take turns with the rest of the server. A 100,000-listing feed is seconds of CPU on
// the server's one event loop; done in one go it would hold every lead creation and list read
// for as long. Work here is cut into slices of half a millisecond, one slice per turn of the
// event loop across every feed being served, so a request arriving meanwhile waits for one
// slice at most, never for a feed. While requests are being answered, slices are a quarter of a
// millisecond and come at most one a millisecond: a request spans several turns (its body, a
// group commit's gathering, the commit) and would otherwise wait for a slice in each.
//
// Resolving a promise does not let the event loop turn (its continuation runs as a microtask of
// the same turn), so a turn is granted from setImmediate: I/O is polled between two slices.
import { answeringRequests } from "../../plugins/context.ts";

/** How long one slice of feed work may run before it gives the event loop back. */
export const SLICE_MS = 0.5;
/** The same while requests are being answered, and the wait between two such slices. */
const BUSY_SLICE_MS = 0.25;
const BACK_OFF_MS = 1;

export class Turns {
  private readonly waiting: (() => void)[] = [];
  private pumping = false;
  private sliceStartedAt = 0;
  private sliceLength = SLICE_MS;

  /** `busy`: whether the server is answering requests now (they go first). */
  constructor(private readonly busy: () => boolean = () => false) {}

  /** Resolves in a later turn of the event loop, when it is this caller's turn to work for a slice. */
  next(): Promise<void> {
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      if (!this.pumping) {
        this.pumping = true;
        this.schedule();
      }
    });
  }

  private schedule(): void {
    if (this.busy()) setTimeout(this.grant, BACK_OFF_MS);
    else setImmediate(this.grant);
  }

  /** True once the current slice has run its time: the worker should ask for its next turn. */
  sliceOver(): boolean {
    return performance.now() - this.sliceStartedAt >= this.sliceLength;
  }

  private readonly grant = () => {
    const next = this.waiting.shift();
    if (next === undefined) {
      this.pumping = false;
      return;
    }
    this.sliceStartedAt = performance.now();
    this.sliceLength = this.busy() ? BUSY_SLICE_MS : SLICE_MS;
    next();
    if (this.waiting.length > 0) this.schedule();
    else this.pumping = false;
  };
}

/** The one scheduler of the process: slices of every feed served take turns with each other too, and give way to requests. */
export const feedTurns = new Turns(answeringRequests);
