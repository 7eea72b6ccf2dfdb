// The documentation of POST /v1/inbound/{clientId} (docs/operators/portal-leads.md), passed on
// the route as its `detail`: both portal formats as request bodies, each with its portal's own
// published example, and the one 401 of every wrong way in.
import { Type as T } from "@sinclair/typebox";
import { SANDBOX_INBOUND } from "../../docs/examples.ts";
import { toOpenApiSchema } from "../../docs/json-schema.ts";
import { json, route } from "../../docs/operation.ts";
import { errorResponses } from "../../docs/responses.ts";
import { dataOf } from "../../docs/schemas.ts";
import { INBOUND_CHALLENGE } from "../../plugins/guard.ts";
import { CHAVESNAMAO_EXAMPLE, ChavesNaMaoLeadSchema, GRUPOZAP_EXAMPLE, GrupoZapLeadSchema } from "./model.ts";

type Json = Record<string, unknown>;

const ReceivedLeadSchema = dataOf(
  T.Object(
    { id: T.String({ description: "The lead's id in this API (GET /v1/leads/{id} with the client's token)" }) },
    { title: "ReceivedLead", additionalProperties: false },
  ),
);

/** Ids of the example answers (a time-ordered lead id, as the server makes them). */
const EXAMPLE_ANSWER = { data: { id: "019b8f2e-4c1a-7d3e-9a55-2f0c6b7e81d4" } };

export const INBOUND_ROUTES = {
  post: route("post", "/v1/inbound/:clientId", "Portal leads", () => {
    const errors = errorResponses(
      [
        "VALIDATION_ERROR",
        "MISSING_BODY",
        "INVALID_API_SECRET",
        "API_DISABLED",
        "NO_DATABASE",
        "PAYLOAD_TOO_LARGE",
        "RATE_LIMIT_EXCEEDED",
        "INTERNAL_ERROR",
        "SERVICE_UNAVAILABLE",
      ],
      "rateLimited",
      {
        VALIDATION_ERROR:
          "name: is required; email: is required when there is no phone; phone: is required when there is no e-mail",
        INVALID_API_SECRET: INBOUND_CHALLENGE.message,
      },
    );
    const unauthorized = errors["401"] as Json;
    errors["401"] = {
      ...unauthorized,
      description:
        "Not authenticated: wrong or missing Basic credentials, an id that takes no portal leads, or an address off the client's list, " +
        "all with this same answer",
      headers: {
        ...(unauthorized.headers as Json),
        "WWW-Authenticate": { $ref: "#/components/headers/WWWAuthenticate" },
      },
    };
    return {
      operationId: "receivePortalLead",
      summary: "A lead as a portal posts it",
      description:
        "Not for partners' code: the URL an agency registers in a portal's panel, so the portal posts each lead to it by itself, in its " +
        "own JSON, with HTTP Basic auth: Grupo ZAP (ZAP Imóveis, VivaReal, OLX) from Canal Pro, Chaves na Mão from its lead " +
        "integration. The client's config says which format it takes and the user and password to expect. The lead belongs to that " +
        "client (`createdBy`), like one made by POST /v1/leads: its lists, `lead.created` webhooks and the change feed carry it.\n\n" +
        "Read leniently: refused (400) only without a name, or without both an e-mail and a phone; a missing or malformed e-mail and a " +
        "missing message are stored empty, text over the limits of POST /v1/leads is cut, unknown keys are ignored, and the " +
        "Content-Type is not looked at. The portal's listing code (`clientListingId`, `ad.reference`) links the lead as `propertyCode` " +
        "does.\n\nThe portal's own lead id (`originLeadId`, `id`) is kept with the lead: a repeat of it for the same client, at any later " +
        "time or while the first is still being written, answers 200 with the first lead's id and creates nothing. A 201 means the lead " +
        "is on disk.",
      access: "inbound",
      parameters: [
        {
          name: "clientId",
          in: "path",
          required: true,
          description: "The id of the client the portal's leads belong to (its config has `inbound`)",
          schema: { type: "string" },
          example: SANDBOX_INBOUND.grupozap.clientId,
        },
      ],
      requestBody: {
        required: true,
        description: "The lead in the format of the client's portal",
        content: {
          "application/json": {
            // Which one is decided by the client's config, not by the body: they overlap, so anyOf.
            schema: { anyOf: [toOpenApiSchema(GrupoZapLeadSchema), toOpenApiSchema(ChavesNaMaoLeadSchema)] },
            examples: {
              grupozap: { summary: "Grupo ZAP's published example (format grupozap)", value: GRUPOZAP_EXAMPLE },
              chavesnamao: {
                summary: "Chaves na Mão's published example (format chavesnamao)",
                value: CHAVESNAMAO_EXAMPLE,
              },
            },
          },
        },
      },
      responses: {
        "201": json(ReceivedLeadSchema, EXAMPLE_ANSWER, "A new lead, on disk", "rateLimited"),
        "200": json(
          ReceivedLeadSchema,
          EXAMPLE_ANSWER,
          "A repeat of a portal lead id this client already has: that lead's id; nothing was written",
          "rateLimited",
        ),
        ...errors,
      },
    };
  }),
};
