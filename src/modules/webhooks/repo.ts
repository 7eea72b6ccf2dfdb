// SQL of the subscription routes, prepared once per tenant: a client's subscriptions (every
// statement scoped by client, so another client's id is simply not found) and their delivery
// log. Writes run inside the tenant's group-commit writer, on the connection it hands over.
import type { Database, Statement } from "bun:sqlite";
import type { Tenant } from "../../db/tenants.ts";
import { perTenant } from "../../lib/per-tenant.ts";
import type { DeliveryState } from "./model.ts";

export interface SubscriptionRecord {
  id: string;
  client_id: string;
  url: string;
  events: string;
  description: string | null;
  enabled: 0 | 1;
  disabled_reason: string | null;
  secret: string;
  created_at: string;
  updated_at: string;
}

export interface DeliveryRecord {
  id: string;
  type: string;
  sequence: number;
  state: DeliveryState;
  attempts: number;
  last_status: number | null;
  last_error: string | null;
  last_attempt_at: number | null;
  next_attempt_at: number | null;
}

export interface NewSubscription {
  id: string;
  clientId: string;
  url: string;
  events: string;
  description: string | null;
  secret: string;
  createdAt: string;
}

const SUBSCRIPTION =
  "id, client_id, url, events, description, enabled, disabled_reason, secret, created_at, updated_at";
const DELIVERY = "id, type, sequence, state, attempts, last_status, last_error, last_attempt_at, next_attempt_at";

class WriteStatements {
  readonly count: Statement<{ n: number }>;
  readonly insert: Statement<SubscriptionRecord>;
  readonly update: Statement<SubscriptionRecord>;
  readonly rotate: Statement<SubscriptionRecord>;
  readonly remove: Statement;
  readonly replay: Statement<{ replay_until: number }>;

  constructor(db: Database) {
    this.count = db.prepare("SELECT count(*) AS n FROM webhook_subscriptions WHERE client_id = ?");
    this.insert = db.prepare(
      "INSERT INTO webhook_subscriptions (id, client_id, url, events, description, enabled, secret, after_sequence, created_at, updated_at) " +
        `VALUES (?, ?, ?, ?, ?, 1, ?, (SELECT coalesce(max(sequence), 0) FROM changes), ?, ?) RETURNING ${SUBSCRIPTION}`,
    );
    // coalesce keeps what the patch leaves out; enabling clears what the server recorded on disabling.
    this.update = db.prepare(
      "UPDATE webhook_subscriptions SET url = coalesce(?3, url), events = coalesce(?4, events), " +
        "description = CASE WHEN ?5 THEN ?6 ELSE description END, enabled = coalesce(?7, enabled), " +
        "disabled_reason = CASE WHEN ?7 = 1 THEN NULL ELSE disabled_reason END, " +
        "failing_since = CASE WHEN ?7 = 1 THEN NULL ELSE failing_since END, updated_at = ?8 " +
        `WHERE id = ?1 AND client_id = ?2 RETURNING ${SUBSCRIPTION}`,
    );
    this.rotate = db.prepare(
      "UPDATE webhook_subscriptions SET previous_secret = secret, previous_secret_until = ?4, secret = ?3, updated_at = ?5 " +
        `WHERE id = ?1 AND client_id = ?2 RETURNING ${SUBSCRIPTION}`,
    );
    this.remove = db.prepare("DELETE FROM webhook_subscriptions WHERE id = ? AND client_id = ?");
    // Up to the dispatch cursor, or the subscription's start if that is later: what comes after
    // both is dispatched to it anyway.
    this.replay = db.prepare(
      "UPDATE webhook_subscriptions SET replay_after = ?3, " +
        "replay_until = max(after_sequence, (SELECT sequence FROM webhook_cursor WHERE id = 1)) " +
        "WHERE id = ?1 AND client_id = ?2 RETURNING replay_until",
    );
  }
}

export class SubscriptionsRepo {
  private readonly list: Statement<SubscriptionRecord>;
  private readonly total: Statement<{ n: number }>;
  private readonly one: Statement<SubscriptionRecord>;
  private readonly deliveries: Statement<DeliveryRecord>;
  private readonly deliveriesInState: Statement<DeliveryRecord>;
  private readonly deliveryTotal: Statement<{ n: number }>;
  private readonly deliveryTotalInState: Statement<{ n: number }>;
  private readonly delivery: Statement<DeliveryRecord>;
  private writes: WriteStatements | null = null;

