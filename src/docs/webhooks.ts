// The webhook half of the OpenAPI document (docs/reference/behaviour-extensions.md §13): the subscription operations, and
// the top-level `webhooks` section describing each event a partner's receiver gets, with the
// headers that sign it and the record it carries.
import { Type as T, type TSchema } from "@sinclair/typebox";
import { DEFAULT_LIMIT, MAX_LIMIT, MAX_PAGE } from "../modules/listing/params.ts";
import { EVENT_TYPES, type EventType } from "../modules/webhooks/events.ts";
import {
  DeliverySchema,
  ReplayInputSchema,
  ReplaySchema,
  SubscriptionInputSchema,
  SubscriptionPatchSchema,
  SubscriptionSchema,
  SubscriptionWithSecretSchema,
  TestResultSchema,
  withSecretOf,
} from "../modules/webhooks/model.ts";
import { MAX_ATTEMPTS, RETRY_DELAYS_MS } from "../modules/webhooks/schedule.ts";
import type { SandboxExamples } from "./examples.ts";
import { toOpenApiSchema } from "./json-schema.ts";
import { json, type Operation, protectedResponses } from "./operations.ts";
import type { Parameter } from "./parameters.ts";
import { responseHeaders } from "./responses.ts";
import { dataOf, LeadSchema, PropertySchema, pageOf } from "./schemas.ts";

type Json = Record<string, unknown>;

/** The subscription every example names (the docs tests create it in the sandbox they call). */
export const EXAMPLE_SUBSCRIPTION_ID = "3f8e7c1a-9b2d-4c5e-8f1a-2b3c4d5e6f70";
const EXAMPLE_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwCDKc+O0v6Wo=";
const EXAMPLE_URL = "https://crm.example.com/webhooks/partner-api";
const EXAMPLE_TIME = "2026-01-05T14:30:00.000Z";

const subscription = {
  id: EXAMPLE_SUBSCRIPTION_ID,
  url: EXAMPLE_URL,
  events: ["lead.created", "lead.updated"],
  description: "Leads into our CRM",
  enabled: true,
  disabledReason: null,
  createdAt: EXAMPLE_TIME,
  updatedAt: EXAMPLE_TIME,
};
const withSecret = withSecretOf(subscription, EXAMPLE_SECRET);
const delivery = {
  id: "msg_019430b2-5c1e-7d3a-9f2b-6a8c4e1d0b37",
  type: "lead.created",
  sequence: 5012,
  state: "pending",
  attempts: 2,
  lastStatus: 503,
  lastError: "HTTP 503: Service Unavailable",
  lastAttemptAt: "2026-01-05T14:30:35.120Z",
  nextAttemptAt: "2026-01-05T14:32:35.120Z",
};

const jsonBody = (schema: TSchema, examples: Record<string, { summary: string; value: unknown }>): Json => ({
  required: true,
  content: { "application/json": { schema: toOpenApiSchema(schema), examples } },
});

const idParameter: Parameter = {
  name: "id",
  in: "path",
  required: true,
  description: "Id of one of your subscriptions (another client's is a 404)",
  schema: { type: "string", format: "uuid" },
  example: EXAMPLE_SUBSCRIPTION_ID,
};

const pageParameters: Parameter[] = [
  {
    name: "page",
    in: "query",
    required: false,
    description: "Page number, from 1",
    schema: { type: "integer", minimum: 1, maximum: MAX_PAGE, default: 1 },
    example: 1,
  },
  {
    name: "limit",
    in: "query",
    required: false,
    description: `Items per page, 1 to ${MAX_LIMIT}`,
    schema: { type: "integer", minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT },
    example: DEFAULT_LIMIT,
  },
];

const BODY_ERRORS = ["VALIDATION_ERROR", "MISSING_BODY", "PAYLOAD_TOO_LARGE", "UNSUPPORTED_MEDIA_TYPE"] as const;
const NOT_FOUND = { NOT_FOUND: "No webhook subscription with this id" };
const seconds = (ms: number) =>
  ms < 60_000 ? `${ms / 1000} s` : ms < 3_600_000 ? `${ms / 60_000} min` : `${ms / 3_600_000} h`;

