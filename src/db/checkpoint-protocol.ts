// What the server and its checkpointer thread (checkpointer.ts, checkpoint-worker.ts) say to each other.

/** How often the checkpointer copies each database's WAL back (milliseconds). */
export const CHECKPOINT_EVERY_MS = 100;
/** SQLite's default automatic checkpoint threshold (pages of WAL). */
export const SQLITE_AUTOCHECKPOINT_FRAMES = 1000;
/**
 * The WAL's length (in pages) past which the checkpointer makes it start over: SQLite's own
 * threshold, so the file stays the size it always had (about 4 MB).
 */
export const RESTART_AFTER_FRAMES = SQLITE_AUTOCHECKPOINT_FRAMES;

/** From the server: start checkpointing a file, or stop. */
export interface CheckpointerMessage {
  watch?: string;
  forget?: string;
}

/** From the thread: a file it could not open or checkpoint (told once, until it works again). */
export interface CheckpointerReport {
  path: string;
  error: string;
}
