// The webhook routes' bodies and answers: TypeBox schemas (documentation and types) and the
// validation that names every failed field in words for a partner developer.
import { Type as T } from "@sinclair/typebox";
import type { WebhookTargetPolicy } from "../../config/model.ts";
import { ApiError, type FieldProblem } from "../../errors.ts";
import { DEFAULT_LIMIT, MAX_LIMIT } from "../../query/params.ts";
import { QueryParams } from "../../query/query-params.ts";
import { EVENT_TYPES, type EventType, entityOf } from "./events.ts";
import { MAX_URL_LENGTH, parseTargetUrl } from "./targets.ts";

export const MAX_SUBSCRIPTIONS_PER_CLIENT = 10;
export const MAX_DESCRIPTION_LENGTH = 500;
export const DELIVERY_STATES = ["pending", "succeeded", "failed"] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

const DateTime = T.String({ format: "date-time" });
const Nullable = <S extends ReturnType<typeof T.String> | ReturnType<typeof T.Integer>>(
  schema: S,
  description: string,
) => T.Union([schema, T.Null()], { description });
const EventTypeSchema = T.Union(
  EVENT_TYPES.map((e) => T.Literal(e)),
  { description: "An event type" },
);

const urlSchema = T.String({
  format: "uri",
  maxLength: MAX_URL_LENGTH,
  description:
    "Where deliveries are POSTed. Production accepts only https:// URLs whose host is and resolves to a public address " +
    "(no loopback, private, link-local, unique-local or metadata address), unless the server's config allows it; the sandbox accepts local receivers.",
  examples: ["https://crm.example.com/webhooks/partner-api"],
});
const eventsSchema = T.Array(EventTypeSchema, {
  minItems: 1,
  description: "The events to receive (repeated names collapse)",
  examples: [["lead.created", "lead.updated"]],
});
const descriptionSchema = T.String({
  maxLength: MAX_DESCRIPTION_LENGTH,
  description: "Your note on what this subscription is for",
  examples: ["Leads into our CRM"],
});

export const SubscriptionInputSchema = T.Object(
  { url: urlSchema, events: eventsSchema, description: T.Optional(T.Union([descriptionSchema, T.Null()])) },
  { additionalProperties: true, description: "Unknown keys are ignored" },
);

export const SubscriptionPatchSchema = T.Object(
  {
    url: T.Optional(urlSchema),
    events: T.Optional(eventsSchema),
    description: T.Optional(T.Union([descriptionSchema, T.Null()])),
    enabled: T.Optional(
      T.Boolean({ description: "False pauses deliveries (what was pending fails); true resumes them" }),
    ),
  },
  {
    additionalProperties: true,
    minProperties: 1,
    description: "The members to change; at least one. Unknown keys are ignored",
  },
);

export const ReplayInputSchema = T.Object(
  {
    after: T.Integer({
      minimum: 0,
      description:
        "Every event numbered after this is delivered again, each compared in its own stream (properties; your leads)",
      examples: [1200],
    }),
  },
  { additionalProperties: true },
);

const subscriptionFields = {
  id: T.String({ format: "uuid", description: "The subscription's id" }),
  url: T.String({ description: "Where deliveries are POSTed" }),
  events: T.Array(EventTypeSchema, { description: "The events it receives" }),
  description: Nullable(T.String(), "Your note, or null"),
  enabled: T.Boolean({
    description: "False: nothing is delivered (disabled by you, by a 410 answer, or after 3 days of failures)",
  }),
  disabledReason: Nullable(T.String(), "Why the server disabled it, or null"),
  createdAt: DateTime,
  updatedAt: DateTime,
};

export const SubscriptionSchema = T.Object(subscriptionFields, {
  title: "WebhookSubscription",
  additionalProperties: false,
});
// Created or rotated: exactly the members docs/reference/behaviour-extensions.md §13 lists (no disabledReason, which GET shows).
const { disabledReason: _shownByGet, ...createdFields } = subscriptionFields;
export const SubscriptionWithSecretSchema = T.Object(
  {
    ...createdFields,
    secret: T.String({
      description:
        "The signing secret (`whsec_` + base64), shown only when created or rotated: keep it, it cannot be read again",
    }),
  },
  { title: "WebhookSubscriptionWithSecret", additionalProperties: false },
);

/**
 * A subscription as created or rotated, from its view as GET shows it: the members docs/reference/behaviour-extensions.md §13
 * lists, in its order, the secret among them (the answer and the docs' example both).
 */
