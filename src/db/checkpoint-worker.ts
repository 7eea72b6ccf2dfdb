// The checkpointer's thread (see checkpointer.ts): a connection of its own to each database the
// server has open, and the WAL copied back into the database file from here, where the copy
// and its fsync hold up nobody's event loop. Told which files by messages from the server.
import { Database } from "bun:sqlite";
import { type CheckpointerMessage, type CheckpointerReport, RESTART_AFTER_FRAMES } from "./checkpoint-protocol.ts";

declare const self: Worker;

// This thread keeps the server's priority. Under SCHED_IDLE (tried: it held a feed run's reads
// back less) its RESTART, which holds new writers off while it runs, starved behind a busy event
// loop: 90 % reads and 10 % lead creations on one core, p99 10–23 ms → 32–42 ms side by side.

/** How long a RESTART waits for the server's writer and readers to step aside (milliseconds); it delays new commits meanwhile. */
const RESTART_WAIT_MS = 5;

/** The files the server has open, and this thread's connection to each (null until it opens). */
const databases = new Map<string, Database | null>();
/** Files whose last try failed, already reported: a failure is told once, not every tick. */
const failing = new Set<string>();

function report(path: string, error: unknown): void {
  if (failing.has(path)) return;
  failing.add(path);
  self.postMessage({ path, error: (error as Error).message } satisfies CheckpointerReport);
}

/** The thread's connection to `path`, opened on first use and after a failure. */
function connection(path: string): Database | null {
  const open = databases.get(path);
  if (open) return open;
  try {
    const db = new Database(path, { readwrite: true, create: false, strict: true });
    db.run(`PRAGMA busy_timeout = ${RESTART_WAIT_MS}`);
    databases.set(path, db);
    return db;
  } catch (error) {
    report(path, error);
    return null;
  }
}

function close(path: string): void {
  databases.get(path)?.close();
  databases.delete(path);
  failing.delete(path);
}

/**
 * PASSIVE copies what no reader still needs and never waits for anyone. It cannot make the WAL
 * start over from its beginning while the server keeps committing (the file would only grow),
 * so once the WAL holds RESTART_AFTER_FRAMES a RESTART follows: PASSIVE has just copied all but
 * the latest frames, so it holds the write lock only for those, and the next commit writes the
 * WAL from its start again. It waits at most RESTART_WAIT_MS for the server's writer and
 * readers (a reader still on old frames, a portal feed's snapshot for one, makes it give up
 * until the next tick).
 */
function checkpoint(path: string): void {
  const db = connection(path);
  if (db === null) return;
  try {
    const passive = db.query<{ busy: number; log: number }, []>("PRAGMA wal_checkpoint(PASSIVE)").get();
    if (passive !== null && passive.busy === 0 && passive.log >= RESTART_AFTER_FRAMES)
      db.run("PRAGMA wal_checkpoint(RESTART)");
    failing.delete(path);
  } catch (error) {
    // SQLITE_BUSY: a writer or a reader held on; the next tick tries again.
    if ((error as { code?: unknown }).code === "SQLITE_BUSY") return;
    report(path, error);
    // Opened afresh at the next tick: a connection opened while the file was write-protected
    // stays read-only even once it is writable again.
    db.close();
    databases.set(path, null);
  }
}

let ticking: ReturnType<typeof setInterval> | null = null;

/** Checkpoints every watched file each `everyMs` (the server's first message says how often). */
function tickEvery(everyMs: number): void {
  if (ticking !== null) clearInterval(ticking);
  ticking = setInterval(() => {
    for (const path of databases.keys()) checkpoint(path);
  }, everyMs);
}

/**
 * TRUNCATE: everything copied back and the WAL cut to zero bytes, so none of the page images it
 * held stays on disk. It needs every reader on the latest snapshot: tried again every 50 ms, for
 * up to `withinMs`, on a connection of its own that waits 50 ms at each try.
 */
function cut(path: string, id: number, withinMs: number): void {
  const until = Date.now() + withinMs;
  const attempt = () => {
    let done = false;
    try {
      const db = new Database(path, { readwrite: true, create: false, strict: true });
      try {
        db.run("PRAGMA busy_timeout = 50");
        done = db.query<{ busy: number }, []>("PRAGMA wal_checkpoint(TRUNCATE)").get()?.busy === 0;
      } finally {
        db.close();
      }
    } catch {
      // SQLITE_BUSY, or the file is gone: tried again below, or told as not done.
    }
    if (done || Date.now() >= until) self.postMessage({ path, cut: { id, done } } satisfies CheckpointerReport);
    else setTimeout(attempt, 50);
  };
  attempt();
}

self.onmessage = (event: MessageEvent<CheckpointerMessage>) => {
  const message = event.data;
  if (message.cut !== undefined) cut(message.cut.path, message.cut.id, message.cut.withinMs);
  if (message.watch !== undefined && !databases.has(message.watch)) databases.set(message.watch, null);
  if (message.forget !== undefined) close(message.forget);
  if (message.everyMs !== undefined) tickEvery(message.everyMs);
};
