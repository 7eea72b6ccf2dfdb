// The delivery worker's pass loop: on each pass, for every database, it records the outcomes of
// the attempts that ended (outcome.ts), turns new events into deliveries (dispatch.ts) as fast
// as they can start, moves replays on, claims the deliveries that are due and sends them
// (send.ts), as many as the subscription's free slots allow (slots.ts), so a receiver that hangs
// holds only its own share. Every state lives in the database: claims are leases, so several
// processes can share the work and a killed one leaves nothing behind but leases that run out.
// Attempts are async I/O; what runs on the event loop is a few short queries.

import type { Database } from "bun:sqlite";
import { hostname } from "node:os";
import type { Clock } from "../../clock.ts";
import type { WebhookTargetPolicy } from "../../config/model.ts";
import type { Tenant } from "../../db/tenants.ts";
import { memo } from "../../lib/memo.ts";
import {
  type ClaimedDelivery,
  DISPATCH_BATCH,
  type DispatchDeps,
  type DispatchTarget,
  type DispatchWrite,
  dispatchStep,
  type RecordReader,
  rebuiltPayload,
  replayStep,
  type StreamAccess,
} from "./dispatch.ts";
import { ANONYMIZED_EVENT, type EventType, entityOf, eventPayload, TEST_EVENT } from "./events.ts";
import type { FinalState, WebhookMetrics } from "./metrics.ts";
import { type Ended, isEventType, outcomeKind, recordOutcome, recordTestOutcome, typeOf } from "./outcome.ts";
import { type SubscriptionRow, type WebhookRepos, webhookRepos } from "./repo.ts";
import type { Random } from "./schedule.ts";
import { ATTEMPT_TIMEOUT_MS, type Outcome, type SendOptions, sendMessage } from "./send.ts";
import { SlotPool } from "./slots.ts";
import { type ResolvedTarget, resolveTarget } from "./targets.ts";

/** A claimed delivery is someone's for this long: the attempt's 10 s and ample margin to record it. */
export const LEASE_MS = ATTEMPT_TIMEOUT_MS + 10_000;
/** An idle worker looks for new events and due retries this often. */
export const TICK_MS = 50;
/** Finished deliveries stay in the log this long. */
export const LOG_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;
const PRUNE_EVERY_MS = 10 * 60 * 1000;
const PRUNE_BATCH = 1_000;
/** The longest new events wait for a subscription whose slots are all taken (see dispatchRoom). */
const DISPATCH_WAIT_MS = TICK_MS;
/**
 * The longest a test event waits for a slot of its subscription. Its attempt may then take its
 * own 10 s: both stay within the server's 30 s idle timeout (cli/server.ts), past which Bun
 * closes a connection that got no answer at all.
 */
export const TEST_SLOT_WAIT_MS = 15_000;
/** Passes of one run while dispatch or a replay has more to do; the loop comes back at once after. */
const PASSES_PER_RUN = 10;

export interface WorkerDeps {
  /** The databases to work on (each configured one that opens). */
  tenants: () => Tenant[];
  /** Whether a subscription's client may receive now: it exists, is enabled and still reads this database. */
  clientActive: (clientId: string, tenant: Tenant) => boolean;
  policy: () => WebhookTargetPolicy;
  records: RecordReader;
  streams: StreamAccess;
  clock: Clock;
  random: Random;
  send: SendOptions;
  metrics: WebhookMetrics;
  onError: (error: unknown, what: string) => void;
  /** How long a test event waits for a slot (default TEST_SLOT_WAIT_MS); tests shorten it. */
  testSlotWaitMs?: number;
  /** Told of each attempt, for the agency's delivery log (docs/operators/console.md#webhook-deliveries). */
  onAttempt?: (attempt: {
    tenant: Tenant;
    subscriptionId: string;
    deliveryId: string;
    at: number;
    outcome: Outcome;
  }) => void;
}

/** The result of a test event, for POST /v1/webhooks/{id}/test. */
export interface TestResult {
  deliveryId: string;
  outcome: Outcome;
}

/** The secrets that sign a delivery now: the current one, and the one before it for 24 h after a rotation. */
export function secretsInForce(
  subscription: Pick<SubscriptionRow, "secret" | "previous_secret" | "previous_secret_until">,
  now: number,
): string[] {
  const { secret, previous_secret: previous, previous_secret_until: until } = subscription;
  return previous !== null && until !== null && until > now ? [secret, previous] : [secret];
}

