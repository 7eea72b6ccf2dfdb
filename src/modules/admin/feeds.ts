// CRM feeds as the agency sees them (docs/operators/console.md#crm-feeds): every feed of its
// databases with its last run, every run (time, duration, outcome, counts, rejections with their
// reasons), "run now", and a run a guard held, applied (the feed run again with its guard lifted
// for that run) or dropped by an admin.
import { readRun } from "../../agency/crm-feeds/store.ts";
import type { FeedSpec } from "../../config/model.ts";
import { type FeedRunRow, UsageStore } from "../../db/control/usage.ts";
import { ApiError, type FieldProblem } from "../../errors.ts";
import { displayUrl } from "../../formats/fetch.ts";
import { type Actor, type AdminService, iso, whole, worksOn } from "./service.ts";

function feedsOf(service: AdminService, actor: Actor): FeedSpec[] {
  return service.runtime.config.feeds.filter((feed) => worksOn(actor, feed.database));
}

function feedOf(service: AdminService, actor: Actor, id: string): FeedSpec {
  const feed = feedsOf(service, actor).find((f) => f.id === id);
  if (feed === undefined) throw new ApiError("NOT_FOUND", "No CRM feed with this id in your databases");
  return feed;
}

function runView(run: FeedRunRow) {
  const summary = (run.summary ?? null) as {
    created: number;
    updated: number;
    unchanged: number;
    unpublished: number;
    rejected: number;
    warnings: Record<string, number>;
    rejections: { code: string | null; reason: string }[];
  } | null;
  return {
    id: run.id!,
    feed: run.feedId,
    database: run.database,
    startedAt: iso(run.startedAt),
    durationMs: run.ms,
    outcome: run.outcome,
    error: run.error,
    counts:
      summary === null
        ? null
        : {
            created: summary.created,
            updated: summary.updated,
            unchanged: summary.unchanged,
            unpublished: summary.unpublished,
            rejected: summary.rejected,
          },
    warnings: summary?.warnings ?? {},
    rejections: summary?.rejections ?? [],
    decision:
      run.decision == null ? null : { action: run.decision, by: run.decidedBy ?? null, at: iso(run.decidedAt ?? 0) },
  };
}

/** `GET /admin/v1/feeds`: each feed with its schedule and its last run. */
export function listFeeds(service: AdminService, actor: Actor) {
  const store = new UsageStore(service.store.db);
  return feedsOf(service, actor).map((feed) => {
    const tenant = service.runtime.tenants.get(feed.databasePath);
    const state = tenant === null ? null : readRun(tenant.read, feed.id);
    const last = store.feedRuns(feed.id, 1, 0).rows[0];
    return {
      id: feed.id,
      database: feed.database,
      url: displayUrl(feed.url),
      mode: feed.mode,
      everyMinutes: Math.round(feed.everyMs / 60_000),
      maxUnpublishRatio: feed.maxUnpublishRatio,
      running: state !== null && state.leaseOwner !== null && (state.leaseUntil ?? 0) > service.runtime.clock.now(),
      lastSuccessAt: state?.lastSuccessAt == null ? null : iso(state.lastSuccessAt),
      lastRun: last === undefined ? null : runView(last),
    };
  });
}

/** `GET /admin/v1/feeds/{id}/runs`: newest first. */
export function feedRuns(service: AdminService, actor: Actor, id: string, query: URLSearchParams) {
  const problems: FieldProblem[] = [];
  const page = whole(query.get("page"), "page", 1, 1_000_000, 1, problems);
  const limit = whole(query.get("limit"), "limit", 1, 100, 20, problems);
  if (problems.length > 0) throw ApiError.validation(problems);
  const feed = feedOf(service, actor, id);
  const { rows, total } = new UsageStore(service.store.db).feedRuns(feed.id, limit, (page - 1) * limit);
  return { data: rows.map(runView), meta: { page, limit, total, totalPages: Math.ceil(total / limit) } };
}

async function runNow(service: AdminService, feed: FeedSpec, liftGuard: boolean): Promise<"started" | "running"> {
  const scheduler = service.runtime.feedRuns;
  if (scheduler === null) throw new ApiError("SERVICE_UNAVAILABLE", "This process runs no feeds");
  const status = await scheduler.runNow(feed.id, liftGuard);
  if (status === "unknown") throw new ApiError("SERVICE_UNAVAILABLE", "The feed's database cannot be opened now");
  return status;
}

/** `POST /admin/v1/feeds/{id}/run`: a run now (a run under way is left to finish). */
export async function runFeedNow(service: AdminService, actor: Actor, id: string, ip: string | null) {
  const feed = feedOf(service, actor, id);
  const status = await runNow(service, feed, false);
  service.audit(actor.name, ip, "feed.run", feed.id, null);
  return { feed: feed.id, status };
}

/** `POST /admin/v1/feeds/runs/{runId}/apply` or `/drop`: an admin's decision on a guarded run. */
export async function decideGuardedRun(
  service: AdminService,
  actor: Actor,
  runId: string,
  decision: "applied" | "dropped",
  ip: string | null,
) {
  const store = new UsageStore(service.store.db);
  const run = /^\d{1,15}$/.test(runId) ? store.feedRun(Number(runId)) : null;
  if (run === null) throw new ApiError("NOT_FOUND", "No feed run with this id");
  const feed = feedOf(service, actor, run.feedId);
  if (run.outcome !== "guarded") throw new ApiError("STATE_CONFLICT", "Only a run a guard held is applied or dropped");
  if (run.decision != null) throw new ApiError("STATE_CONFLICT", `This run was ${run.decision} already`);
  const status = decision === "applied" ? await runNow(service, feed, true) : null;
  if (!store.decideFeedRun(run.id!, decision, actor.name, service.runtime.clock.now()))
    throw new ApiError("STATE_CONFLICT", "This run was decided meanwhile");
  service.audit(actor.name, ip, decision === "applied" ? "feed.guarded.apply" : "feed.guarded.drop", feed.id, {
    run: run.id,
  });
  return { run: runView(store.feedRun(run.id!)!), ...(status === null ? {} : { status }) };
}
