// The documentation of the webhook subscription routes (docs/reference/behaviour-extensions.md §13), each passed on its
// route as its `detail`; the request bodies are the TypeBox schemas that validate them (model.ts).
// The events a receiver gets are the document's top-level `webhooks` (openapi-events.ts), carried
// by the subscribing route.
import type { TSchema } from "@sinclair/typebox";
import { toOpenApiSchema } from "../../docs/json-schema.ts";
import { type DocContext, json, protectedResponses, route } from "../../docs/operation.ts";
import type { Parameter } from "../../docs/parameters.ts";
import { responseHeaders } from "../../docs/responses.ts";
import { dataOf, pageOf } from "../../docs/schemas.ts";
import { DEFAULT_LIMIT, MAX_LIMIT, MAX_PAGE } from "../../query/params.ts";
import { EVENT_TYPES } from "./events.ts";
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
} from "./model.ts";
import { EXAMPLE_SUBSCRIPTION_ID, EXAMPLE_TIME, webhookEvents } from "./openapi-events.ts";

type Json = Record<string, unknown>;

const TAG = "Webhooks";
const EXAMPLE_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwCDKc+O0v6Wo=";
const EXAMPLE_URL = "https://crm.example.com/webhooks/partner-api";

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

export const WEBHOOK_ROUTES = {
  create: {
    ...route("post", "/v1/webhooks", TAG, () => ({
      operationId: "createWebhookSubscription",
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
    })),
    // Subscribing is what makes the API post these events: the route carries them to the document.
    webhooks: ({ examples }: DocContext) => webhookEvents(examples),
  },
  list: route("get", "/v1/webhooks", TAG, () => ({
    operationId: "listWebhookSubscriptions",
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
  })),
  get: route("get", "/v1/webhooks/:id", TAG, () => ({
    operationId: "getWebhookSubscription",
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
  })),
  update: route("patch", "/v1/webhooks/:id", TAG, () => ({
    operationId: "updateWebhookSubscription",
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
  })),
  delete: route("delete", "/v1/webhooks/:id", TAG, () => ({
    operationId: "deleteWebhookSubscription",
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
  })),
  rotateSecret: route("post", "/v1/webhooks/:id/rotate-secret", TAG, () => ({
    operationId: "rotateWebhookSecret",
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
  })),
  test: route("post", "/v1/webhooks/:id/test", TAG, () => ({
    operationId: "testWebhook",
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
  })),
  deliveries: route("get", "/v1/webhooks/:id/deliveries", TAG, () => ({
    operationId: "listWebhookDeliveries",
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
  })),
  replay: route("post", "/v1/webhooks/:id/replay", TAG, () => ({
    operationId: "replayWebhooks",
    summary: "Deliver again every event after a sequence",
    description:
      "For a receiver that lost data: every event the subscription takes with a sequence after `after` (each compared in " +
      "its own stream: property events with property sequences, lead events with your lead sequences) is delivered " +
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
  })),
};
