// One open database per file, shared by every client that names it. Each tenant has a read
// connection (lists, records) and a write connection (lead creation): because they differ,
// `PRAGMA data_version` on the read side moves on every commit, ours or another process's.
//
// The rule for every file of a database (the database, its -wal, -shm and -journal): only
// SQLite opens, maps or closes them. On Linux, closing any descriptor of a file drops every
// POSIX lock the process holds on it, SQLite's included: a descriptor opened and closed behind
// SQLite's back (a read, a copy, an mmap) makes the next process believe no one uses the
// database, rebuild its -shm under our connections, and crash or corrupt us (sqlite.org, "How
// To Corrupt An SQLite Database File", 2.2). stat() and the kernel's lock table are harmless.
// See src/db/in-use.ts for how the CLI tells a database is in use without opening it, and
// src/db/wal-sync.ts for the one descriptor the server opens itself, on a -wal, and why it is safe.
import { Database, type Statement } from "bun:sqlite";
import { type Clock, wallClock } from "../clock.ts";
import type { Checkpointer } from "./checkpointer.ts";
import { GroupCommitWriter } from "./group-commit.ts";
import { closeDatabase, openExistingDatabase } from "./open.ts";
import type { Fsync } from "./wal-sync.ts";

/** The generations a reader thread's jobs key their caches on (see Tenant.forReaderThread). */
export interface Generations {
  generation: number;
  outsideGeneration: number;
}

/** What only the server's event loop has: the write connection and the group-commit writer. */
interface Writing {
  write: Database;
  writer: GroupCommitWriter;
  writerDataVersion: Statement<{ data_version: number }>;
  /** The change log's last sequence, read on the writer. */
  lastSequence: Statement<{ head: number }, []>;
}

let tenantsOpened = 0;

export class Tenant {
  /** Tells apart the tenants one file had in this process (a reopened one is a new tenant). */
  readonly id = ++tenantsOpened;
  private readonly dataVersion: Statement<{ data_version: number }>;
  private readonly writing: Writing | null;
  /**
   * When a write failed because the connection is read-only. SQLite opens a write-protected
   * file read-only and stays so, even once the file is writable again: only new connections heal.
   */
  readOnlySince: number | null = null;

  private lastGeneration = 0;
  private lastOutsideGeneration = 0;
  /** In a reader thread: the generations the event loop read for the job running now. */
  private given: Generations | null = null;
  /** True once SQLite was asked in this turn of the event loop (cleared at the turn's end). */
  private askedThisTurn = false;
  private readonly endTurn = () => {
    this.askedThisTurn = false;
  };

  constructor(
    readonly path: string,
    readonly read: Database,
    write: Database | null,
    clock: Clock,
    /** The WAL's sync (tests hold it back); node:fs's fsync on Bun's thread pool by default. */
    fsync?: Fsync,
  ) {
    this.dataVersion = read.query("PRAGMA data_version");
    if (write === null) {
      this.writing = null;
      return;
    }
    const lastSequence = write.query<{ head: number }, []>("SELECT coalesce(max(sequence), 0) AS head FROM changes");
    // A committed write proves the connection writable; a read-only refusal starts the clock.
    const writer = new GroupCommitWriter(
      write,
      (error) => {
        const code = (error as { code?: unknown } | null)?.code;
        if (typeof code === "string" && code.startsWith("SQLITE_READONLY")) this.readOnlySince ??= clock.now();
        else if (error === null) this.readOnlySince = null;
        // Our own commit: whatever this turn serves next must see it.
        this.askedThisTurn = false;
      },
      { fsync, syncMark: () => lastSequence.get()!.head },
    );
    this.writing = { write, writer, writerDataVersion: write.query("PRAGMA data_version"), lastSequence };
    this.refreshGenerations();
  }

