// One open database per file, shared by every client that names it. Each tenant has a read
// connection (lists, records) and a write connection (lead creation): because they differ,
// `PRAGMA data_version` on the read side moves on every commit, ours or another process's.
import type { Database, Statement } from "bun:sqlite";
import type { Clock } from "../clock.ts";
import { GroupCommitWriter } from "./group-commit.ts";
import { closeDatabase, openExistingDatabase } from "./open.ts";
import { WalChangeCounter } from "./wal-header.ts";


export class Tenant {
  private readonly dataVersion: Statement<{ data_version: number }>;
  private readonly writerDataVersion: Statement<{ data_version: number }>;
  /** Every write of the server goes through here, batched into shared commits. */
  readonly writer: GroupCommitWriter;
  /**
   * When a write failed because the connection is read-only. SQLite opens a write-protected
   * file read-only and stays so, even once the file is writable again: only new connections heal.
   */
  readOnlySince: number | null = null;

  /** The wal-index header's commit counter, when it can be mapped. */
  private readonly walChanges: WalChangeCounter | null;
  private lastWalChange: number | null = null;
  private lastGeneration = 0;
  private lastOutsideGeneration = 0;

  constructor(
    readonly path: string,
    readonly read: Database,
    readonly write: Database,
    clock: Clock,
  ) {
    this.dataVersion = read.query("PRAGMA data_version");
    this.writerDataVersion = write.query("PRAGMA data_version");
    this.walChanges = WalChangeCounter.open(path); // opening the connections created the -shm file
    this.refreshGenerations();
    // A committed write proves the connection writable; a read-only refusal starts the clock.
    this.writer = new GroupCommitWriter(write, (error) => {
      const code = (error as { code?: unknown } | null)?.code;
      if (typeof code === "string" && code.startsWith("SQLITE_READONLY")) this.readOnlySince ??= clock.now();
      else if (error === null) this.readOnlySince = null;
    });
  }

  /** Moves whenever any connection, in any process, has committed: this server's writes included. */
  generation(): number {
    this.refreshGenerations();
    return this.lastGeneration;
  }

  /**
   * Moves whenever a connection other than this server's writer has committed (an import,
   * another process). The server itself writes only leads and their feed entries, so caches
   * of properties key on this and survive lead creation.
   */
  outsideGeneration(): number {
    this.refreshGenerations();
    return this.lastOutsideGeneration;
  }

  /**
   * SQLite is asked only when the wal-index header says something was committed (or cannot
   * say): with no commit in between, its answers would be the same as last time. Each
   * connection's data_version moves on commits by the other connections, so the read
   * connection's sees everything and the writer's sees everything but its own.
   */
  private refreshGenerations(): void {
    const change = this.walChanges === null ? null : this.walChanges.read();
    if (change !== null && change === this.lastWalChange) return;
    this.lastGeneration = this.dataVersion.get()!.data_version;
    this.lastOutsideGeneration = this.writerDataVersion.get()!.data_version;
    this.lastWalChange = change;
  }

  close(): void {
    closeDatabase(this.write);
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

  constructor(private readonly clock: Clock) {}

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
    return new Tenant(path, openExistingDatabase(path), openExistingDatabase(path), this.clock);
  }

  /** Fresh connections for a tenant whose writes failed read-only; the old one retires later. */
  private reopen(stale: Tenant): Tenant {
    try {
      const fresh = this.openTenant(stale.path);
      this.open.set(stale.path, fresh);
      setTimeout(() => stale.close(), RETIRE_AFTER_MS).unref();
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

  closeAll(): void {
    for (const tenant of this.open.values()) tenant.close();
    this.open.clear();
  }
}
