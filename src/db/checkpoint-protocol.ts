// What the server and its checkpointer thread (checkpointer.ts, checkpoint-worker.ts) say to each other.

/**
 * How often the checkpointer copies each database's WAL back (milliseconds). Each time it copies
 * everything, the next commit starts the WAL over, and SQLite syncs the new WAL header there
 * (without that sync, a power cut after an out-of-order write could corrupt the file): an fsync
 * in the server's next batch of lead creations, on the event loop. Every 100 ms that was 158
 * fsyncs on the event loop in 20 s of partners' steady load on the 1M dataset, read p99 1.8–2.9 ms;
 * every second, 20 fsyncs and 1.4–1.8 ms. The WAL holds a second of commits instead of a tenth.
 */
export const CHECKPOINT_EVERY_MS = 1_000;
/** SQLite's default automatic checkpoint threshold (pages of WAL). */
export const SQLITE_AUTOCHECKPOINT_FRAMES = 1000;
/**
 * The WAL's length (in pages) past which the checkpointer makes it start over: SQLite's own
 * threshold, so the file stays a few MB (a second of commits past it at most).
 */
export const RESTART_AFTER_FRAMES = SQLITE_AUTOCHECKPOINT_FRAMES;

/** From the server: how often to run (its first message), start checkpointing a file, or stop. */
export interface CheckpointerMessage {
  watch?: string;
  forget?: string;
  everyMs?: number;
  /**
   * Copy the whole WAL of this file back and cut it to zero bytes (after an anonymization:
   * docs/operators/personal-data.md), trying for up to `withinMs`; answered with `cut`.
   */
  cut?: { path: string; id: number; withinMs: number };
}

/** From the thread: a file it could not open or checkpoint (told once, until it works again), or how a cut ended. */
export interface CheckpointerReport {
  path: string;
  error?: string;
  cut?: { id: number; done: boolean };
}
