// When a read must give up (docs/reference/behaviour-load.md §25): a search still running at its
// deadline is the caller's too-broad search, answered 422 QUERY_TOO_BROAD. A job's code checks
// its deadline where it loops (`currentDeadline().check()`), so it stops itself; the reader
// pool's backstop ends a thread that does not (src/reads/pool.ts).
import { ApiError } from "../errors.ts";

export function queryTooBroad(): ApiError {
  return new ApiError("QUERY_TOO_BROAD");
}

export class Deadline {
  /** `at`: the instant, on the clock `now` reads, past which the work is refused. */
  constructor(
    readonly at: number,
    private readonly now: () => number,
  ) {}

  /** A deadline `ms` from now on `now`'s clock (the reader threads: performance.now). */
  static in(ms: number, now: () => number = () => performance.now()): Deadline {
    return new Deadline(now() + ms, now);
  }

  passed(): boolean {
    return this.now() >= this.at;
  }

  remainingMs(): number {
    return Math.max(0, this.at - this.now());
  }

  /** Throws QUERY_TOO_BROAD once the deadline has passed: call it between chunks of work. */
  check(): void {
    if (this.passed()) throw queryTooBroad();
  }
}

/** The deadline of a read that has none (the main thread's cheap reads, tools, tests). */
export const NO_DEADLINE = new Deadline(Number.POSITIVE_INFINITY, () => 0);

let current: Deadline = NO_DEADLINE;

/**
 * The deadline of the read running now on this thread. Services keep their signatures (the same
 * functions run on the event loop and in a reader thread): an engine that loops asks here.
 */
export function currentDeadline(): Deadline {
  return current;
}

/** Runs `work` (synchronous) under `deadline`: currentDeadline() returns it meanwhile. */
export function within<T>(deadline: Deadline, work: () => T): T {
  const before = current;
  current = deadline;
  try {
    return work();
  } finally {
    current = before;
  }
}
