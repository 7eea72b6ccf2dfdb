// Webhook deliveries as the agency sees them (docs/operators/console.md#webhook-deliveries):
// every subscription of its databases, each delivery with every attempt (status, latency, the
// first KiB of the answer), the next retry; "send again" for one delivery or for every failed
// one since a time; a subscription disabled or enabled again. A delivery sent again goes back
// to the delivery worker as a pending one, its body made anew from the record as it is now.

import { UsageStore } from "../../db/control/usage.ts";
import type { Tenant } from "../../db/tenants.ts";
import { ApiError, type FieldProblem } from "../../errors.ts";
import { type Actor, type AdminService, iso, whole, worksOn } from "./service.ts";

interface SubscriptionRecord {
  id: string;
  client_id: string;
  url: string;
  events: string;
  description: string | null;
  enabled: number;
  disabled_reason: string | null;
  failing_since: number | null;
  created_at: string;
}

interface DeliveryRecord {
  id: string;
  subscription_id: string;
  type: string;
  state: string;
  attempts: number;
  last_status: number | null;
  last_error: string | null;
  last_attempt_at: number | null;
  next_attempt_at: number | null;
  created_at: number;
  record_id: string | null;
}

const SUBSCRIPTION_COLUMNS =
  "id, client_id, url, events, description, enabled, disabled_reason, failing_since, created_at";
const DELIVERY_COLUMNS =
  "id, subscription_id, type, state, attempts, last_status, last_error, last_attempt_at, next_attempt_at, created_at, record_id";

/** The databases the actor works on, open now. */
function tenantsOf(service: AdminService, actor: Actor): { name: string; tenant: Tenant }[] {
  const out: { name: string; tenant: Tenant }[] = [];
  for (const [name, path] of service.runtime.config.databases) {
    if (!worksOn(actor, name)) continue;
    const tenant = service.runtime.tenants.get(path);
    if (tenant !== null) out.push({ name, tenant });
  }
  return out;
}

function subscriptionView(database: string, s: SubscriptionRecord, counts: Record<string, number>) {
  return {
    id: s.id,
    database,
    client: s.client_id,
    url: s.url,
    events: JSON.parse(s.events) as string[],
    description: s.description,
    enabled: s.enabled === 1,
    disabledReason: s.disabled_reason,
    failingSince: s.failing_since === null ? null : iso(s.failing_since),
    createdAt: s.created_at,
    deliveries: { pending: counts.pending ?? 0, succeeded: counts.succeeded ?? 0, failed: counts.failed ?? 0 },
  };
}

/** `GET /admin/v1/webhooks/subscriptions`: every subscription of the actor's databases. */
export function listSubscriptions(service: AdminService, actor: Actor) {
  const out = [];
  for (const { name, tenant } of tenantsOf(service, actor)) {
    const counts = new Map<string, Record<string, number>>();
    const grouped = tenant.read
      .query("SELECT subscription_id AS id, state, count(*) AS n FROM webhook_deliveries GROUP BY 1, 2")
      .all() as { id: string; state: string; n: number }[];
    for (const g of grouped) {
      const c = counts.get(g.id) ?? {};
      c[g.state] = g.n;
      counts.set(g.id, c);
    }
    const rows = tenant.read
      .query(`SELECT ${SUBSCRIPTION_COLUMNS} FROM webhook_subscriptions ORDER BY created_at, id`)
      .all() as SubscriptionRecord[];
    for (const s of rows) out.push(subscriptionView(name, s, counts.get(s.id) ?? {}));
  }
  return out;
}

function findSubscription(service: AdminService, actor: Actor, id: string) {
  for (const { name, tenant } of tenantsOf(service, actor)) {
    const row = tenant.read
      .query(`SELECT ${SUBSCRIPTION_COLUMNS} FROM webhook_subscriptions WHERE id = ?`)
      .get(id) as SubscriptionRecord | null;
    if (row !== null) return { name, tenant, row };
  }
  throw new ApiError("NOT_FOUND", "No webhook subscription with this id in your databases");
}