export function webhookOperations(): Operation[] {
  const tag = "Webhooks";
  return [
    {
      method: "post",
      path: "/v1/webhooks",
      operationId: "createWebhookSubscription",
      tag,
      summary: "Subscribe to webhooks",
      description:
        "Registers a URL to receive events as they happen. The answer holds the signing `secret`: it is shown only here " +
        "(and by rotate-secret), so keep it. Events after the subscription is created are delivered to it. At most 10 " +
        "subscriptions per client. Production refuses a URL that is not https, or whose host is or resolves to a " +
        "loopback, private, link-local, unique-local or metadata address.",
      access: "bearer",
      parameters: [],
      requestBody: jsonBody(SubscriptionInputSchema, {
        leads: {
          summary: "Leads into a CRM",
          value: { url: EXAMPLE_URL, events: ["lead.created", "lead.updated"], description: "Leads into our CRM" },
        },
        listings: {
          summary: "Keep a copy of the listings",
          value: {
            url: "https://portal.example.com/hooks/agency-42",
            events: ["property.upserted", "property.removed"],
          },
        },
      }),
      responses: protectedResponses(
        {
          "201": json(
            dataOf(SubscriptionWithSecretSchema),
            { data: withSecret },
            "The subscription, with its secret (shown only now)",
            "rateLimited",
          ),
        },
        [...BODY_ERRORS, "SERVICE_UNAVAILABLE"],
        {
          VALIDATION_ERROR:
            "url: must be an https:// URL; events: must be a non-empty array of event types: " + EVENT_TYPES.join(", "),
        },
        "webhooks",
      ),
    },
    {
      method: "get",
      path: "/v1/webhooks",
      operationId: "listWebhookSubscriptions",
      tag,
      summary: "List your webhook subscriptions",
      description: "Your subscriptions, oldest first, without their secrets.",
      access: "bearer",
      parameters: pageParameters,
      responses: protectedResponses(
        {
          "200": json(
            pageOf(SubscriptionSchema),
            { data: [subscription], meta: { page: 1, limit: DEFAULT_LIMIT, total: 1, totalPages: 1 } },
            "A page of subscriptions",
            "rateLimited",
          ),
        },
        ["VALIDATION_ERROR", "SERVICE_UNAVAILABLE"],
        { VALIDATION_ERROR: `limit: must be an integer between 1 and ${MAX_LIMIT}` },
        "webhooks",
      ),
    },
    {
      method: "get",
      path: "/v1/webhooks/{id}",
      operationId: "getWebhookSubscription",
      tag,
      summary: "Get a webhook subscription",
      description:
        "One of your subscriptions, without its secret. `enabled: false` with a `disabledReason` means the server disabled it.",
      access: "bearer",
      parameters: [idParameter],
      responses: protectedResponses(
        { "200": json(dataOf(SubscriptionSchema), { data: subscription }, "The subscription", "rateLimited") },
        ["NOT_FOUND", "SERVICE_UNAVAILABLE"],
        NOT_FOUND,
        "webhooks",
      ),
    },
    {
      method: "patch",
      path: "/v1/webhooks/{id}",
      operationId: "updateWebhookSubscription",
      tag,
      summary: "Change a webhook subscription",
      description:
        "Changes `url`, `events`, `description` or `enabled`; what the body leaves out stays. `enabled: false` pauses it " +
        "(what was pending fails); `enabled: true` resumes it after you or the server disabled it. Events that happened " +
        "while it was disabled are not sent: replay them.",
      access: "bearer",
      parameters: [idParameter],
      requestBody: jsonBody(SubscriptionPatchSchema, {
        events: {
          summary: "Receive more events",
          value: { events: ["lead.created", "lead.updated", "property.removed"] },
        },
        resume: { summary: "Enable it again", value: { enabled: true } },
      }),
      responses: protectedResponses(
        {
          "200": json(
            dataOf(SubscriptionSchema),
            { data: { ...subscription, events: ["lead.created", "lead.updated", "property.removed"] } },
            "The subscription as changed",
            "rateLimited",
          ),
        },
        [...BODY_ERRORS, "NOT_FOUND", "SERVICE_UNAVAILABLE"],
        { VALIDATION_ERROR: "enabled: must be true or false", ...NOT_FOUND },
        "webhooks",
      ),
    },
    {
      method: "delete",
      path: "/v1/webhooks/{id}",
      operationId: "deleteWebhookSubscription",
      tag,
      summary: "Delete a webhook subscription",
      description: "Deletes the subscription and its delivery log; nothing more is sent to it.",
      access: "bearer",
      parameters: [idParameter],
      responses: protectedResponses(
        { "204": { description: "Deleted", headers: responseHeaders("rateLimited") } },
        ["NOT_FOUND", "SERVICE_UNAVAILABLE"],
        NOT_FOUND,
        "webhooks",
      ),
    },
    {
      method: "post",
      path: "/v1/webhooks/{id}/rotate-secret",
      operationId: "rotateWebhookSecret",
      tag,
      summary: "Rotate a subscription's signing secret",
      description:
        "Issues a new secret and answers it (shown only now). For 24 hours every delivery carries two signatures, one " +
        "per secret, so your receiver can switch without losing a delivery. No body.",
      access: "bearer",
      parameters: [idParameter],
      responses: protectedResponses(
        {
          "200": json(
            dataOf(SubscriptionWithSecretSchema),
            { data: { ...withSecret, secret: "whsec_Q2hhbmdlZCBzZWNyZXQgZm9yIHRoZSBkb2NzIQ==" } },
            "The subscription with its new secret",
            "rateLimited",
          ),
        },
        ["NOT_FOUND", "SERVICE_UNAVAILABLE"],
        NOT_FOUND,
        "webhooks",
      ),
    },
    {
      method: "post",
      path: "/v1/webhooks/{id}/test",
      operationId: "testWebhook",
      tag,
      summary: "Send a test event",
      description:
        "Sends a `webhook.test` event to the subscription now, whatever its state, and answers how that one attempt went " +
        "(within 10 s). It is recorded in the delivery log and never retried; its outcome never disables the subscription. No body. " +
        "It takes one of the subscription's 16 delivery slots, like every delivery: while all of them are taken (a receiver that " +
        "does not answer), it waits up to 15 s for one, then answers 503 with Retry-After, having sent nothing.",
      access: "bearer",
      parameters: [idParameter],
      responses: protectedResponses(
        {
          "200": json(
            dataOf(TestResultSchema),
            {
              data: {
                ...delivery,
                id: "msg_019430b3-0a41-7f0e-8d6c-3b9e2f7a5c10",
                type: "webhook.test",
                sequence: 0,
                state: "succeeded",
                attempts: 1,
                lastStatus: 200,
                lastError: null,
                nextAttemptAt: null,
                durationMs: 84,
              },
            },
            "The attempt's outcome: `state` succeeded or failed, the receiver's status and what went wrong",
            "rateLimited",
          ),
        },
        ["NOT_FOUND", "SERVICE_UNAVAILABLE"],
        NOT_FOUND,
        "webhooks",
      ),
    },
    {
      method: "get",
      path: "/v1/webhooks/{id}/deliveries",
      operationId: "listWebhookDeliveries",
      tag,
      summary: "Read a subscription's delivery log",
      description:
        "Its deliveries, newest first: what was sent, how often, and what the receiver answered. A finished delivery " +
        "stays in the log until 7 days after it was made.",
      access: "bearer",
      parameters: [
        idParameter,
        {
          name: "state",
          in: "query",
          required: false,
          description: "Only deliveries in this state",
          schema: { type: "string", enum: ["pending", "succeeded", "failed"] },
          example: "pending",
        },
        ...pageParameters,
      ],
      responses: protectedResponses(
        {
          "200": json(
            pageOf(DeliverySchema),
            { data: [delivery], meta: { page: 1, limit: DEFAULT_LIMIT, total: 1, totalPages: 1 } },
            "A page of deliveries",
            "rateLimited",
          ),
        },
        ["VALIDATION_ERROR", "NOT_FOUND", "SERVICE_UNAVAILABLE"],
        { VALIDATION_ERROR: "state: must be one of: pending, succeeded, failed", ...NOT_FOUND },
        "webhooks",
      ),
    },
    {
      method: "post",
      path: "/v1/webhooks/{id}/replay",
      operationId: "replayWebhooks",
      tag,
      summary: "Deliver again every event after a sequence",
      description:
        "For a receiver that lost data: every event the subscription takes with a sequence after `after` is delivered " +
        "again, as new deliveries (new `webhook-id`s), in the background. Events superseded since by a newer event of " +
        "the same record are sent as that newer event (the change feed keeps the latest of each record). A new replay " +
        "replaces one under way.",
      access: "bearer",
      parameters: [idParameter],
      requestBody: jsonBody(ReplayInputSchema, {
        after: { summary: "Everything after sequence 5000", value: { after: 5000 } },
      }),
      responses: protectedResponses(
        {
          "202": json(
            dataOf(ReplaySchema),
            { data: { after: 5000, until: 5342 } },
            "Accepted: the replay runs in the background",
            "rateLimited",
          ),
        },
        [...BODY_ERRORS, "NOT_FOUND", "SERVICE_UNAVAILABLE"],
        { VALIDATION_ERROR: "after: must be an integer greater than or equal to 0", ...NOT_FOUND },
        "webhooks",
      ),
    },
  ];
}

