// Turning the change log into deliveries: a step reads the events after the dispatch cursor,
// makes one delivery per event and subscription that wants it (the record read as that
// subscription's client sees it), and moves the cursor, both in one write. The cursor moves
// only from where the step read it, so when several processes share the file each range of
// the log is dispatched exactly once. Replays walk the log the same way for one subscription.
import type { Database } from "bun:sqlite";
import { numberIn, type Stream } from "../../db/change-streams.ts";
import type { Tenant } from "../../db/tenants.ts";
import { ANONYMIZED_EVENT, type ChangeRow, type EventType, entityOf, eventPayload, eventTypeOf } from "./events.ts";
import type { DeliveryRow, NewDelivery, WebhookRepos } from "./repo.ts";

/** A delivery claimed for an attempt, its body in hand. */
export type ClaimedDelivery = Pick<DeliveryRow, "n" | "id" | "subscription_id" | "type" | "sequence" | "attempts"> & {
  payload: string;
};

/** Events read per step: a step's record reads and inserts run on the event loop, so it stays short. */
export const DISPATCH_BATCH = 100;

/**
 * The JSON text of a record exactly as `GET /v1/{entity}/{id}` with every field answers
 * `clientId` (its `data`), or null when that client cannot see it.
 */
export type RecordReader = (
  tenant: Tenant,
  clientId: string,
  entity: "properties" | "leads",
  id: string,
) => string | null;

/** A subscription events are dispatched to now. */
export interface DispatchTarget {
  id: string;
  clientId: string;
  events: ReadonlySet<EventType>;
  afterSequence: number;
}

/**
 * The stream of an entity's changes a client reads, by its scopes now, or null when it may not
 * be told of that entity's events at all: a client that reads no lead (or no property) is sent
 * none of their events, removals included. An event is sent numbered in that stream (its
 * `data.sequence`), and one outside it (another owner's lead) is not sent.
 */
export type StreamAccess = (clientId: string, entity: "properties" | "leads") => Stream | null;

export interface DispatchDeps {
  tenant: Tenant;
  /** The last sequence known to be on disk: events after it are not sent yet (Tenant.onDisk). */
  onDiskThrough: number;
  repos: WebhookRepos;
  records: RecordReader;
  streams: StreamAccess;
  now: () => number;
  newId: () => string;
}

/**
 * The body of one event as one client sees it, `sequence` being its number in that client's
 * stream (the caller has found the client may read the entity): with its record read by
 * `readRecord`, `null` for property.removed and webhook.test; null when the client cannot see
 * the record (another partner's lead, or gone already). `lead.anonymized` goes to a client that
 * reads the lead (`readable`, with it) and to one that was sent it before (`told`), with the lead
 * if it may still read it, else with `record` null.
 */
function eventBody(
  type: EventType,
  eventAt: string,
  sequence: number,
  recordId: string,
  readRecord: (entity: "properties" | "leads") => string | null,
  told = false,
  readable = true,
): string | null {
  if (type === ANONYMIZED_EVENT) {
    const record = readable ? readRecord("leads") : null;
    if (record === null && !told) return null;
    return eventPayload(type, eventAt, sequence, recordId, record ?? "null");
  }
  const entity = entityOf(type);
  if (entity === null || type === "property.removed") return eventPayload(type, eventAt, sequence, recordId, "null");
  const record = readRecord(entity);
  return record === null ? null : eventPayload(type, eventAt, sequence, recordId, record);
}

/**
 * Deliveries for `changes`, one per change and target that wants it, numbered in the stream
 * the target's client reads; with `from` (a replay), only those numbered after it there.
 */
function deliveriesFor(
  changes: readonly ChangeRow[],
  targets: readonly DispatchTarget[],
  deps: DispatchDeps,
  from: number | null = null,
): NewDelivery[] {
  const deliveries: NewDelivery[] = [];
  // Several subscriptions of one client share each record read.
  const records = new Map<string, string | null>();
  for (const change of changes) {
    const type = eventTypeOf(change);
    if (type === null) continue;
    // An anonymization's entry names the clients that were sent the lead (admin/privacy/repo.ts).
    const told = change.notify === null ? [] : (JSON.parse(change.notify) as string[]);
    for (const target of targets) {
      if (change.sequence <= target.afterSequence) continue;
      if (type !== ANONYMIZED_EVENT && !target.events.has(type)) continue;
      const stream = deps.streams(target.clientId, change.entity);
      // Not in a stream the client reads (another owner's lead): nothing of it is sent, not its number.
      const number = stream === null ? null : numberIn(stream, change);
      // Except the anonymization of a lead the client was sent before it could no longer read it:
      // it is told, numbered 0 (in no stream of its own, so no number of another's).
      const wasSent = type === ANONYMIZED_EVENT && told.includes(target.clientId);
      if (number === null && !wasSent) continue;
      if (from !== null && (number === null || number <= from)) continue;
      const readRecord = (entity: "properties" | "leads") => {
        const key = `${target.clientId}\0${entity}\0${change.record_id}`;
        let found = records.get(key);
        if (found === undefined) {
          found = deps.records(deps.tenant, target.clientId, entity, change.record_id);
          records.set(key, found);
        }
        return found;
      };
      const payload = eventBody(type, change.at, number ?? 0, change.record_id, readRecord, wasSent, number !== null);
      // Not for this client, or gone already: an unpublished property's removal follows in the
      // log; a deleted lead has no event.
      if (payload === null) continue;
      deliveries.push({
        id: deps.newId(),
        subscriptionId: target.id,
        type,
        sequence: number ?? 0,
        recordId: change.record_id,
        eventAt: change.at,
        payload,
      });
    }
  }
  return deliveries;
}