/**
 * A receiver's answer may echo what it was sent, a lead's personal data included: a viewer, who
 * never reads a lead's personal data, gets the status without it.
 */
function forRole(actor: Actor, text: string | null, isAnswer: boolean): string | null {
  if (text === null || actor.role !== "viewer") return text;
  if (isAnswer) return null;
  const http = /^(HTTP \d{3})/.exec(text);
  return http === null ? text : http[1]!;
}

function deliveryViews(service: AdminService, actor: Actor, rows: DeliveryRecord[]) {
  const attempts = new UsageStore(service.store.db).attemptsOf(rows.map((r) => r.id));
  return rows.map((d) => ({
    id: d.id,
    subscriptionId: d.subscription_id,
    type: d.type,
    recordId: d.record_id,
    state: d.state,
    createdAt: iso(d.created_at),
    attemptCount: d.attempts,
    lastStatus: d.last_status,
    lastError: forRole(actor, d.last_error, false),
    lastAttemptAt: d.last_attempt_at === null ? null : iso(d.last_attempt_at),
    nextAttemptAt: d.state === "pending" && d.next_attempt_at !== null ? iso(d.next_attempt_at) : null,
    attempts: (attempts.get(d.id) ?? []).map((a) => ({
      at: iso(a.at),
      status: a.status,
      latencyMs: a.ms,
      error: forRole(actor, a.error, false),
      answer: forRole(actor, a.answer, true),
    })),
  }));
}

/** `GET /admin/v1/webhooks/subscriptions/{id}/deliveries`: newest first, each with its attempts. */
export function subscriptionDeliveries(service: AdminService, actor: Actor, id: string, query: URLSearchParams) {
  const problems: FieldProblem[] = [];
  const page = whole(query.get("page"), "page", 1, 1_000_000, 1, problems);
  const limit = whole(query.get("limit"), "limit", 1, 100, 20, problems);
  const state = query.get("state") || null;
  if (state !== null && !["pending", "succeeded", "failed"].includes(state))
    problems.push({ field: "state", message: "must be pending, succeeded or failed" });
  if (problems.length > 0) throw ApiError.validation(problems);
  const { name, tenant, row } = findSubscription(service, actor, id);
  const where = state === null ? "subscription_id = ?" : "subscription_id = ? AND state = ?";
  const args = state === null ? [row.id] : [row.id, state];
  const total = (
    tenant.read.query(`SELECT count(*) AS n FROM webhook_deliveries WHERE ${where}`).get(...args) as { n: number }
  ).n;
  const rows = tenant.read
    .query(`SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE ${where} ORDER BY n DESC LIMIT ? OFFSET ?`)
    .all(...args, limit, (page - 1) * limit) as DeliveryRecord[];
  return {
    data: { subscription: subscriptionView(name, row, {}), deliveries: deliveryViews(service, actor, rows) },
    meta: { page, limit, total, totalPages: Math.ceil(total / limit) },
  };
}

/** Back to pending, due now, a fresh series of attempts; its body is made again from the record. */
const SEND_AGAIN =
  "UPDATE webhook_deliveries SET state = 'pending', next_attempt_at = ?1, lease_owner = NULL, attempts = 0, payload = NULL";