export function withSecretOf<View extends { disabledReason: unknown; createdAt: string; updatedAt: string }>(
  view: View,
  secret: string,
) {
  const { createdAt, updatedAt, disabledReason: _shownByGet, ...rest } = view;
  return { ...rest, secret, createdAt, updatedAt };
}

export const DeliverySchema = T.Object(
  {
    id: T.String({ description: "The delivery's `webhook-id`, the same on every attempt" }),
    type: EventTypeSchema,
    sequence: T.Integer({
      minimum: 0,
      description: "The event's sequence as the change feed numbers it for you (0 for webhook.test)",
    }),
    state: T.Union(
      DELIVERY_STATES.map((s) => T.Literal(s)),
      { description: "`pending` until it succeeds or runs out of retries" },
    ),
    attempts: T.Integer({ minimum: 0, description: "Attempts made so far" }),
    lastStatus: Nullable(
      T.Integer(),
      "The receiver's HTTP status at the last attempt, or null (none yet, or no answer)",
    ),
    lastError: Nullable(T.String(), "Why the last attempt failed, or null"),
    lastAttemptAt: Nullable(DateTime, "When the last attempt ended, or null"),
    nextAttemptAt: Nullable(DateTime, "When it is tried next (pending only), or null"),
  },
  { title: "WebhookDelivery", additionalProperties: false },
);

export const TestResultSchema = T.Object(
  { ...DeliverySchema.properties, durationMs: T.Integer({ minimum: 0, description: "How long the attempt took" }) },
  { title: "WebhookTestResult", additionalProperties: false },
);

export const ReplaySchema = T.Object(
  {
    after: T.Integer({ minimum: 0, description: "The `after` asked for" }),
    until: T.Integer({
      minimum: 0,
      description:
        "The newest sequence now of the streams the subscription takes (the larger, with property and lead events): " +
        "events up to it are replayed; later ones are delivered as they come anyway",
    }),
  },
  { title: "WebhookReplay", additionalProperties: false },
);

// ---- validation ----

export interface SubscriptionInput {
  url: URL;
  events: EventType[];
  description: string | null;
}

export interface SubscriptionPatch {
  url?: URL;
  events?: EventType[];
  description?: string | null;
  enabled?: boolean;
}

/** Whether the subscribing client reads an entity's records (its scopes): it may subscribe to its events only then. */
export type ReadsEntity = (entity: "properties" | "leads") => boolean;

function validateEvents(value: unknown, problems: FieldProblem[], reads: ReadsEntity): EventType[] | undefined {
  const expected = `must be a non-empty array of event types: ${EVENT_TYPES.join(", ")}`;
  if (!Array.isArray(value) || value.length === 0) {
    problems.push({ field: "events", message: expected });
    return undefined;
  }
  const unknown = value.filter((e) => !(EVENT_TYPES as readonly unknown[]).includes(e));
  if (unknown.length > 0) {
    const names = unknown
      .map((e) => (typeof e === "string" ? JSON.stringify(e) : `a ${e === null ? "null" : typeof e}`))
      .join(", ");
    problems.push({ field: "events", message: `unknown event type ${names}; use: ${EVENT_TYPES.join(", ")}` });
    return undefined;
  }
  const events = [...new Set(value as EventType[])];
  const unreadable = events.filter((e) => {
    const entity = entityOf(e);
    return entity !== null && !reads(entity);
  });
  if (unreadable.length > 0) {
    const needs = (entity: "properties" | "leads", scope: string) => {
      const names = unreadable.filter((e) => entityOf(e) === entity);
      return names.length === 0 ? [] : [`${names.join(", ")} need${names.length === 1 ? "s" : ""} scope ${scope}`];
    };
    const why = [...needs("leads", "leads:read:own or leads:read"), ...needs("properties", "properties:read")].join(
      ", and ",
    );
    problems.push({ field: "events", message: why });
    return undefined;
  }
  return events;
}

function validateDescription(value: unknown, problems: FieldProblem[]): string | null | undefined {
  if (value === undefined || value === null) return value === null ? null : undefined;
  if (typeof value !== "string") problems.push({ field: "description", message: "must be a string or null" });
  else if (!value.isWellFormed())
    problems.push({ field: "description", message: "must be valid Unicode text (no unpaired surrogates)" });
  else if (value.trim().length > MAX_DESCRIPTION_LENGTH)
    problems.push({ field: "description", message: `must be at most ${MAX_DESCRIPTION_LENGTH} characters` });
  else return value.trim() === "" ? null : value.trim();
  return undefined;
}