  /**
   * A tenant of a reader thread (src/reads/): one read-only connection, no writer. Its caches
   * key on the generations the event loop read for each job (useGenerations), the numbers the
   * event loop's own caches key on: a page is cached, and found again, exactly when it would be
   * there. Its connection reads at the job's start, after the event loop read them, so it sees
   * every commit they count (and maybe later ones, which makes the page newer, never staler).
   */
  static forReaderThread(path: string, read: Database): Tenant {
    return new Tenant(path, read, null, wallClock);
  }

  /** In a reader thread: the generations of the job about to run. */
  useGenerations(given: Generations): void {
    this.given = given;
  }

  private writable(): Writing {
    if (this.writing === null) throw new Error(`${this.path}: a reader thread's tenant does not write`);
    return this.writing;
  }

  /** The write connection (the event loop's tenant only). */
  get write(): Database {
    return this.writable().write;
  }

  /** Every write of the server goes through here, batched into shared commits (the event loop's tenant only). */
  get writer(): GroupCommitWriter {
    return this.writable().writer;
  }

  /**
   * Null when every change up to `sequence` is known to be on disk, else a promise that resolves
   * once it is. A commit is visible from COMMIT on, a sync of the WAL before it is on disk
   * (group-commit.ts); an answer that shows the change log (the change feed, a webhook) waits
   * for that sync, or a power cut could take back sequences a partner has seen, and the next
   * writes would reuse them. Each sync reads the log's last sequence as it begins and covers the
   * whole WAL, so another process's commits too; a lead's own sync usually covers its event.
   * A reader thread's tenant answers null: the event loop waits (allOnDisk) before it answers.
   */
  onDisk(sequence: number): Promise<void> | null {
    return this.writing === null ? null : this.writing.writer.onDisk(sequence);
  }

  /** onDisk of the change log's last sequence now: what a reader thread's answer waits for. */
  allOnDisk(): Promise<void> | null {
    const writing = this.writable();
    return writing.writer.onDisk(writing.lastSequence.get()!.head);
  }

  /** The last sequence known to be on disk (see onDisk). */
  onDiskThrough(): number {
    return this.writing === null ? Number.POSITIVE_INFINITY : this.writing.writer.onDiskThrough();
  }

  /** Moves whenever any connection, in any process, has committed: this server's writes included. */
  generation(): number {
    if (this.given !== null) return this.given.generation;
    this.refreshGenerations();
    return this.lastGeneration;
  }

  /**
   * Moves whenever a connection other than this server's writer has committed (an import,
   * another process). The server itself writes only leads and their feed entries, so caches
   * of properties key on this and survive lead creation.
   */
  outsideGeneration(): number {
    if (this.given !== null) return this.given.outsideGeneration;
    this.refreshGenerations();
    return this.lastOutsideGeneration;
  }

  /**
   * Each connection's data_version moves on commits by the other connections, so the read
   * connection's sees everything and the writer's sees everything but its own. Asking opens a
   * read transaction (file locks, a fifth of a cached list request), so SQLite is asked once per
   * turn of the event loop and the answer shared by every request handled in that turn. That
   * loses nothing: a request that a client sent after learning of a commit arrived after the
   * commit, so the turn that reads it began after the commit too, and asks afresh.
   */
  private refreshGenerations(): void {
    if (this.askedThisTurn) return;
    this.lastGeneration = this.dataVersion.get()!.data_version;
    this.lastOutsideGeneration =
      this.writing === null ? this.lastGeneration : this.writing.writerDataVersion.get()!.data_version;
    this.askedThisTurn = true;
    setImmediate(this.endTurn);
  }

  close(): void {
    if (this.writing !== null) {
      this.writing.writer.close();
      closeDatabase(this.writing.write);
    }
    closeDatabase(this.read);
  }
}

const RETRY_AFTER_FAILURE_MS = 5_000;
/** A replaced tenant stays open this long, so requests already holding it finish. */
const RETIRE_AFTER_MS = 30_000;

/**
 * Opens tenants on first use; a file that failed to open is retried at most every 5 s, and a
 * tenant whose writes failed read-only is reopened (at most every 5 s) until writes work again.
 */