/**
 * The body of a claimed delivery stored without one (its first attempt's process died: see
 * DeliveriesRepo.insert), made again from its event with the record as `clientId` sees it now;
 * null when that cannot be done (the record is gone). Same webhook-id, same event and
 * sequence; the record is the newer one if it changed meanwhile, which `data.sequence` lets a
 * receiver tell (docs/reference/behaviour-extensions.md §13: order is not promised).
 */
export function rebuiltPayload(
  deps: Pick<DispatchDeps, "tenant" | "records" | "streams">,
  clientId: string,
  stored: Pick<DeliveryRow, "type" | "sequence" | "record_id" | "event_at">,
): string | null {
  const { type, sequence, record_id: recordId, event_at: eventAt } = stored;
  if (recordId === null || eventAt === null) return null;
  const entity = entityOf(type);
  const readable = entity === null || deps.streams(clientId, entity) !== null;
  // lead.anonymized was made for this client when its event was dispatched: it was among those to tell.
  if (!readable && type !== ANONYMIZED_EVENT) return null;
  return eventBody(
    type,
    eventAt,
    sequence,
    recordId,
    (entity) => deps.records(deps.tenant, clientId, entity, recordId),
    true,
    readable,
  );
}

/**
 * Whether the writing process takes a new delivery of this subscription for an attempt at
 * once (a free slot), and under which lease: the delivery is then stored already claimed.
 */
export type Take = (subscriptionId: string) => { owner: string; until: number } | null;

/**
 * A step, read now and written later inside the worker's one write of a pass. `write`
 * returns the deliveries it stored already claimed (see Take), or null when it did not apply
 * (another process moved the cursor first). `more`: the step did not reach the end, another
 * should follow at once.
 */
export interface DispatchWrite {
  write(db: Database, take: Take): ClaimedDelivery[] | null;
  more: boolean;
}

function writing(
  deliveries: readonly NewDelivery[],
  deps: DispatchDeps,
  move: (db: Database) => boolean,
  more: boolean,
): DispatchWrite {
  return {
    more,
    write(db, take) {
      if (!move(db)) return null;
      const now = deps.now();
      const claimed: ClaimedDelivery[] = [];
      for (const delivery of deliveries) {
        const lease = take(delivery.subscriptionId) ?? undefined;
        const n = deps.repos.deliveries.insert(db, delivery, now, lease);
        if (lease !== undefined)
          claimed.push({ ...delivery, n, subscription_id: delivery.subscriptionId, attempts: 1 });
      }
      return claimed;
    },
  };
}

/**
 * The next step of the shared cursor, at most `limit` events, or null when there is nothing
 * after it (or `limit` is 0). Skipping events no target wants is never limited.
 */
export function dispatchStep(
  deps: DispatchDeps,
  targets: readonly DispatchTarget[],
  limit = DISPATCH_BATCH,
): DispatchWrite | null {
  const { cursor } = deps.repos;
  const from = cursor.position();
  if (targets.length === 0) {
    // Nothing wants the events: the cursor jumps to the head, so compaction is not held back.
    const head = cursor.head();
    return head <= from ? null : writing([], deps, (db) => cursor.advance(db, from, head), false);
  }
  // Events no subscription was there for are skipped in one move (a seeded or imported backlog).
  const floor = Math.min(...targets.map((t) => t.afterSequence));
  if (from < floor) return writing([], deps, (db) => cursor.advance(db, from, floor), true);
  if (limit <= 0 || deps.onDiskThrough <= from) return null;
  const changes = cursor.changesBetween(from, deps.onDiskThrough, limit);
  if (changes.length === 0) return null;
  const to = changes[changes.length - 1]!.sequence;
  return writing(
    deliveriesFor(changes, targets, deps),
    deps,
    (db) => cursor.advance(db, from, to),
    changes.length === limit,
  );
}

/**
 * The next step of a subscription's replay of the log's (after, until], or null while the rest
 * of it is not on disk yet (the sync that brings it asks for the next pass). `from`: only the
 * events numbered after it in the client's streams are sent again (null: every one).
 */
export function replayStep(
  deps: DispatchDeps,
  target: DispatchTarget,
  after: number,
  until: number,
  from: number | null = null,
): DispatchWrite | null {
  const { cursor, subscriptions } = deps.repos;
  const upTo = Math.min(until, deps.onDiskThrough);
  if (upTo <= after) return null;
  const changes = cursor.changesBetween(after, upTo, DISPATCH_BATCH);
  const to = changes.length < DISPATCH_BATCH ? upTo : changes[changes.length - 1]!.sequence;
  // A replay sends again what the subscription was sent before: its start does not apply.
  const deliveries = deliveriesFor(changes, [{ ...target, afterSequence: 0 }], deps, from);
  return writing(deliveries, deps, (db) => subscriptions.advanceReplay(db, target.id, after, to, until), to < upTo);
}
