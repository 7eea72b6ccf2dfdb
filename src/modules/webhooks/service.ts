// Partners' webhook subscriptions (docs/reference/behaviour-extensions.md §13) without HTTP: create, list, read, change,
// delete, rotate the secret, send a test event, read the delivery log, replay. Every call is
// scoped to the calling client: another client's subscription is not found. Also the wiring
// of the delivery worker to this server (records as each client reads them, the config).
import { CATALOGS } from "../../catalog/index.ts";
import type { Stream } from "../../db/change-streams.ts";
import type { Tenant } from "../../db/tenants.ts";
import { ApiError } from "../../errors.ts";
import type { Logger } from "../../logging.ts";
import { allFieldsOf, listOf, readerOf } from "../../query/lists.ts";
import type { Runtime } from "../../runtime.ts";
import { leadAccessOf, readsEntity, streamOf } from "../../security/scopes.ts";
import { VERSION } from "../../version.ts";
import type { RecordReader, StreamAccess } from "./dispatch.ts";
import { type EventType, entityOf } from "./events.ts";
import { type PendingAge, WebhookMetrics } from "./metrics.ts";
import {
  type DeliveryState,
  MAX_SUBSCRIPTIONS_PER_CLIENT,
  type PageQuery,
  type SubscriptionInput,
  type SubscriptionPatch,
  withSecretOf,
} from "./model.ts";
import { type LoggedDelivery, type SubscriptionRow, webhookRepos } from "./repo.ts";
import { ATTEMPT_TIMEOUT_MS } from "./send.ts";
import { newSecret } from "./signing.ts";
import { PER_SUBSCRIPTION } from "./slots.ts";
import { type Resolve, systemResolve } from "./targets.ts";
import { TEST_SLOT_WAIT_MS, WebhookWorker, type WorkerDeps } from "./worker.ts";

/** A rotated-out secret keeps signing this long, so receivers can switch without losing a delivery. */
export const PREVIOUS_SECRET_MS = 24 * 60 * 60 * 1000;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const notFound = () => new ApiError("NOT_FOUND", "No webhook subscription with this id");
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