  constructor(private readonly tenant: Tenant) {
    const read = tenant.read;
    this.list = read.prepare(
      `SELECT ${SUBSCRIPTION} FROM webhook_subscriptions WHERE client_id = ? ORDER BY created_at, id LIMIT ? OFFSET ?`,
    );
    this.total = read.prepare("SELECT count(*) AS n FROM webhook_subscriptions WHERE client_id = ?");
    this.one = read.prepare(`SELECT ${SUBSCRIPTION} FROM webhook_subscriptions WHERE id = ? AND client_id = ?`);
    // Newest first.
    this.deliveries = read.prepare(
      `SELECT ${DELIVERY} FROM webhook_deliveries WHERE subscription_id = ? ORDER BY n DESC LIMIT ? OFFSET ?`,
    );
    this.deliveriesInState = read.prepare(
      `SELECT ${DELIVERY} FROM webhook_deliveries WHERE subscription_id = ? AND state = ? ORDER BY n DESC LIMIT ? OFFSET ?`,
    );
    this.deliveryTotal = read.prepare("SELECT count(*) AS n FROM webhook_deliveries WHERE subscription_id = ?");
    this.deliveryTotalInState = read.prepare(
      "SELECT count(*) AS n FROM webhook_deliveries WHERE subscription_id = ? AND state = ?",
    );
    this.delivery = read.prepare(`SELECT ${DELIVERY} FROM webhook_deliveries WHERE id = ?`);
  }

  private w(db: Database): WriteStatements {
    if (db !== this.tenant.write) throw new Error("subscription writes go through the tenant's writer");
    this.writes ??= new WriteStatements(db);
    return this.writes;
  }

  page(clientId: string, limit: number, offset: number): { rows: SubscriptionRecord[]; total: number } {
    return this.tenant.read
      .transaction(() => ({ rows: this.list.all(clientId, limit, offset), total: this.total.get(clientId)!.n }))
      .deferred();
  }

  get(id: string, clientId: string): SubscriptionRecord | null {
    return this.one.get(id, clientId);
  }

  deliveryPage(
    subscriptionId: string,
    state: DeliveryState | null,
    limit: number,
    offset: number,
  ): { rows: DeliveryRecord[]; total: number } {
    return this.tenant.read
      .transaction(() =>
        state === null
          ? {
              rows: this.deliveries.all(subscriptionId, limit, offset),
              total: this.deliveryTotal.get(subscriptionId)!.n,
            }
          : {
              rows: this.deliveriesInState.all(subscriptionId, state, limit, offset),
              total: this.deliveryTotalInState.get(subscriptionId, state)!.n,
            },
      )
      .deferred();
  }

  deliveryById(id: string): DeliveryRecord | null {
    return this.delivery.get(id);
  }

  // ---- inside a write ----

  countFor(db: Database, clientId: string): number {
    return this.w(db).count.get(clientId)!.n;
  }

  /** Events from now on are dispatched to it: its start is the log's head when it is created. */
  insert(db: Database, s: NewSubscription): SubscriptionRecord {
    return this.w(db).insert.get(s.id, s.clientId, s.url, s.events, s.description, s.secret, s.createdAt, s.createdAt)!;
  }

  update(
    db: Database,
    id: string,
    clientId: string,
    patch: { url?: string; events?: string; description?: string | null; enabled?: boolean },
    updatedAt: string,
  ): SubscriptionRecord | null {
    const enabled = patch.enabled === undefined ? null : patch.enabled ? 1 : 0;
    const hasDescription = patch.description !== undefined ? 1 : 0;
    return this.w(db).update.get(
      id,
      clientId,
      patch.url ?? null,
      patch.events ?? null,
      hasDescription,
      patch.description ?? null,
      enabled,
      updatedAt,
    );
  }

  rotate(
    db: Database,
    id: string,
    clientId: string,
    secret: string,
    previousUntil: number,
    updatedAt: string,
  ): SubscriptionRecord | null {
    return this.w(db).rotate.get(id, clientId, secret, previousUntil, updatedAt);
  }

  remove(db: Database, id: string, clientId: string): boolean {
    return this.w(db).remove.run(id, clientId).changes === 1;
  }

  /** Starts (or restarts) a replay of the events after `after`; returns its end, or null when not found. */
  startReplay(db: Database, id: string, clientId: string, after: number): number | null {
    return this.w(db).replay.get(id, clientId, after)?.replay_until ?? null;
  }
}

export const subscriptionsRepo = perTenant((tenant) => new SubscriptionsRepo(tenant));
