// The top-level `webhooks` section of the OpenAPI document (docs/reference/behaviour-extensions.md §13): each event a
// partner's receiver gets, with the headers that sign it and the record it carries. The
// subscription routes are declared beside their routes (openapi.ts), and the subscribing route
// carries these events to the document.
import { Type as T, type TSchema } from "@sinclair/typebox";
import type { SandboxExamples } from "../../docs/examples.ts";
import { toOpenApiSchema } from "../../docs/json-schema.ts";
import type { Parameter } from "../../docs/parameters.ts";
import { LeadSchema, PropertySchema } from "../../docs/schemas.ts";
import { EVENT_TYPES, type EventType } from "./events.ts";
import { MAX_ATTEMPTS, RETRY_DELAYS_MS } from "./schedule.ts";

type Json = Record<string, unknown>;

/** The subscription every example names (the docs tests create it in the sandbox they call). */
export const EXAMPLE_SUBSCRIPTION_ID = "3f8e7c1a-9b2d-4c5e-8f1a-2b3c4d5e6f70";
export const EXAMPLE_TIME = "2026-01-05T14:30:00.000Z";

const seconds = (ms: number) =>
  ms < 60_000 ? `${ms / 1000} s` : ms < 3_600_000 ? `${ms / 60_000} min` : `${ms / 3_600_000} h`;

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
  "lead.anonymized":
    "A lead's person had their personal data erased at the agency (LGPD, Art. 18): name `Titular anonimizado`, e-mail, phone and message empty. Sent to every subscription of every client that was sent the lead or may read it, whatever events the subscription lists. Erase or anonymize every copy you keep of this lead, and pass the request on to whoever you shared it with. `record` is the lead as it is now, or null when your client may no longer read it.",
  "property.upserted":
    "A property became visible (published) or its content changed. `record` is the property as `GET /v1/properties/{id}` with every field returns it.",
  "property.removed": "A property was unpublished or deleted: drop it. `record` is null.",
  "webhook.test":
    "Sent only by `POST /v1/webhooks/{id}/test`. `data.id` is the subscription's id, `data.sequence` 0 and `record` null.",
};

function payloadSchema(type: EventType): TSchema {
  const record =
    type === "lead.anonymized"
      ? T.Union([LeadSchema, T.Null()])
      : type.startsWith("lead.")
        ? LeadSchema
        : type === "property.upserted"
          ? PropertySchema
          : T.Null();
  return T.Object(
    {
      type: T.Literal(type),
      timestamp: T.String({ format: "date-time", description: "When the event happened" }),
      data: T.Object(
        {
          sequence: T.Integer({
            minimum: 0,
            description:
              "The event's sequence as the change feed numbers it for you: grows with every change of the entity you may read",
          }),
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
        : type === "lead.anonymized"
          ? { ...lead, name: "Titular anonimizado", email: "", phone: "", message: "" }
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