function validateUrl(value: unknown, policy: WebhookTargetPolicy, problems: FieldProblem[]): URL | undefined {
  const parsed = parseTargetUrl(value, policy);
  if (typeof parsed === "string") {
    problems.push({ field: "url", message: parsed });
    return undefined;
  }
  return parsed;
}

/** A creation body, checked without DNS (the service resolves the host afterwards). */
export function validateSubscriptionInput(
  body: Record<string, unknown>,
  policy: WebhookTargetPolicy,
  reads: ReadsEntity,
): SubscriptionInput {
  const problems: FieldProblem[] = [];
  const url =
    body.url === undefined || body.url === null
      ? (problems.push({ field: "url", message: "is required" }), undefined)
      : validateUrl(body.url, policy, problems);
  const events =
    body.events === undefined
      ? (problems.push({ field: "events", message: "is required" }), undefined)
      : validateEvents(body.events, problems, reads);
  const description = validateDescription(body.description, problems);
  if (problems.length > 0) throw ApiError.validation(problems);
  return { url: url!, events: events!, description: description ?? null };
}

const PATCHABLE = ["url", "events", "description", "enabled"] as const;

export function validateSubscriptionPatch(
  body: Record<string, unknown>,
  policy: WebhookTargetPolicy,
  reads: ReadsEntity,
): SubscriptionPatch {
  const problems: FieldProblem[] = [];
  if (!PATCHABLE.some((key) => body[key] !== undefined)) {
    throw ApiError.validation([{ field: "body", message: `must set at least one of: ${PATCHABLE.join(", ")}` }]);
  }
  const patch: SubscriptionPatch = {};
  if (body.url !== undefined) patch.url = validateUrl(body.url, policy, problems);
  if (body.events !== undefined) patch.events = validateEvents(body.events, problems, reads);
  if (body.description !== undefined) patch.description = validateDescription(body.description, problems);
  if (body.enabled !== undefined) {
    if (typeof body.enabled === "boolean") patch.enabled = body.enabled;
    else problems.push({ field: "enabled", message: "must be true or false" });
  }
  if (problems.length > 0) throw ApiError.validation(problems);
  return patch;
}

export function validateReplayInput(body: Record<string, unknown>): { after: number } {
  const after = body.after;
  if (after === undefined || after === null) throw ApiError.validation([{ field: "after", message: "is required" }]);
  if (typeof after !== "number" || !Number.isSafeInteger(after) || after < 0) {
    throw ApiError.validation([{ field: "after", message: "must be an integer greater than or equal to 0" }]);
  }
  return { after };
}

export interface PageQuery {
  page: number;
  limit: number;
}

/** `page`, `limit` and, for the delivery log, `state`: every problem named at once. */
export function parseLogQuery(
  params: URLSearchParams,
  withState: boolean,
): PageQuery & { state: DeliveryState | null } {
  const problems: FieldProblem[] = [];
  // Read through QueryParams: a name the route does not take is refused (docs/reference/behaviour.md §8).
  const query = new QueryParams(params);
  const one = (name: string) => {
    const values = query.all(name);
    if (values.length > 1) problems.push({ field: name, message: "must be given once" });
    return values[0] ?? null;
  };
  const integer = (text: string | null, fallback: number, max: number) =>
    text === null
      ? fallback
      : /^\d{1,10}$/.test(text) && Number(text) >= 1 && Number(text) <= max
        ? Number(text)
        : null;
  const page = integer(one("page"), 1, 1_000_000_000);
  if (page === null) problems.push({ field: "page", message: "must be an integer greater than or equal to 1" });
  const limit = integer(one("limit"), DEFAULT_LIMIT, MAX_LIMIT);
  if (limit === null) problems.push({ field: "limit", message: `must be an integer between 1 and ${MAX_LIMIT}` });
  let state: DeliveryState | null = null;
  if (withState) {
    const raw = one("state");
    if (raw !== null && !(DELIVERY_STATES as readonly string[]).includes(raw)) {
      problems.push({ field: "state", message: `must be one of: ${DELIVERY_STATES.join(", ")}` });
    } else {
      state = raw as DeliveryState | null;
    }
  }
  query.refuseUnknown(problems);
  if (problems.length > 0) throw ApiError.validation(problems);
  return { page: page!, limit: limit!, state };
}
