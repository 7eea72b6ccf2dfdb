// `partner-api feeds status --config FILE [--json]` and `partner-api feeds run --config FILE
// [--id ID] [--json]` (docs/reference/behaviour-extensions.md §14): what `serve` did with each feed, read from the database,
// and a run now, through the same path. `feeds run-claimed` is internal: the child process
// `serve` starts for each scheduled run (cli/crm-feed-child.ts). A feed's headers are never printed.
import { type Busy, leaseOwner, type RunReport, runHere } from "../agency/crm-feeds/run.ts";
import { type FeedRunState, leaseHeld, nextRunAt, type RunSummary, readRun } from "../agency/crm-feeds/store.ts";
import { formatDuration } from "../config/duration.ts";
import { readConfigFile, resolveConfig } from "../config/load.ts";
import type { FeedSpec } from "../config/model.ts";
import { closeDatabase, NotAPartnerDatabaseError, openExistingDatabase } from "../db/open.ts";
import { displayUrl } from "../formats/fetch.ts";
import { parseFlags, UsageError } from "./args.ts";
import type { ChildInput } from "./crm-feed-child.ts";
import { countsLine, rejectionLine } from "./import.ts";

const USAGE =
  "usage: partner-api feeds status --config FILE [--json] | partner-api feeds run --config FILE [--id ID] [--json]";

