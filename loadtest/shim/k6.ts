// Stand-in for the `k6` module: check, sleep, group, fail, randomSeed.
import { recordCheck, recordSleep } from "./recorder.ts";

/** sleep() waits at most this long: the shim proves behaviour, it does not pace load. */
const SLEEP_CAP_MS = 5;

export function check<T>(value: T, sets: Record<string, (value: T) => unknown>, _tags?: object): boolean {
  let all = true;
  for (const [name, predicate] of Object.entries(sets)) {
    // As in k6, a predicate that throws aborts the iteration; it is not a failed check.
    const ok = Boolean(predicate(value));
    recordCheck(name, ok);
    all &&= ok;
  }
  return all;
}

/** Records the seconds asked for (so Retry-After handling is visible) and barely waits. */
export function sleep(seconds: number): void {
  recordSleep(seconds);
  Bun.sleepSync(Math.min(Math.max(seconds, 0) * 1000, SLEEP_CAP_MS));
}

export function group<T>(_name: string, fn: () => T): T {
  return fn();
}

export function fail(message?: string): never {
  throw new Error(message ?? "fail() called");
}

export function randomSeed(_seed: number): void {
  // Math.random cannot be seeded under Bun; scripts must not depend on it being reproducible.
}

export default { check, sleep, group, fail, randomSeed };