export class WebhookWorker {
  /** Names this process's claims; unique per worker, so a restarted process never mistakes old leases for its own. */
  readonly owner = `${hostname()}:${process.pid}:${crypto.randomUUID().slice(0, 8)}`;
  /** The slots of this process's attempts; test events wait in it for one of their subscription's. */
  readonly slots = new SlotPool();
  private readonly attempts = new Set<Promise<void>>();
  /** Attempts that ended since the last pass, per database: the next pass records them. */
  private readonly ended = new Map<Tenant, Ended[]>();
  /** The next pass, when one is scheduled: cancels it. */
  private scheduled: (() => void) | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  /** Passes run on their own between start() and stop(); runOnce() works either way. */
  private looping = false;
  /** Once stopping, nothing new is claimed. */
  private stopping = false;
  private readonly prunedAt = new WeakMap<Tenant, number>();
  /** Since when (performance.now()) new events have waited for a subscription's free slot, per database. */
  private readonly dispatchWaitingSince = new WeakMap<Tenant, number>();
  /**
   * Databases whose last pass left a subscription with no free slot: there, an attempt that
   * ends frees a slot that work may be waiting for, so it asks for a pass at once. Elsewhere
   * its outcome waits for the next tick's pass, which records it with whatever else is due:
   * one commit on the event loop instead of one per handful of attempts.
   */
  private readonly outOfSlots = new WeakSet<Tenant>();

  constructor(private readonly deps: WorkerDeps) {}

  start(): void {
    this.looping = true;
    this.stopping = false;
    this.kick();
  }

  /** Stops claiming; waits for attempts under way (each ends within its timeout) and records them. */
  async stop(): Promise<void> {
    this.looping = false;
    this.stopping = true;
    this.unschedule();
    await this.running;
    await this.idle();
    await this.runOnce();
  }

  /** Resolves once no attempt is under way. */
  async idle(): Promise<void> {
    while (this.attempts.size > 0) await Promise.all([...this.attempts]);
  }

  /** Attempts that ended and that the next pass will record. */
  unrecorded(): number {
    let n = 0;
    for (const ended of this.ended.values()) n += ended.length;
    return n;
  }

  /** Asks for a pass as soon as possible (new capacity, a new subscription…). */
  kick(): void {
    if (!this.looping) return;
    this.again = true;
    if (this.running !== null) return;
    this.schedule(0);
  }

  /**
   * Runs the next pass after `delayMs`; at 0, right after this turn's I/O (setImmediate: a
   * setTimeout of 0 waits a millisecond, and under a backlog every attempt of a pass can end
   * within it, leaving the core idle between passes).
   */
  private schedule(delayMs: number): void {
    this.unschedule();
    if (delayMs === 0) {
      const immediate = setImmediate(() => this.loop());
      this.scheduled = () => clearImmediate(immediate);
    } else {
      const timer = setTimeout(() => this.loop(), delayMs);
      timer.unref?.();
      this.scheduled = () => clearTimeout(timer);
    }
  }

  private unschedule(): void {
    this.scheduled?.();
    this.scheduled = null;
  }

  private loop(): void {
    this.scheduled = null;
    if (!this.looping || this.running !== null) return;
    this.again = false;
    this.running = this.runOnce()
      .then((more) => void (this.again ||= more))
      .catch((error) => this.deps.onError(error, "webhook pass"))
      .finally(() => {
        this.running = null;
        if (this.looping) this.schedule(this.again ? 0 : TICK_MS);
      });
  }

  /**
   * A pass over every database (dispatch, replays, outcomes, claims), repeated while a step
   * left more to do, a few times at most; true when some is still left. Attempts it starts
   * run on after it returns.
   */
  async runOnce(): Promise<boolean> {
    let more = false;
    for (const tenant of this.deps.tenants()) {
      try {
        let left = true;
        for (let pass = 0; pass < PASSES_PER_RUN && left; pass++) left = await this.pass(tenant);
        more ||= left;
      } catch (error) {
        this.deps.onError(error, `webhook pass on ${tenant.path}`);
      }
    }
    return more;
  }

  /**
   * An event is sent only once it is on disk (Tenant.onDisk): with subscriptions to send to,
   * events newer than that wait for the sync asked for here, which asks for a pass when it
   * returns. Without any, nothing is sent, so no sync is asked for.
   */
  private dispatchDeps(tenant: Tenant, repos: WebhookRepos, sending: boolean): DispatchDeps {
    const onDisk = sending ? tenant.onDisk(repos.cursor.head()) : null;
    if (onDisk !== null)
      void onDisk.then(
        () => this.kick(),
        (error) => this.deps.onError(error, `WAL sync of ${tenant.path}`),
      );
    return {
      tenant,
      onDiskThrough: tenant.onDiskThrough(),
      repos,
      records: this.deps.records,
      streams: this.deps.streams,
      now: () => this.deps.clock.now(),
      newId: newDeliveryId,
    };
  }

