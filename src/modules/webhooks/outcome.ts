// What an attempt's outcome does to its delivery and subscription: success, a retry on the
// schedule, or failure for good; a 410 Gone disables the subscription at once, and so do three
// days of nothing but failures (docs/reference/behaviour-extensions.md §13). Every function
// here runs inside a write of the worker.
import type { Database } from "bun:sqlite";
import type { ClaimedDelivery } from "./dispatch.ts";
import { EVENT_TYPES, type EventType, TEST_EVENT } from "./events.ts";
import type { AttemptOutcome, FinalState } from "./metrics.ts";
import type { WebhookRepos } from "./repo.ts";
import { nextAttemptAt, type Random } from "./schedule.ts";
import type { Outcome } from "./send.ts";

/** A subscription whose every attempt failed for this long is disabled. */
export const DISABLE_AFTER_FAILING_MS = 3 * 24 * 60 * 60 * 1000;

/** An attempt that ended, waiting for the next pass to record it. */
export interface Ended {
  subscriptionId: string;
  delivery: ClaimedDelivery;
  outcome: Outcome;
  at: number;
}

export function isEventType(value: unknown): value is EventType {
  return (EVENT_TYPES as readonly unknown[]).includes(value);
}

/** A delivery's event type as the metrics name it (a stored type this build does not know counts as a test). */
export function typeOf(delivery: Pick<ClaimedDelivery, "type">): EventType {
  return isEventType(delivery.type) ? delivery.type : TEST_EVENT;
}

/** How an attempt ended, as /metrics counts it. */
export function outcomeKind(outcome: Outcome): AttemptOutcome {
  if (outcome.ok) return "success";
  if (outcome.status !== null) return "http_error";
  if (outcome.error?.startsWith("target refused")) return "target_refused";
  return outcome.error?.startsWith("no answer") ? "timeout" : "network_error";
}

const iso = (ms: number) => new Date(ms).toISOString();

/** Why a subscription was disabled by its endpoint. */
export function goneReason(at: number): string {
  return `the endpoint answered 410 Gone at ${iso(at)}`;
}

/**
 * Disables a subscription the server gave up on and fails what it had pending; returns the
 * types of the deliveries failed so, or null when it was not enabled.
 */
export function disable(db: Database, repos: WebhookRepos, subscriptionId: string, reason: string, now: number) {
  if (!repos.subscriptions.disable(db, subscriptionId, reason, now)) return null;
  return repos.deliveries.failPending(db, subscriptionId, `not sent: the subscription was disabled (${reason})`);
}

/**
 * Stores an attempt's outcome, under the lease of `owner`. Adds to `disabled` the subscription
 * it disabled; returns the deliveries that reached a final state.
 */
export function recordOutcome(
  db: Database,
  repos: WebhookRepos,
  ended: Ended,
  owner: string,
  random: Random,
  disabled: Set<string>,
): [EventType, FinalState][] {
  const { subscriptions, deliveries } = repos;
  const { subscriptionId, delivery, outcome, at } = ended;
  const type = typeOf(delivery);
  const attempt = { status: outcome.status, error: outcome.error, at };
  if (outcome.ok) {
    subscriptions.clearFailing(db, subscriptionId);
    return deliveries.succeed(db, delivery.n, owner, attempt) ? [[type, "succeeded"]] : [];
  }
  const next = outcome.status === 410 ? null : nextAttemptAt(at, delivery.attempts, random);
  const finished: [EventType, FinalState][] = [];
  if (
    next === null
      ? deliveries.fail(db, delivery.n, owner, attempt)
      : deliveries.retry(db, delivery.n, owner, attempt, next, delivery.payload)
  ) {
    if (next === null) finished.push([type, "failed"]);
  }
  let reason: string | null = null;
  if (outcome.status === 410) {
    reason = goneReason(at);
  } else {
    const since = subscriptions.markFailing(db, subscriptionId, at);
    if (since !== null && at - since >= DISABLE_AFTER_FAILING_MS)
      reason = `every delivery failed for 3 days (since ${iso(since)})`;
  }
  if (reason !== null) {
    const failed = disable(db, repos, subscriptionId, reason, at);
    if (failed !== null) disabled.add(subscriptionId);
    for (const failedType of failed ?? []) finished.push([failedType, "failed"]);
  }
  return finished;
}

/**
 * Stores a test event's one attempt (no retry): succeeded or failed; a 410 disables the
 * subscription as on any other event. Returns the types of the deliveries that disabling failed.
 */
export function recordTestOutcome(
  db: Database,
  repos: WebhookRepos,
  n: number,
  subscriptionId: string,
  outcome: Outcome,
  owner: string,
  at: number,
): EventType[] | null {
  const attempt = { status: outcome.status, error: outcome.error, at };
  if (outcome.ok) repos.deliveries.succeed(db, n, owner, attempt);
  else repos.deliveries.fail(db, n, owner, attempt);
  return outcome.status === 410 ? disable(db, repos, subscriptionId, goneReason(at), at) : null;
}