// ---- the top-level `webhooks` section: what a receiver gets ----

const SCHEDULE = RETRY_DELAYS_MS.map(seconds).join(", ");

const DELIVERY_DESCRIPTION =
  "Sent as `POST` to your subscription's URL, signed per Standard Webhooks 1.0: verify it with the `standardwebhooks` " +
  "library of your language and the subscription's secret. Answer any 2xx within 10 s to acknowledge it; anything else " +
  `is retried after about ${SCHEDULE} (±20 %), ${MAX_ATTEMPTS} attempts in all, with the same \`webhook-id\` ` +
  "(use it to drop duplicates: delivery is at least once). `410 Gone` disables the subscription at once. Order is not " +
  "promised: ignore an event whose `data.sequence` is older than what you applied for that record. Redirects are not followed.";

const SIGNATURE_HEADERS: Parameter[] = [
  {
    name: "webhook-id",
    in: "header",
    required: true,
    description: "The delivery's id, the same on every attempt",
    schema: { type: "string" },
    example: "msg_019430b2-5c1e-7d3a-9f2b-6a8c4e1d0b37",
  },
  {
    name: "webhook-timestamp",
    in: "header",
    required: true,
    description: "Unix seconds of this attempt (refuse ones far from your clock)",
    schema: { type: "string", pattern: "^\\d+$" },
    example: "1767623400",
  },
  {
    name: "webhook-signature",
    in: "header",
    required: true,
    description:
      "`v1,` + base64 HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<body>` under the base64-decoded part of your " +
      "`whsec_` secret; space-separated, two of them for 24 h after a rotation (either may match)",
    schema: { type: "string" },
    example: "v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=",
  },
  {
    name: "User-Agent",
    in: "header",
    required: true,
    description: "`partner-api/<version>`",
    schema: { type: "string" },
    example: "partner-api/1.0.0",
  },
];