  /**
   * One pass over a database, written in one transaction: the outcomes of the attempts that
   * ended since the last pass, the claims of due deliveries that fit in the free slots (the
   * longest waiting first), then a dispatch step (sized by dispatchRoom) and a step of each
   * replay, whose new deliveries take the slots still free already claimed. True when a step
   * left more to do.
   *
   * It is committed as bookkeeping (group-commit.ts), without an fsync of its own: a killed
   * process keeps all of it, and a power cut can only take back what was not synced yet
   * (usually its last 100 ms), which the restart redoes (deliveries sent again; those
   * dispatched in that window under new ids).
   */
  private async pass(tenant: Tenant): Promise<boolean> {
    const repos = webhookRepos(tenant);
    const active = repos.subscriptions
      .all()
      .filter((s) => s.enabled === 1 && this.deps.clientActive(s.client_id, tenant));
    const dispatch = this.dispatchDeps(tenant, repos, active.length > 0);
    // Slots are held from now, so the claims of one pass never exceed the bounds together.
    const slots = this.stopping
      ? []
      : active.map((s) => ({ subscription: s, n: this.slots.holdSpare(s.id), due: this.mayBeDue(repos, s.id) }));
    const spare = slots.filter((c) => c.n > 0);
    const room = this.dispatchRoom(tenant, slots);
    const steps: DispatchWrite[] = [];
    const step = dispatchStep(dispatch, active.map(targetOf), room);
    if (step !== null) steps.push(step);
    for (const s of active) {
      const replay =
        s.replay_after !== null && s.replay_until !== null
          ? replayStep(dispatch, targetOf(s), s.replay_after, s.replay_until, s.replay_from)
          : null;
      if (replay !== null) steps.push(replay);
    }
    const outcomes = this.ended.get(tenant) ?? [];
    this.ended.delete(tenant);
    if (steps.length === 0 && outcomes.length === 0 && spare.every((c) => !c.due)) {
      for (const c of spare) this.slots.release(c.subscription.id, c.n);
      this.noteSlots(tenant, slots.length > spare.length);
      return false;
    }
    const now = this.deps.clock.now();
    let result: { claimed: Map<string, ClaimedDelivery[]>; finished: [EventType, FinalState][]; deferred: boolean };
    try {
      result = await tenant.writer.submit((db) => {
        const disabled = new Set<string>();
        const finished = outcomes.flatMap((o) => recordOutcome(db, repos, o, this.owner, this.deps.random, disabled));
        // Only where something may be due: under a backlog every delivery is stored already
        // claimed, so there is nothing to claim, pass after pass.
        const claimed = new Map(
          spare.map((c) => [
            c.subscription.id,
            c.due ? this.claim(db, dispatch, c.subscription, now, c.n, finished) : [],
          ]),
        );
        const free = new Map(spare.map((c) => [c.subscription.id, c.n - claimed.get(c.subscription.id)!.length]));
        const lease = { owner: this.owner, until: now + LEASE_MS };
        const take = (id: string) => ((free.get(id) ?? 0) > 0 ? (free.set(id, free.get(id)! - 1), lease) : null);
        // A subscription disabled just now must get nothing more: the steps, read before, are
        // left to the next pass, which reads the log again with what is active then.
        const written = disabled.size === 0 ? steps : [];
        for (const step of written)
          for (const delivery of step.write(db, take) ?? []) claimed.get(delivery.subscription_id)!.push(delivery);
        return { claimed, finished, deferred: written !== steps && steps.length > 0 };
      }, "bookkeeping");
    } catch (error) {
      // Nothing of the pass was kept: the outcomes wait for the next one, the slots are free again.
      for (const c of spare) this.slots.release(c.subscription.id, c.n);
      this.ended.set(tenant, [...outcomes, ...(this.ended.get(tenant) ?? [])]);
      throw error;
    }
    for (const [type, state] of result.finished) this.deps.metrics.delivered(type, state);
    let full = slots.length > spare.length;
    for (const { subscription, n } of spare) {
      const deliveries = result.claimed.get(subscription.id)!;
      full ||= deliveries.length === n;
      this.slots.release(subscription.id, n - deliveries.length);
      for (const delivery of deliveries) this.track(this.attempt(tenant, subscription, delivery));
    }
    this.noteSlots(tenant, full);
    await this.prune(tenant, repos);
    return result.deferred || steps.some((s) => s.more);
  }

