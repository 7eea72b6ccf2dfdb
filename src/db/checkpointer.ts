// Checkpoints off the event loop. SQLite copies the WAL back into the database file (a
// checkpoint) on whichever connection's commit finds the WAL past 1000 pages. In the server
// that was a lead creation, on the event loop: while an import or a feed run wrote into a served
// file, several times a second, each a copy of megabytes and an fsync of the database file (read
// p99 during a feed run's writes 9 ms, 5.5 ms once moved here, `bun run bench --only feed-run`). The server's
// connections leave that to a thread of the process instead (checkpoint-worker.ts), and never
// checkpoint on a commit while it runs.
import type { Database } from "bun:sqlite";
import { runsCompiled } from "../executable.ts";
import {
  CHECKPOINT_EVERY_MS,
  type CheckpointerMessage,
  type CheckpointerReport,
  SQLITE_AUTOCHECKPOINT_FRAMES,
} from "./checkpoint-protocol.ts";

/**
 * The thread's code. In the executable, Bun files each entry point of the build (scripts/build.ts
 * names this one) under its path from their common folder, src/, as JavaScript. An absolute
 * path there: a relative one that Bun did not find inside would be looked for in the
 * working directory.
 */
const WORKER_CODE = runsCompiled
  ? "/$bunfs/root/db/checkpoint-worker.js"
  : new URL("./checkpoint-worker.ts", import.meta.url).href;

/**
 * The connections' own automatic checkpoint while the thread runs: none. It was a backstop at
 * 10,000 pages, but a passive checkpoint on a commit can copy no more than the thread's can
 * (the same readers hold both back), and it ran inside the server's commit, on the event loop,
 * with an fsync of the database file: during a feed run, whose writes keep the WAL past 10,000
 * pages while partners' reads keep the thread from starting it over, the lead creation that
 * came first after each of the run's chunks copied that chunk and synced the file, up to
 * seconds on a busy disk (bench feed-run-one-core: lead max 2.3-3.1 s). If the thread dies, the
 * connections take SQLite's default back (died()).
 */
const OWN_CHECKPOINT_FRAMES = 0;

export class Checkpointer {
  private worker: Worker | null = null;
  private dead = false;
  /** Per file, the server's connections to it (a reopened tenant and the one it replaces overlap). */
  private readonly watched = new Map<string, Set<Database>>();
  /** Cuts of the WAL asked of the thread and not answered yet, by id. */
  private readonly cuts = new Map<number, (done: boolean) => void>();
  private nextCut = 0;

  /**
   * `onError`: told of what went wrong, in words for the log. `workerCode`: tests name another;
   * `everyMs`: how often the thread checkpoints (tests run it faster than a server does).
   */
  constructor(
    private readonly onError: (what: string) => void,
    private readonly workerCode: string = WORKER_CODE,
    private readonly everyMs: number = CHECKPOINT_EVERY_MS,
  ) {}

  /** Leaves the checkpoints of `path` to the thread: its connections `connections` stop doing them. */
  watch(path: string, connections: Database[]): void {
    const worker = this.running();
    if (worker === null) return; // SQLite's own checkpoints stay as they are
    let open = this.watched.get(path);
    if (open === undefined) {
      open = new Set();
      this.watched.set(path, open);
      worker.postMessage({ watch: path } satisfies CheckpointerMessage);
    }
    for (const db of connections) {
      db.run(`PRAGMA wal_autocheckpoint = ${OWN_CHECKPOINT_FRAMES}`);
      open.add(db);
    }
  }

  /** The connections `connections` to `path` are closing; the thread lets go of the file once none is left. */
  forget(path: string, connections: Database[]): void {
    const open = this.watched.get(path);
    if (open === undefined) return;
    for (const db of connections) open.delete(db);
    if (open.size > 0) return;
    this.watched.delete(path);
    this.worker?.postMessage({ forget: path } satisfies CheckpointerMessage);
  }

  /**
   * Has the thread copy the whole WAL of `path` back and cut it to zero bytes, off the event
   * loop; resolves true once done, false when readers kept it from it for `withinMs`, and null
   * when there is no thread (the caller does it itself).
   */
  cutWal(path: string, withinMs: number): Promise<boolean> | null {
    const worker = this.running();
    if (worker === null) return null;
    const id = ++this.nextCut;
    return new Promise((resolve) => {
      this.cuts.set(id, resolve);
      worker.postMessage({ cut: { path, id, withinMs } } satisfies CheckpointerMessage);
    });
  }

  /** Ends the thread, its connections with it: the server's own close after, the last leaving the file whole. */
  close(): void {
    this.worker?.terminate();
    this.worker = null;
    this.watched.clear();
    this.settleCuts();
  }

  /** Cuts the thread will never answer: not done. */
  private settleCuts(): void {
    for (const resolve of this.cuts.values()) resolve(false);
    this.cuts.clear();
  }

  private running(): Worker | null {
    if (this.worker !== null || this.dead) return this.worker;
    const worker = new Worker(this.workerCode);
    worker.unref(); // never what keeps a process alive
    worker.postMessage({ everyMs: this.everyMs } satisfies CheckpointerMessage);
    worker.onmessage = (event: MessageEvent<CheckpointerReport>) => {
      const { path, error, cut } = event.data;
      if (cut !== undefined) {
        this.cuts.get(cut.id)?.(cut.done);
        this.cuts.delete(cut.id);
      } else this.onError(`checkpoint of ${path} failed: ${error}`);
    };
    worker.onerror = (event) => {
      worker.terminate();
      this.died(event.message);
    };
    this.worker = worker;
    return worker;
  }

  /** The thread is gone (it could not start, or it crashed): every connection checkpoints for itself again. */
  private died(why: string): void {
    this.dead = true;
    this.worker = null;
    this.settleCuts();
    for (const open of this.watched.values()) {
      for (const db of open) {
        try {
          db.run(`PRAGMA wal_autocheckpoint = ${SQLITE_AUTOCHECKPOINT_FRAMES}`);
        } catch {
          // Closed meanwhile: nothing to put back.
        }
      }
    }
    this.watched.clear();
    this.onError(`the checkpointer thread stopped (${why}); each connection checkpoints for itself again`);
  }
}