function view(row: SubscriptionRow) {
  return {
    id: row.id,
    url: row.url,
    events: JSON.parse(row.events) as string[],
    description: row.description,
    enabled: row.enabled === 1,
    disabledReason: row.disabled_reason,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function deliveryView(row: LoggedDelivery) {
  return {
    id: row.id,
    type: row.type,
    sequence: row.sequence,
    state: row.state,
    attempts: row.attempts,
    lastStatus: row.last_status,
    lastError: row.last_error,
    lastAttemptAt: iso(row.last_attempt_at),
    nextAttemptAt: row.state === "pending" ? iso(row.next_attempt_at) : null,
  };
}

const data = (value: unknown) => JSON.stringify({ data: value });

function page(items: unknown[], query: PageQuery, total: number): string {
  return JSON.stringify({
    data: items,
    meta: { page: query.page, limit: query.limit, total, totalPages: Math.ceil(total / query.limit) },
  });
}

export interface WebhookService {
  worker: WebhookWorker;
  runtime: Runtime;
}

/** The subscription of `clientId` with this id, or NOT_FOUND (a missing id and another client's look the same). */
function owned(tenant: Tenant, clientId: string, id: string | null): SubscriptionRow {
  const row =
    typeof id === "string" && UUID.test(id)
      ? webhookRepos(tenant).subscriptions.ownedBy(id.toLowerCase(), clientId)
      : null;
  if (row === null) throw notFound();
  return row;
}

/**
 * The DNS half of the target rules, for a URL that passed the rest (model.ts). Where private
 * targets are allowed there is nothing to check: a host that does not resolve (yet) shows in
 * the delivery log.
 */
async function checkResolvedTarget(service: WebhookService, url: URL): Promise<void> {
  if (service.runtime.config.webhooks.allowPrivateTargets) return;
  const resolved = await service.worker.resolveTarget(url);
  if (!resolved.ok) throw ApiError.validation([{ field: "url", message: resolved.problem }]);
}

export async function createSubscription(
  service: WebhookService,
  tenant: Tenant,
  clientId: string,
  input: SubscriptionInput,
): Promise<string> {
  await checkResolvedTarget(service, input.url);
  const repo = webhookRepos(tenant).subscriptions;
  const now = service.runtime.clock.now();
  // Counted inside the write, so two creations at once cannot both take the tenth place.
  const created = await tenant.writer.submit((db) => {
    if (repo.countFor(db, clientId) >= MAX_SUBSCRIPTIONS_PER_CLIENT) return null;
    return repo.insert(db, {
      id: crypto.randomUUID(),
      clientId,
      url: input.url.href,
      events: JSON.stringify(input.events),
      description: input.description,
      secret: newSecret(),
      createdAt: new Date(now).toISOString(),
    });
  });
  if (created === null) {
    throw ApiError.validation([
      {
        field: "webhooks",
        message: `at most ${MAX_SUBSCRIPTIONS_PER_CLIENT} subscriptions per client; delete one before creating another`,
      },
    ]);
  }
  service.worker.kick();
  return data(withSecretOf(view(created), created.secret));
}

export function listSubscriptions(tenant: Tenant, clientId: string, query: PageQuery): string {
  const { rows, total } = webhookRepos(tenant).subscriptions.page(
    clientId,
    query.limit,
    (query.page - 1) * query.limit,
  );
  return page(rows.map(view), query, total);
}

export function getSubscription(tenant: Tenant, clientId: string, id: string | null): string {
  return data(view(owned(tenant, clientId, id)));
}

export async function updateSubscription(
  service: WebhookService,
  tenant: Tenant,
  clientId: string,
  id: string | null,
  patch: SubscriptionPatch,
): Promise<string> {
  const current = owned(tenant, clientId, id);
  if (patch.url !== undefined) await checkResolvedTarget(service, patch.url);
  const repo = webhookRepos(tenant).subscriptions;
  const { deliveries } = webhookRepos(tenant);
  const now = new Date(service.runtime.clock.now()).toISOString();
  const updated = await tenant.writer.submit((db) => {
    const row = repo.update(
      db,
      current.id,
      clientId,
      {
        ...(patch.url !== undefined ? { url: patch.url.href } : {}),
        ...(patch.events !== undefined ? { events: JSON.stringify(patch.events) } : {}),
        ...(patch.description !== undefined ? { description: patch.description } : {}),
        ...(patch.enabled !== undefined ? { enabled: patch.enabled } : {}),
      },
      now,
    );
    // Paused by its partner: what was waiting fails now rather than arriving in a burst later.
    if (row !== null && patch.enabled === false && current.enabled === 1)
      deliveries.failPending(db, row.id, "not sent: the subscription was disabled");
    return row;
  });
  if (updated === null) throw notFound();
  service.worker.kick();
  return data(view(updated));
}

export async function deleteSubscription(tenant: Tenant, clientId: string, id: string | null): Promise<void> {
  const current = owned(tenant, clientId, id);
  const repo = webhookRepos(tenant).subscriptions;
  if (!(await tenant.writer.submit((db) => repo.remove(db, current.id, clientId)))) throw notFound();
}

export async function rotateSecret(
  service: WebhookService,
  tenant: Tenant,
  clientId: string,
  id: string | null,
): Promise<string> {
  const current = owned(tenant, clientId, id);
  const repo = webhookRepos(tenant).subscriptions;
  const now = service.runtime.clock.now();
  const rotated = await tenant.writer.submit((db) =>
    repo.rotate(db, current.id, clientId, newSecret(), now + PREVIOUS_SECRET_MS, new Date(now).toISOString()),
  );
  if (rotated === null) throw notFound();
  return data(withSecretOf(view(rotated), rotated.secret));
}

export async function sendTestEvent(
  service: WebhookService,
  tenant: Tenant,
  clientId: string,
  id: string | null,
): Promise<string> {
  const current = owned(tenant, clientId, id);
  const result = await service.worker.sendTest(tenant, current.id);
  if (result === "busy") {
    const message = `This subscription's deliveries under way (${PER_SUBSCRIPTION} at most) hold every slot it may use, none ended within ${TEST_SLOT_WAIT_MS / 1000} s; send the test again later`;
    throw new ApiError("SERVICE_UNAVAILABLE", message, undefined, { "retry-after": String(ATTEMPT_TIMEOUT_MS / 1000) });
  }
  const delivery = result === null ? null : webhookRepos(tenant).deliveries.get(result.deliveryId);
  if (result === null || delivery === null) throw notFound(); // deleted meanwhile
  return data({ ...deliveryView(delivery), durationMs: Math.round(result.outcome.durationMs) });
}

export function deliveryLog(
  tenant: Tenant,
  clientId: string,
  id: string | null,
  query: PageQuery & { state: DeliveryState | null },
): string {
  const current = owned(tenant, clientId, id);
  const { rows, total } = webhookRepos(tenant).deliveries.page(
    current.id,
    query.state,
    query.limit,
    (query.page - 1) * query.limit,
  );
  return page(rows.map(deliveryView), query, total);
}

export async function replay(
  service: WebhookService,
  tenant: Tenant,
  clientId: string,
  id: string | null,
  after: number,
): Promise<string> {
  const current = owned(tenant, clientId, id);
  const repo = webhookRepos(tenant).subscriptions;
  // Numbers in the client's own streams, each event compared with `after` in its stream.
  const streamsOf = streamAccess(service.runtime);
  const entities = new Set((JSON.parse(current.events) as EventType[]).map(entityOf));
  const streams = (["properties", "leads"] as const)
    .filter((entity) => entities.has(entity))
    .map((entity) => streamsOf(clientId, entity))
    .filter((stream): stream is Stream => stream !== null);
  const until = await tenant.writer.submit((db) => repo.startReplay(db, current.id, clientId, after, streams));
  if (until === null) throw notFound();
  service.worker.kick();
  return data({ after, until });
}

// ---- the worker, wired to this server ----

/** Every field, parsed once: what GET /v1/{entity}/{id} would make of `?fields=` naming them all. */
const ALL_FIELDS = { properties: allFieldsOf(CATALOGS.properties), leads: allFieldsOf(CATALOGS.leads) };
const DATA_PREFIX = '{"data":';

/**
 * A record exactly as `GET /v1/{entity}/{id}` with every field answers the client: the same
 * service as that route, so whatever decides what a client sees there decides it here too.
 */
export function recordReader(runtime: Runtime): RecordReader {
  return (tenant, clientId, entity, id) => {
    const client = runtime.config.clients.get(clientId);
    if (client === undefined) return null;
    let body: string;
    try {
      // The client's own view: without fullAddress, what a listing's displayAddress hides is
      // null; another partner's lead is not found, so it is never delivered.
      body = listOf(tenant, CATALOGS[entity]).recordWith(id, ALL_FIELDS[entity], readerOf(client));
    } catch (error) {
      if (error instanceof ApiError && error.code === "NOT_FOUND") return null;
      throw error;
    }
    if (!body.startsWith(DATA_PREFIX)) throw new Error("the single-record route's answer changed shape");
    return body.slice(DATA_PREFIX.length, -1);
  };
}

/**
 * The stream of an entity's events a client reads, or null when it may not be sent them: the
 * scope its routes need (docs/partners/scopes.md), and with `leads:read:own` its own leads'.
 */
export function streamAccess(runtime: Runtime): StreamAccess {
  return (clientId, entity) => {
    const client = runtime.config.clients.get(clientId);
    return client !== undefined && readsEntity(client, entity) ? streamOf(entity, leadAccessOf(client)) : null;
  };
}

export interface WorkerOptions {
  metrics: WebhookMetrics;
  logger: Logger;
  /** Tests: a resolver of their own, extra trusted CAs, a seeded random source. */
  resolve?: Resolve;
  ca?: string;
  random?: () => number;
  timeoutMs?: number;
  testSlotWaitMs?: number;
}

/** The delivery worker for a running server: its databases, clients and config. */
export function createWebhookWorker(runtime: Runtime, options: WorkerOptions): WebhookWorker {
  const deps: WorkerDeps = {
    tenants: () =>
      [...new Set(runtime.config.databases.values())]
        .map((path) => runtime.tenants.get(path))
        .filter((t): t is Tenant => t !== null),
    clientActive: (clientId, tenant) => {
      const client = runtime.config.clients.get(clientId);
      return client !== undefined && client.enabled && client.databasePath === tenant.path;
    },
    policy: () => runtime.config.webhooks,
    records: recordReader(runtime),
    streams: streamAccess(runtime),
    clock: runtime.clock,
    random: options.random ?? Math.random,
    send: {
      resolve: options.resolve ?? systemResolve,
      userAgent: `partner-api/${VERSION}`,
      ...(options.ca !== undefined ? { ca: options.ca } : {}),
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    },
    metrics: options.metrics,
    onError: (error, what) =>
      options.logger.warn({ err: (error as Error)?.message ?? String(error) }, `${what} failed`),
    ...(options.testSlotWaitMs !== undefined ? { testSlotWaitMs: options.testSlotWaitMs } : {}),
    onAttempt: ({ tenant, subscriptionId, deliveryId, at, outcome }) => {
      const usage = runtime.usage;
      if (usage === null) return;
      let database = tenant.path;
      for (const [name, path] of runtime.config.databases) if (path === tenant.path) database = name;
      usage.attempt({
        database,
        subscriptionId,
        deliveryId,
        at,
        status: outcome.status,
        ms: Math.round(outcome.durationMs * 100) / 100,
        error: outcome.error,
        answer: outcome.answer,
      });
    },
  };
  return new WebhookWorker(deps);
}

/** What a server holds for webhooks: the worker (started by `serve` and `sandbox`) and its metrics. */
export interface ServerWebhooks {
  worker: WebhookWorker;
  metrics: WebhookMetrics;
}

export function createServerWebhooks(runtime: Runtime, options: Omit<WorkerOptions, "metrics">): ServerWebhooks {
  const metrics = new WebhookMetrics(() => oldestPending(runtime));
  return { worker: createWebhookWorker(runtime, { ...options, metrics }), metrics };
}

/**
 * The age of what waits longest to be delivered in each database, read at scrape time: a
 * pending delivery since it was made, or an event not yet turned into deliveries since it
 * happened (a dispatch that falls behind is a backlog too).
 */
function oldestPending(runtime: Runtime): PendingAge[] {
  const now = runtime.clock.now();
  const pending: PendingAge[] = [];
  for (const [database, path] of runtime.config.databases) {
    const tenant = runtime.tenants.get(path);
    if (tenant === null) continue;
    const { deliveries, cursor } = webhookRepos(tenant);
    const times = [deliveries.oldestPending(), cursor.oldestUndispatched()].filter((t): t is number => t !== null);
    pending.push({ database, seconds: times.length === 0 ? 0 : Math.max(0, (now - Math.min(...times)) / 1000) });
  }
  return pending;
}
