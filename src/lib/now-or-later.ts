// A value now, or later (NowOrLater<T>: T or a promise of it): what a limit decision is when it may have to be asked of Redis. The
// in-memory path stays synchronous (no promise, no microtask on the hot path); only a decision
// that crossed the network arrives as a promise.

export type NowOrLater<T> = T | Promise<T>;

/** Applies `next` to a value: at once when it is there, else once it arrives. */
export function settle<T, R>(value: NowOrLater<T>, next: (value: T) => R): NowOrLater<R> {
  return value instanceof Promise ? value.then(next) : next(value);
}