/** `POST /admin/v1/webhooks/deliveries/{id}/send-again`: one failed delivery. */
export async function sendDeliveryAgain(service: AdminService, actor: Actor, id: string, ip: string | null) {
  for (const { name, tenant } of tenantsOf(service, actor)) {
    const found = tenant.read
      .query(`SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE id = ?`)
      .get(id) as DeliveryRecord | null;
    if (found === null) continue;
    const subscription = findSubscription(service, actor, found.subscription_id).row;
    if (subscription.enabled !== 1)
      throw new ApiError("STATE_CONFLICT", "The subscription is disabled: enable it before sending again");
    if (found.state !== "failed")
      throw new ApiError("STATE_CONFLICT", `Only a failed delivery is sent again; this one is ${found.state}`);
    const now = service.runtime.clock.now();
    const changed = await tenant.writer.submit(
      (db) => db.query(`${SEND_AGAIN} WHERE id = ?2 AND state = 'failed'`).run(now, id).changes,
    );
    if (changed !== 1) throw new ApiError("STATE_CONFLICT", "The delivery changed meanwhile");
    service.audit(actor.name, ip, "webhook.delivery.send-again", id, { database: name });
    const row = tenant.read
      .query(`SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE id = ?`)
      .get(id) as DeliveryRecord;
    return deliveryViews(service, actor, [row])[0]!;
  }
  throw new ApiError("NOT_FOUND", "No webhook delivery with this id in your databases");
}

/** `POST /admin/v1/webhooks/subscriptions/{id}/send-again` `{ since }`: every delivery failed since then. */
export async function sendFailedAgain(
  service: AdminService,
  actor: Actor,
  id: string,
  body: Record<string, unknown>,
  ip: string | null,
) {
  const since = typeof body.since === "string" && /^\d{4}-\d{2}-\d{2}/.test(body.since) ? Date.parse(body.since) : NaN;
  if (Number.isNaN(since))
    throw ApiError.validation([{ field: "since", message: "is required: an ISO 8601 date or date-time" }]);
  const { name, tenant, row } = findSubscription(service, actor, id);
  if (row.enabled !== 1)
    throw new ApiError("STATE_CONFLICT", "The subscription is disabled: enable it before sending again");
  const now = service.runtime.clock.now();
  const count = await tenant.writer.submit(
    (db) =>
      db
        .query(
          `${SEND_AGAIN} WHERE subscription_id = ?2 AND state = 'failed' AND coalesce(last_attempt_at, created_at) >= ?3`,
        )
        .run(now, row.id, since).changes,
  );
  service.audit(actor.name, ip, "webhook.subscription.send-again", id, { database: name, since: iso(since), count });
  return { subscriptionId: id, sentAgain: count };
}

/** `PATCH /admin/v1/webhooks/subscriptions/{id}` `{ enabled }`: disabled (what waits fails) or enabled again. */
export async function setSubscriptionEnabled(
  service: AdminService,
  actor: Actor,
  id: string,
  body: Record<string, unknown>,
  ip: string | null,
) {
  if (typeof body.enabled !== "boolean" || Object.keys(body).length !== 1)
    throw ApiError.validation([{ field: "enabled", message: "is required: true or false (and nothing else)" }]);
  const enabled = body.enabled;
  const { name, tenant, row } = findSubscription(service, actor, id);
  const now = service.runtime.clock.now();
  const reason = `disabled by the agency (${actor.name}) at ${iso(now)}`;
  await tenant.writer.submit((db) => {
    if (enabled)
      db.query(
        "UPDATE webhook_subscriptions SET enabled = 1, disabled_reason = NULL, failing_since = NULL, updated_at = ? WHERE id = ?",
      ).run(iso(now), row.id);
    else {
      db.query("UPDATE webhook_subscriptions SET enabled = 0, disabled_reason = ?, updated_at = ? WHERE id = ?").run(
        reason,
        iso(now),
        row.id,
      );
      db.query(
        "UPDATE webhook_deliveries SET state = 'failed', payload = NULL, next_attempt_at = NULL, last_error = ? WHERE subscription_id = ? AND state = 'pending'",
      ).run(`not sent: the subscription was ${reason}`, row.id);
    }
  });
  service.audit(actor.name, ip, enabled ? "webhook.subscription.enable" : "webhook.subscription.disable", id, {
    database: name,
  });
  return subscriptionView(name, findSubscription(service, actor, id).row, {});
}
