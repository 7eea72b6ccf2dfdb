// Each scheduled feed run of `serve` happens in a child process of the same binary
// (`partner-api feeds run-claimed`), never on the server's event loop: the download, the XML
// parse and the staging of 100,000 listings are tens of seconds of CPU and a few hundred MB of
// heap, which the child returns to the system when it exits. It runs below the server but
// never starved by it (SCHED_BATCH: background-priority.ts), so on a busy core the
// API comes first and the run still finishes. The feed (headers included: secrets) goes to the child on its standard input, never
// in its arguments or environment; its report comes back as one JSON line on its standard
// output.

import type { RunReport } from "../agency/crm-feeds/run.ts";
import { FeedScheduler, type Launched } from "../agency/crm-feeds/scheduler.ts";
import { lowerToBackground } from "../background-priority.ts";
import type { FeedSpec } from "../config/model.ts";
import { selfCommand } from "../executable.ts";
import type { Logger } from "../logging.ts";
import type { Runtime } from "../runtime.ts";

/** A run asked to stop stops between two chunks of writes (about a quarter of a second apart) or aborts its download; this is ample. */
const STOP_GRACE_MS = 15_000;

/** What the child reads on its standard input. */
export interface ChildInput {
  feed: FeedSpec;
  owner: string;
}

function failedReport(feed: FeedSpec, durationMs: number, why: string): RunReport {
  return { feed: feed.id, outcome: "failed", error: why, summary: null, durationMs, recorded: false };
}

/**
 * Puts the run's process below the server (background-priority.ts), without waiting. What was
 * refused goes to the debug log; the run goes on.
 */
function lowerPriority(pid: number, feed: FeedSpec, logger: Logger): void {
  void lowerToBackground(pid).then((refused) => {
    for (const why of refused) logger.debug({ feed: feed.id, err: why }, "feed run's priority could not be lowered");
  });
}

/** Starts the run of `feed` (its lease held by `owner`) in a child process. The report never rejects. */
export function launchFeedChild(feed: FeedSpec, owner: string, logger: Logger): Launched {
  const started = performance.now();
  const proc = Bun.spawn(selfCommand(["feeds", "run-claimed"]), {
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  });
  lowerPriority(proc.pid, feed, logger);
  proc.stdin.write(JSON.stringify({ feed, owner } satisfies ChildInput));
  void proc.stdin.end();
  const done = (async (): Promise<RunReport> => {
    const [out, err, code] = await Promise.all([
      new Response(proc.stdout).text(),
      new Response(proc.stderr).text(),
      proc.exited,
    ]);
    const elapsed = performance.now() - started;
    const line = out.trim().split("\n").at(-1) ?? "";
    try {
      const report = JSON.parse(line) as RunReport;
      if (typeof report.outcome === "string") return report;
    } catch {
      // No report: the child died before it could write one.
    }
    const said = err.trim().split("\n").at(-1)?.slice(0, 500);
    return failedReport(
      feed,
      elapsed,
      `the run's process ended (${proc.signalCode ?? `exit code ${code}`}) before reporting${said ? `: ${said}` : ""}`,
    );
  })();
  return {
    done,
    stop() {
      proc.kill("SIGTERM");
      setTimeout(() => proc.kill("SIGKILL"), STOP_GRACE_MS).unref();
    },
  };
}

/** The feeds' scheduler of a server: its runs in child processes, its state in the server's databases. */
export function serverFeedScheduler(runtime: Runtime, logger: Logger): FeedScheduler {
  return new FeedScheduler({
    feeds: () => runtime.config.feeds,
    tenant: (path) => runtime.tenants.get(path),
    launch: (feed, owner) => launchFeedChild(feed, owner, logger),
    now: () => runtime.clock.now(),
    logger,
    onReport: (feed, report, startedAt) =>
      runtime.usage?.feedRun({
        feedId: feed.id,
        database: feed.database,
        startedAt,
        ms: Math.round(report.durationMs),
        outcome: report.outcome,
        error: report.error,
        summary: report.summary,
      }),
  });
}