export class TenantRegistry {
  private readonly open = new Map<string, Tenant>();
  private readonly failures = new Map<string, { at: number; reason: string }>();
  /** Connections of their own that requests still hold on these files (a portal feed's snapshot). */
  private readonly held = new Set<() => void>();

  /** `checkpoints`: who copies the WAL back, off the event loop (without one, each commit may). */
  constructor(
    private readonly clock: Clock,
    private readonly checkpoints: Checkpointer | null = null,
  ) {}

  /**
   * Copies the whole WAL of `path` back and cuts it to zero bytes, on the checkpointer's thread
   * when there is one; true once done, false when readers on older snapshots kept it from it
   * for `withinMs`.
   */
  async cutWal(path: string, withinMs: number): Promise<boolean> {
    return (await this.checkpoints?.cutWal(path, withinMs)) ?? (await cutWalHere(path, withinMs));
  }

  get(path: string): Tenant | null {
    const tenant = this.open.get(path);
    if (tenant) {
      const since = tenant.readOnlySince;
      if (since === null || this.clock.now() - since < RETRY_AFTER_FAILURE_MS) return tenant;
      return this.reopen(tenant);
    }
    const failure = this.failures.get(path);
    if (failure && this.clock.now() - failure.at < RETRY_AFTER_FAILURE_MS) return null;
    try {
      const opened = this.openTenant(path);
      this.open.set(path, opened);
      this.failures.delete(path);
      return opened;
    } catch (error) {
      this.failures.set(path, { at: this.clock.now(), reason: (error as Error).message });
      return null;
    }
  }

  private openTenant(path: string): Tenant {
    const tenant = new Tenant(path, openExistingDatabase(path), openExistingDatabase(path), this.clock);
    this.checkpoints?.watch(path, [tenant.read, tenant.write]);
    return tenant;
  }

  private closeTenant(tenant: Tenant): void {
    this.checkpoints?.forget(tenant.path, [tenant.read, tenant.write]);
    tenant.close();
  }

  /** Fresh connections for a tenant whose writes failed read-only; the old one retires later. */
  private reopen(stale: Tenant): Tenant {
    try {
      const fresh = this.openTenant(stale.path);
      this.open.set(stale.path, fresh);
      setTimeout(() => this.closeTenant(stale), RETIRE_AFTER_MS).unref();
      return fresh;
    } catch {
      stale.readOnlySince = this.clock.now();
      return stale;
    }
  }

  /** Why a file could not be opened, if it could not. */
  failure(path: string): string | null {
    return this.failures.get(path)?.reason ?? null;
  }

  all(): Tenant[] {
    return [...this.open.values()];
  }

  /**
   * Registers the release of a connection a request holds on one of these files, to run before
   * they close: a reader holding a snapshot would make each closing checkpoint wait for it.
   * Returns the unregistration, for when the request releases it itself.
   */
  hold(release: () => void): () => void {
    this.held.add(release);
    return () => this.held.delete(release);
  }

  closeAll(): void {
    for (const release of [...this.held]) release();
    this.held.clear();
    this.checkpoints?.close();
    for (const tenant of this.open.values()) this.closeTenant(tenant);
    this.open.clear();
  }
}

/** The WAL cut on this thread, for a process without a checkpointer thread (tests, the command line). */
export async function cutWalHere(path: string, withinMs: number): Promise<boolean> {
  const db = new Database(path, { readwrite: true, create: false, strict: true });
  try {
    db.run("PRAGMA busy_timeout = 50");
    const until = Date.now() + withinMs;
    for (;;) {
      try {
        if (db.query<{ busy: number }, []>("PRAGMA wal_checkpoint(TRUNCATE)").get()?.busy === 0) return true;
      } catch (error) {
        if ((error as { code?: unknown }).code !== "SQLITE_BUSY") throw error;
      }
      if (Date.now() >= until) return false;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } finally {
    db.close();
  }
}