const EVENT_DESCRIPTIONS: Record<EventType, string> = {
  "lead.created":
    "A lead was created (by a partner, a form, an import…). `record` is the lead as `GET /v1/leads/{id}` with every field returns it.",
  "lead.updated":
    "A lead changed (its status, priority…). `record` is the lead as it is now, as `GET /v1/leads/{id}` with every field returns it.",
  "property.upserted":
    "A property became visible (published) or its content changed. `record` is the property as `GET /v1/properties/{id}` with every field returns it.",
  "property.removed": "A property was unpublished or deleted: drop it. `record` is null.",
  "webhook.test":
    "Sent only by `POST /v1/webhooks/{id}/test`. `data.id` is the subscription's id, `data.sequence` 0 and `record` null.",
};

function payloadSchema(type: EventType): TSchema {
  const record = type.startsWith("lead.") ? LeadSchema : type === "property.upserted" ? PropertySchema : T.Null();
  return T.Object(
    {
      type: T.Literal(type),
      timestamp: T.String({ format: "date-time", description: "When the event happened" }),
      data: T.Object(
        {
          sequence: T.Integer({ minimum: 0, description: "The event's change-feed sequence: grows with every change" }),
          id: T.String({
            format: "uuid",
            description: type === "webhook.test" ? "The subscription's id" : "The record's id",
          }),
          record,
        },
        { additionalProperties: false },
      ),
    },
    { additionalProperties: false, description: EVENT_DESCRIPTIONS[type] },
  );
}

function payloadExample(type: EventType, examples: SandboxExamples): Json {
  const lead = examples.lead.data;
  const property = examples.property.data;
  const id = type.startsWith("lead.") ? lead.id : type === "webhook.test" ? EXAMPLE_SUBSCRIPTION_ID : property.id;
  const record =
    type === "lead.created"
      ? lead
      : type === "lead.updated"
        ? { ...lead, status: "IN_SERVICE" }
        : type === "property.upserted"
          ? property
          : null;
  return { type, timestamp: EXAMPLE_TIME, data: { sequence: type === "webhook.test" ? 0 : 5012, id, record } };
}

/** The document's top-level `webhooks`: one entry per event type. */
export function webhookEvents(examples: SandboxExamples): Record<string, Json> {
  return Object.fromEntries(
    EVENT_TYPES.map((type) => [
      type,
      {
        post: {
          operationId: `receive_${type.replace(".", "_")}`,
          tags: ["Webhooks"],
          summary: `Event ${type}`,
          description: `${EVENT_DESCRIPTIONS[type]}\n\n${DELIVERY_DESCRIPTION}`,
          security: [],
          parameters: SIGNATURE_HEADERS,
          requestBody: {
            required: true,
            content: {
              "application/json": {
                schema: toOpenApiSchema(payloadSchema(type)),
                example: payloadExample(type, examples),
              },
            },
          },
          responses: {
            "200": { description: "Any 2xx acknowledges the delivery" },
            "410": { description: "Gone: the subscription is disabled at once" },
          },
        },
      },
    ]),
  );
}