  /**
   * How many new events to turn into deliveries now. Only as many as every subscription that
   * is keeping up can start at once: each delivery is then stored already claimed, where one
   * stored to wait would be written a second time by its claim (a fifth of the worker's time
   * under a backlog). Meanwhile the events wait in the log, as safe there as deliveries, and
   * counted by the oldest-pending gauge. A subscription that is behind (deliveries due and
   * unclaimed) does not hold the others back, and one whose slots stay full (a receiver that
   * hangs) holds them back for DISPATCH_WAIT_MS at most: then the others' room is used, and the
   * full one gets deliveries to wait for it, so it is behind from then on.
   */
  private dispatchRoom(tenant: Tenant, slots: readonly { n: number; due: boolean }[]): number {
    const keepingUp = slots.filter((c) => !c.due).map((c) => c.n);
    let room = keepingUp.length === 0 ? 0 : Math.min(...keepingUp);
    if (room === 0 && keepingUp.some((n) => n > 0)) {
      // Real time, not the injected clock: a bound on waiting, whatever day the clock says it is.
      const since = this.dispatchWaitingSince.get(tenant) ?? performance.now();
      this.dispatchWaitingSince.set(tenant, since);
      if (performance.now() - since >= DISPATCH_WAIT_MS) room = Math.max(...keepingUp);
    }
    if (room > 0) this.dispatchWaitingSince.delete(tenant);
    return Math.min(room, DISPATCH_BATCH);
  }

  private noteSlots(tenant: Tenant, full: boolean): void {
    if (full) this.outOfSlots.add(tenant);
    else this.outOfSlots.delete(tenant);
  }

  /**
   * Claims up to `limit` due deliveries of a subscription (inside the pass's write). One whose
   * body was never stored (its first attempt's process died) gets it made again; one whose
   * record is gone by now, or that its client may no longer read, fails, with the reason, and
   * is added to `finished`.
   */
  private claim(
    db: Database,
    deps: DispatchDeps,
    subscription: SubscriptionRow,
    now: number,
    limit: number,
    finished: [EventType, FinalState][],
  ): ClaimedDelivery[] {
    const claimed: ClaimedDelivery[] = [];
    const { deliveries } = deps.repos;
    for (const stored of deliveries.claim(db, subscription.id, this.owner, now, now + LEASE_MS, limit)) {
      // A retry goes out only while the client may still read the entity (scopes change at reload).
      const entity = entityOf(stored.type);
      // lead.anonymized carries nothing of the person and goes to whoever was sent the lead.
      const readable =
        entity === null || stored.type === ANONYMIZED_EVENT || deps.streams(subscription.client_id, entity) !== null;
      const payload = readable ? (stored.payload ?? rebuiltPayload(deps, subscription.client_id, stored)) : null;
      if (payload !== null) {
        claimed.push({ ...stored, payload });
        continue;
      }
      const attempt = {
        status: null,
        error: "not sent again: the record is no longer visible to this client",
        at: now,
      };
      if (deliveries.fail(db, stored.n, this.owner, attempt)) finished.push([stored.type, "failed"]);
    }
    return claimed;
  }

  /** Whether a subscription may have a delivery due now (a read, to spare a write when nothing is). */
  private mayBeDue(repos: WebhookRepos, subscriptionId: string): boolean {
    const due = repos.deliveries.nextDue(subscriptionId);
    return due !== null && due <= this.deps.clock.now();
  }

  private track(attempt: Promise<void>): void {
    this.attempts.add(attempt);
    void attempt.finally(() => this.attempts.delete(attempt));
  }

  /**
   * Sends one claimed delivery. Its outcome is recorded by the next pass, with the others that
   * ended meanwhile: a process killed before then leaves the delivery leased, to be sent again
   * with the same webhook-id when the lease ends (at least once).
   */
  private async attempt(tenant: Tenant, subscription: SubscriptionRow, delivery: ClaimedDelivery): Promise<void> {
    try {
      const outcome = await this.send(subscription, delivery.id, delivery.payload);
      this.deps.metrics.attempt(typeOf(delivery), outcomeKind(outcome), outcome.durationMs);
      this.deps.onAttempt?.({
        tenant,
        subscriptionId: subscription.id,
        deliveryId: delivery.id,
        at: this.deps.clock.now(),
        outcome,
      });
      const ended = this.ended.get(tenant) ?? [];
      ended.push({ subscriptionId: subscription.id, delivery, outcome, at: this.deps.clock.now() });
      this.ended.set(tenant, ended);
    } catch (error) {
      this.deps.onError(error, "webhook attempt");
    } finally {
      this.slots.release(subscription.id, 1);
      if (this.outOfSlots.has(tenant)) this.kick();
    }
  }

