// One open database per file, shared by every client that names it. Each tenant has a read
// connection (lists, records) and a write connection (lead creation): because they differ,
// `PRAGMA data_version` on the read side moves on every commit, ours or another process's.
import type { Database, Statement } from "bun:sqlite";
import { GroupCommitWriter } from "./group-commit.ts";
import { closeDatabase, openExistingDatabase } from "./open.ts";

export interface Clock {
  now(): number;
}

export class Tenant {
  private readonly dataVersion: Statement<{ data_version: number }>;
  /** Every write of the server goes through here, batched into shared commits. */
  readonly writer: GroupCommitWriter;

  constructor(
    readonly path: string,
    readonly read: Database,
    readonly write: Database,
  ) {
    this.dataVersion = read.query("PRAGMA data_version");
    this.writer = new GroupCommitWriter(write);
  }

  /** Changes whenever any connection, in any process, has committed since the last call. */
  generation(): number {
    return this.dataVersion.get()!.data_version;
  }

  close(): void {
    closeDatabase(this.write);
    closeDatabase(this.read);
  }
}

const RETRY_AFTER_FAILURE_MS = 5_000;

/** Opens tenants on first use; a file that failed to open is retried at most every 5 s. */
export class TenantRegistry {
  private readonly open = new Map<string, Tenant>();
  private readonly failures = new Map<string, { at: number; reason: string }>();

  constructor(private readonly clock: Clock) {}

  get(path: string): Tenant | null {
    const tenant = this.open.get(path);
    if (tenant) return tenant;
    const failure = this.failures.get(path);
    if (failure && this.clock.now() - failure.at < RETRY_AFTER_FAILURE_MS) return null;
    try {
      const read = openExistingDatabase(path);
      const write = openExistingDatabase(path);
      const opened = new Tenant(path, read, write);
      this.open.set(path, opened);
      this.failures.delete(path);
      return opened;
    } catch (error) {
      this.failures.set(path, { at: this.clock.now(), reason: (error as Error).message });
      return null;
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