/** The config's feeds. These commands sign nothing: no token secret is read or made. */
function configuredFeeds(path: string | undefined): readonly FeedSpec[] {
  if (!path) throw new UsageError("--config FILE is required");
  const { config, baseDir } = readConfigFile(path);
  return resolveConfig(config, { baseDir, jwtSecret: "" }).feeds;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** The state of a feed's database row, or why it cannot be read. */
function stateOf(feed: FeedSpec): { run: FeedRunState | null; error: string | null } {
  try {
    const db = openExistingDatabase(feed.databasePath);
    try {
      return { run: readRun(db, feed.id), error: null };
    } finally {
      closeDatabase(db);
    }
  } catch (error) {
    return { run: null, error: (error as Error).message };
  }
}

function statusJson(feed: FeedSpec, run: FeedRunState | null, error: string | null, now: number) {
  const held = leaseHeld(run, now);
  // last_started_at is the run under way's start once one has begun: the last finished run's
  // own start (and so its duration) is known only while no run is under way.
  const startOfLast =
    run?.lastStartedAt != null && run.lastFinishedAt != null && run.lastStartedAt <= run.lastFinishedAt
      ? run.lastStartedAt
      : null;
  const running = held
    ? {
        owner: run!.leaseOwner,
        leaseUntil: iso(run!.leaseUntil),
        startedAt: iso(run!.lastStartedAt),
        forMs: run!.lastStartedAt === null ? null : Math.max(0, now - run!.lastStartedAt),
      }
    : null;
  return {
    id: feed.id,
    database: feed.database,
    url: displayUrl(feed.url),
    every: formatDuration(feed.everyMs),
    mode: feed.mode,
    error,
    running,
    lastRun:
      run?.lastFinishedAt == null
        ? null
        : {
            startedAt: iso(startOfLast),
            finishedAt: iso(run.lastFinishedAt),
            outcome: run.lastOutcome,
            error: run.lastError,
          },
    lastSuccessAt: iso(run?.lastSuccessAt ?? null),
    lastSummary: run?.lastSummary ?? null,
    nextRunAt: error === null ? iso(Math.max(now, nextRunAt(run, feed.everyMs, now))) : null,
  };
}

function summaryLines(summary: RunSummary, indent: string): string[] {
  const more = summary.rejected - summary.rejections.length;
  return [
    `${indent}${countsLine(summary)}`,
    ...summary.rejections.map((rejection) => `${indent}${rejectionLine(rejection).trimStart()}`),
    ...(more > 0 ? [`${indent}… and ${more} more rejected (partner-api import --json lists them all)`] : []),
  ];
}

function statusText(status: ReturnType<typeof statusJson>): string {
  const lines = [
    `${status.id}: ${status.mode} feed of database "${status.database}", every ${status.every}, from ${status.url}`,
  ];
  if (status.error !== null) return [...lines, `  cannot read its state: ${status.error}`].join("\n");
  const last = status.lastRun;
  if (last === null) lines.push("  last run:     never");
  else {
    const what = `${last.outcome === "not_modified" ? "not modified (304): nothing to do" : last.outcome}${last.error ? `: ${last.error}` : ""}`;
    if (last.startedAt === null) lines.push(`  last run:     finished ${last.finishedAt}: ${what}`);
    else
      lines.push(
        `  last run:     ${last.startedAt}, took ${seconds(Date.parse(last.finishedAt!) - Date.parse(last.startedAt))}: ${what}`,
      );
  }
  lines.push(`  last success: ${status.lastSuccessAt ?? "never"}`);
  if (status.lastSummary !== null) lines.push(...summaryLines(status.lastSummary, "                "));
  const running = status.running;
  if (running === null) lines.push(`  next run:     ${status.nextRunAt}`);
  else {
    const since = running.forMs === null ? "" : `for ${seconds(running.forMs)} (since ${running.startedAt}), `;
    lines.push(`  running now:  ${since}in ${running.owner} (lease until ${running.leaseUntil})`);
  }
  return lines.join("\n");
}

function statusCommand(args: string[]): number {
  const { values } = parseFlags(args, { config: { type: "string" }, json: { type: "boolean" } });
  const feeds = configuredFeeds(values.config);
  const now = Date.now();
  const statuses = feeds.map((feed) => {
    const { run, error } = stateOf(feed);
    return statusJson(feed, run, error, now);
  });
  if (values.json) process.stdout.write(JSON.stringify({ feeds: statuses }) + "\n");
  else
    process.stdout.write(
      statuses.length === 0 ? "no feeds in the config\n" : statuses.map(statusText).join("\n\n") + "\n",
    );
  return statuses.some((status) => status.error !== null) ? 1 : 0;
}

function isBusy(result: RunReport | Busy): result is Busy {
  return "busy" in result;
}

/** Prints one feed's run; true when it succeeded (applied, or nothing to do). */
function reportRun(result: RunReport | Busy, json: boolean): boolean {
  if (json) process.stdout.write(JSON.stringify(result) + "\n");
  if (isBusy(result)) {
    process.stderr.write(
      `partner-api feeds run: ${result.feed}: running in another process (${result.busy.owner}, lease until ${iso(result.busy.until)}); nothing done\n`,
    );
    return false;
  }
  const ok = result.outcome === "success" || result.outcome === "not_modified";
  if (!ok) process.stderr.write(`partner-api feeds run: ${result.feed}: ${result.outcome}: ${result.error}\n`);
  if (json) return ok;
  const head = `${result.feed}: ${result.outcome === "not_modified" ? "not modified since the last success (304): nothing to do" : result.outcome} in ${seconds(result.durationMs)}`;
  process.stdout.write([head, ...(result.summary ? summaryLines(result.summary, "  ") : [])].join("\n") + "\n");
  return ok;
}

/** Aborts on SIGINT / SIGTERM, and once the parent process is gone (a child of `serve`). */
function stopSignal(parent: number | null): AbortSignal {
  const controller = new AbortController();
  const stop = () => controller.abort(new Error("stopped"));
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  if (parent !== null) {
    setInterval(() => {
      if (process.ppid !== parent) stop();
    }, 1_000).unref();
  }
  return controller.signal;
}

async function runCommand(args: string[]): Promise<number> {
  const { values } = parseFlags(args, {
    config: { type: "string" },
    id: { type: "string" },
    json: { type: "boolean" },
  });
  const feeds = configuredFeeds(values.config);
  const chosen = values.id === undefined ? feeds : feeds.filter((feed) => feed.id === values.id);
  if (chosen.length === 0) {
    throw new UsageError(
      values.id === undefined
        ? "the config has no feeds"
        : `no feed "${values.id}" in the config (it has: ${feeds.map((f) => f.id).join(", ") || "none"})`,
    );
  }
  const signal = stopSignal(null);
  let ok = true;
  for (const feed of chosen) {
    if (signal.aborted) break;
    let result: RunReport | Busy;
    try {
      result = await runHere(feed, { owner: leaseOwner(`cli:${feed.id}`), claim: true, signal });
    } catch (error) {
      if (error instanceof NotAPartnerDatabaseError) throw new UsageError(`feed ${feed.id}: ${error.message}`);
      throw error;
    }
    ok = reportRun(result, values.json === true) && ok;
  }
  return ok ? 0 : 1;
}

/** The child process of a scheduled run: the lease is claimed; the report is one JSON line. */
async function runClaimedCommand(): Promise<number> {
  const input = (await new Response(Bun.stdin.stream()).json()) as ChildInput;
  const signal = stopSignal(process.ppid);
  const report = await runHere(input.feed, { owner: input.owner, claim: false, signal });
  process.stdout.write(JSON.stringify(report) + "\n");
  return 0;
}

export async function feedsCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === "status") return statusCommand(rest);
  if (sub === "run") return runCommand(rest);
  if (sub === "run-claimed") return runClaimedCommand();
  throw new UsageError(sub === undefined ? USAGE : `unknown feeds command "${sub}"; ${USAGE}`);
}
