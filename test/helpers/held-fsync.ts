// A WAL sync (src/db/wal-sync.ts) that returns only when a test says so: each call waits in
// `calls` until the test calls it, with null for success or an error for a failed fsync.
import type { Fsync } from "../../src/db/wal-sync.ts";

export function heldFsync(): { fsync: Fsync; calls: ((error: Error | null) => void)[] } {
  const calls: ((error: Error | null) => void)[] = [];
  return { fsync: (_fd, done) => void calls.push(done), calls };
}

/** Lets `n` turns of the event loop go by: pending callbacks and the promise reactions after them run. */
export async function turns(n = 10): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
}
