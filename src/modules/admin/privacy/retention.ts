// Retention (docs/operators/personal-data.md): each database the config gives a period has its
// leads not updated for that long anonymized, through the same path as a person's request, at
// start and then once a day. The day is the injected clock's, checked often, so a test (or a
// clock that jumps) decides when the next run is due. Each run with anonymizations is in the
// audit log (actor "retention") and in /metrics.
import { retentionCutoff } from "../../../config/retention.ts";
import type { Logger } from "../../../logging.ts";
import type { Runtime } from "../../../runtime.ts";
import { privacyMetricsOf } from "./metrics.ts";
import { expiredLeads, pruneAnonymizationMarks } from "./repo.ts";
import { anonymizeInTenant, CUT_WAL_WITHIN_MS } from "./service.ts";

export const RETENTION_EVERY_MS = 24 * 3600_000;
/** How often the real timer asks whether a run is due by the clock. */
const CHECK_EVERY_MS = 60_000;
/** Expired leads read per step: each step is then anonymized in the writer's short batches. */
const STEP = 1000;

/** Anonymizes, in every database with a retention period, the leads past it; returns the counts by database. */
export async function runRetention(runtime: Runtime, logger: Logger): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const [name, { leads }] of runtime.config.retention) {
    const path = runtime.config.databases.get(name);
    const tenant = path === undefined ? null : runtime.tenants.get(path);
    if (tenant === null || path === undefined) continue;
    const before = new Date(retentionCutoff(leads, runtime.clock.now())).toISOString();
    const started = performance.now();
    let total = 0;
    for (;;) {
      const ids = expiredLeads(tenant.read, before, STEP);
      if (ids.length === 0) break;
      const done = await anonymizeInTenant(tenant, ids, runtime.clock, null);
      total += done;
      // Nothing changed (another process anonymized them meanwhile and this read was older): stop.
      if (done === 0) break;
    }
    counts.set(name, total);
    if (total === 0) continue;
    privacyMetricsOf(runtime).anonymized(name, "retention", total);
    if (!(await runtime.tenants.cutWal(path, CUT_WAL_WITHIN_MS)))
      logger.warn({ database: name }, "retention: the WAL could not be cut yet (a long read held it)");
    runtime.control?.audit({
      at: runtime.clock.now(),
      actor: "retention",
      ip: null,
      action: "privacy.retention",
      target: name,
      changes: { anonymized: total, notUpdatedSince: before },
    });
    const ms = Math.round(performance.now() - started);
    logger.info({ database: name, anonymized: total, notUpdatedSince: before, ms }, "retention: leads anonymized");
  }
  return counts;
}

/** Drops, in every open database, the anonymization marks compaction left without their change-log entry. */
export async function pruneMarks(runtime: Runtime): Promise<void> {
  for (const tenant of runtime.tenants.all()) await tenant.writer.submit((db) => pruneAnonymizationMarks(db));
}

/** Runs retention (and the marks' pruning) at start, then whenever a day has passed by the runtime's clock. */
export class RetentionScheduler {
  private lastRun: number | null = null;
  private running: Promise<void> | null = null;
  private timer: ReturnType<typeof setInterval> | null = null;

  constructor(
    private readonly runtime: Runtime,
    private readonly logger: Logger,
    private readonly checkEveryMs = CHECK_EVERY_MS,
  ) {}

  start(): void {
    if (this.timer !== null) return;
    void this.tick();
    this.timer = setInterval(() => void this.tick(), this.checkEveryMs);
    this.timer.unref();
  }

  /** Runs retention if it never ran or a day has passed since (by the clock); resolves when done. */
  async tick(): Promise<void> {
    if (this.running !== null) return await this.running;
    const now = this.runtime.clock.now();
    if (this.lastRun !== null && now - this.lastRun < RETENTION_EVERY_MS) return;
    this.lastRun = now;
    this.running = pruneMarks(this.runtime)
      .then(() => runRetention(this.runtime, this.logger))
      .then(() => undefined)
      .catch((error) => this.logger.warn({ err: (error as Error).message }, "retention run failed"))
      .finally(() => {
        this.running = null;
      });
    await this.running;
  }

  async stop(): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }
}