  private send(subscription: SubscriptionRow, id: string, payload: string): Promise<Outcome> {
    const now = this.deps.clock.now();
    const message = { id, payload, secrets: secretsInForce(subscription, now) };
    return sendMessage(subscription.url, this.deps.policy(), message, Math.floor(now / 1000), this.deps.send);
  }

  /** The target rules that need DNS, exactly as the next attempt will apply them. */
  resolveTarget(url: URL): Promise<ResolvedTarget> {
    return resolveTarget(url, this.deps.policy(), this.deps.send.resolve);
  }

  /**
   * Sends a webhook.test event to a subscription, whatever its state, and records it in its log
   * (one attempt, no retry). It takes one of the subscription's slots like every delivery, so
   * a receiver that never answers holds its own subscription's PER_SUBSCRIPTION attempts at
   * most, and a flood of test calls waits for them rather than delaying other subscriptions.
   * The delivery is written once the slot is held: its lease starts when its attempt does.
   * "busy": no slot freed within TEST_SLOT_WAIT_MS, nothing was sent.
   */
  async sendTest(tenant: Tenant, subscriptionId: string): Promise<TestResult | null | "busy"> {
    const repos = webhookRepos(tenant);
    if (repos.subscriptions.get(subscriptionId) === null) return null;
    if (!(await this.slots.take(subscriptionId, this.deps.testSlotWaitMs ?? TEST_SLOT_WAIT_MS))) return "busy";
    const attempt = this.testAttempt(tenant, repos, subscriptionId);
    this.track(
      attempt.then(
        () => undefined,
        () => undefined,
      ),
    );
    try {
      return await attempt;
    } finally {
      this.slots.release(subscriptionId, 1);
    }
  }

  private async testAttempt(tenant: Tenant, repos: WebhookRepos, subscriptionId: string): Promise<TestResult | null> {
    const { deliveries } = repos;
    // Read again: it may have changed, or gone, while the call waited for its slot.
    const subscription = repos.subscriptions.get(subscriptionId);
    if (subscription === null) return null;
    const now = this.deps.clock.now();
    const id = newDeliveryId();
    const eventAt = new Date(now).toISOString();
    const payload = eventPayload(TEST_EVENT, eventAt, 0, subscription.id, "null");
    const delivery = { id, subscriptionId, type: TEST_EVENT, sequence: 0, recordId: subscription.id, eventAt, payload };
    const n = await tenant.writer.submit((db) =>
      deliveries.insert(db, delivery, now, { owner: this.owner, until: now + LEASE_MS }),
    );
    const outcome = await this.send(subscription, id, payload);
    this.deps.metrics.attempt(TEST_EVENT, outcomeKind(outcome), outcome.durationMs);
    this.deps.onAttempt?.({
      tenant,
      subscriptionId: subscription.id,
      deliveryId: id,
      at: this.deps.clock.now(),
      outcome,
    });
    const at = this.deps.clock.now();
    const disabled = await tenant.writer.submit((db) =>
      recordTestOutcome(db, repos, n, subscription.id, outcome, this.owner, at),
    );
    this.deps.metrics.delivered(TEST_EVENT, outcome.ok ? "succeeded" : "failed");
    for (const type of disabled ?? []) this.deps.metrics.delivered(type, "failed");
    return { deliveryId: id, outcome };
  }

  /** Deletes finished deliveries past the log's retention, a batch at a time. */
  private async prune(tenant: Tenant, repos: WebhookRepos): Promise<void> {
    const now = this.deps.clock.now();
    if (now - (this.prunedAt.get(tenant) ?? -Infinity) < PRUNE_EVERY_MS) return;
    this.prunedAt.set(tenant, now);
    await tenant.writer.submit((db) => repos.deliveries.prune(db, now - LOG_RETENTION_MS, PRUNE_BATCH), "bookkeeping");
  }
}

/** A subscription's event list as a set, by its JSON text: every pass asks for each. */
const eventSet = memo((json): ReadonlySet<EventType> => new Set((JSON.parse(json) as unknown[]).filter(isEventType)));

function targetOf(subscription: SubscriptionRow): DispatchTarget {
  return {
    id: subscription.id,
    clientId: subscription.client_id,
    events: eventSet(subscription.events),
    afterSequence: subscription.after_sequence,
  };
}

/** A webhook-id: `msg_` and a time-ordered UUID, the same on every attempt of the delivery. */
export function newDeliveryId(): string {
  return `msg_${Bun.randomUUIDv7()}`;
}
