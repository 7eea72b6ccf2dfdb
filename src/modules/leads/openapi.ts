// The documentation of the lead routes, each passed on its route as its `detail`. The request
// bodies are the TypeBox schemas that validate them (model.ts), so the document cannot drift.
import { CATALOGS } from "../../catalog/index.ts";
import {
  EXAMPLE_QUERIES,
  exampleProperty,
  LEAD_PATCH_EXAMPLE,
  leadRequestExample,
  type SandboxExamples,
} from "../../docs/examples.ts";
import { toOpenApiSchema } from "../../docs/json-schema.ts";
import { json, protectedResponses, route } from "../../docs/operation.ts";
import { fieldsParameter, idempotencyKeyParameter, idParameter, listParameters } from "../../docs/parameters.ts";
import { listMessages, recordMessages, responseHeaders } from "../../docs/responses.ts";
import { CreatedLeadSchema, dataOf, LeadRecordSchema, LeadSchema, pageOf } from "../../docs/schemas.ts";
import { LeadInputSchema, LeadPatchSchema } from "./model.ts";

const TAG = "Leads";
const leadSample = (examples: SandboxExamples) => examples.leadPage.data[0]!;

export const LEAD_ROUTES = {
  list: route("get", "/v1/leads", TAG, ({ examples }) => ({
    operationId: "listLeads",
    summary: "List leads",
    description:
      "A page of the leads you may read, with only the fields you ask for: with scope `leads:read:own` (the default) " +
      "the leads you created, with `leads:read` every lead of the agency. `total` counts only those.",
    access: "bearer",
    parameters: listParameters(CATALOGS.leads, EXAMPLE_QUERIES.leadPage, leadSample(examples)),
    responses: protectedResponses(
      { "200": json(pageOf(LeadRecordSchema), examples.leadPage, "A page of leads", "rateLimited") },
      ["VALIDATION_ERROR", "INVALID_FIELDS", "QUERY_TOO_BROAD", "SERVICE_UNAVAILABLE"],
      listMessages("trafficOrigin", "sourse: unknown parameter; did you mean source?"),
      "leads:read:own",
    ),
  })),
  get: route("get", "/v1/leads/:id", TAG, ({ examples }) => ({
    operationId: "getLead",
    summary: "Get one lead",
    description:
      "One lead you may read; an unknown id, another partner's lead (without `leads:read`) or another agency's is a 404.",
    access: "bearer",
    parameters: [
      idParameter("lead", leadSample(examples).id as string),
      fieldsParameter(CATALOGS.leads, EXAMPLE_QUERIES.lead.slice("fields=".length)),
    ],
    responses: protectedResponses(
      { "200": json(dataOf(LeadRecordSchema), examples.lead, "The lead", "rateLimited") },
      ["VALIDATION_ERROR", "INVALID_FIELDS", "NOT_FOUND", "SERVICE_UNAVAILABLE"],
      recordMessages("lead", "trafficOrigin"),
      "leads:read:own",
    ),
  })),
  create: route("post", "/v1/leads", TAG, ({ examples }) => ({
    operationId: "createLead",
    summary: "Create a lead",
    description:
      "Creates a lead with status NEW_LEAD and priority MEDIUM. A `propertyCode` of one of your published " +
      "properties links it (`propertyId` set, `interestedPropertyTitle` defaulting to the property's title). " +
      "Strings are trimmed; unknown and read-only keys are ignored. A 201 means the lead is on disk.",
    access: "bearer",
    parameters: [idempotencyKeyParameter],
    requestBody: {
      required: true,
      description: "The contact and, optionally, the property they asked about",
      content: {
        "application/json": {
          schema: toOpenApiSchema(LeadInputSchema),
          examples: {
            linked: {
              summary: "A contact about a listed property",
              value: leadRequestExample(exampleProperty(examples).code),
            },
            minimal: {
              summary: "Only the required fields",
              value: {
                name: "João Santos",
                email: "joao.santos@example.com",
                phone: "+55 21 99876-5432",
                message: "Procuro um apartamento de 2 quartos.",
              },
            },
          },
        },
      },
    },
    responses: protectedResponses(
      {
        "201": {
          ...json(
            dataOf(CreatedLeadSchema),
            examples.createdLead,
            "The created lead (or, with a reused Idempotency-Key, the first answer again)",
            "rateLimited",
          ),
          headers: {
            ...responseHeaders("rateLimited"),
            "Idempotent-Replayed": { $ref: "#/components/headers/IdempotentReplayed" },
          },
        },
      },
      [
        "VALIDATION_ERROR",
        "MISSING_BODY",
        "PAYLOAD_TOO_LARGE",
        "UNSUPPORTED_MEDIA_TYPE",
        "IDEMPOTENCY_KEY_REUSED",
        "SERVICE_UNAVAILABLE",
      ],
      { VALIDATION_ERROR: "email: must be a valid e-mail address; phone: is required" },
      "leads:create",
    ),
  })),
  update: route("patch", "/v1/leads/:id", TAG, ({ examples }) => ({
    operationId: "updateLead",
    summary: "Move a lead along the funnel",
    description:
      "For the agency's CRM (scope `leads:update`), on a lead it may read: sets `status` (any to any, a lost lead " +
      "can be reopened) and/or `priority`, and answers the lead with every field. A real change moves `updatedAt`, " +
      "enters the change feed and sends `lead.updated` to every subscription whose client may read the lead, the " +
      "partner that sent it included. The same values again answer 200 and write nothing.",
    access: "bearer",
    parameters: [idParameter("lead", leadSample(examples).id as string)],
    requestBody: {
      required: true,
      description: "The new status, priority, or both",
      content: {
        "application/json": {
          schema: toOpenApiSchema(LeadPatchSchema),
          examples: {
            visit: { summary: "A visit was scheduled, and the lead is now a priority", value: LEAD_PATCH_EXAMPLE },
            status: { summary: "The status alone", value: { status: "IN_SERVICE" } },
          },
        },
      },
    },
    responses: protectedResponses(
      { "200": json(dataOf(LeadSchema), examples.updatedLead, "The lead, with every field", "rateLimited") },
      [
        "VALIDATION_ERROR",
        "MISSING_BODY",
        "PAYLOAD_TOO_LARGE",
        "UNSUPPORTED_MEDIA_TYPE",
        "NOT_FOUND",
        "SERVICE_UNAVAILABLE",
      ],
      { VALIDATION_ERROR: "name: cannot be changed", NOT_FOUND: "No lead with this id" },
      "leads:update",
    ),
  })),
};
