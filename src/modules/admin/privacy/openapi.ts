// The personal-data routes of the admin API (docs/operators/personal-data.md), as the admin
// OpenAPI document lists them (src/modules/admin/openapi.ts builds it).
import type { AdminRouteDoc } from "../route-doc.ts";
import { REQUEST_KINDS, REQUEST_STATUSES } from "./register.ts";

const obj = (properties: Record<string, unknown>, required: string[] = []) => ({
  type: "object",
  additionalProperties: false,
  properties,
  required,
});
const str = (extra: Record<string, unknown> = {}) => ({ type: "string", ...extra });

const PERSON = [
  { name: "database", description: "The database's name in the config", required: true },
  { name: "email", description: "The person's e-mail, compared case-folded (or phone)" },
  {
    name: "phone",
    description: "The person's phone, compared by its digits, with or without +55 and the area code's zero (or email)",
  },
];
const DATABASE_ERRORS = { "503": "SERVICE_UNAVAILABLE: the database is not open" };

export const PRIVACY_ROUTES: readonly AdminRouteDoc[] = [
  {
    method: "get",
    path: "/privacy/people",
    summary: "A person's leads, found by e-mail or phone, with every field: { data: [lead] } (empty when none)",
    who: "admin",
    query: PERSON,
    errors: DATABASE_ERRORS,
    status: 200,
  },
  {
    method: "get",
    path: "/privacy/export",
    summary:
      "The export of a person (access and portability): { data: { leads: [{ lead, sharedWith: { createdBy, readers, deliveries: [{ clientId, event, at, outcome }] } }] } }",
    who: "admin",
    query: PERSON,
    errors: DATABASE_ERRORS,
    status: 200,
  },
  {
    method: "post",
    path: "/privacy/anonymize",
    summary:
      "Anonymize a person's leads (by email, phone or leadIds): nothing of them stays, and every client that was sent or may read a lead is sent lead.anonymized. { data: { anonymized: n } }",
    who: "admin",
    body: obj(
      {
        database: str(),
        email: str({ maxLength: 254 }),
        phone: str({ maxLength: 40 }),
        leadIds: { type: "array", items: str({ maxLength: 64 }), maxItems: 10000 },
      },
      ["database"],
    ),
    errors: DATABASE_ERRORS,
    status: 200,
  },
  {
    method: "patch",
    path: "/leads/{database}/{id}",
    summary:
      "Correct a lead's name, e-mail, phone or message: the change feed shows it and lead.updated goes to the clients that read it. Answers the lead with every field",
    who: "admin",
    body: obj({
      name: str({ minLength: 1, maxLength: 200 }),
      email: str({ maxLength: 254 }),
      phone: str({ minLength: 1, maxLength: 40 }),
      message: str({ minLength: 1, maxLength: 5000 }),
    }),
    errors: { "404": "NOT_FOUND: no lead with this id in this database", ...DATABASE_ERRORS },
    status: 200,
  },
  {
    method: "get",
    path: "/privacy/requests",
    summary: "The register of personal-data requests: open ones first, the most urgent first; overdue ones marked",
    who: "admin",
    status: 200,
  },
  {
    method: "post",
    path: "/privacy/requests",
    summary: "Register a person's request; its answer is due 15 days after it was received",
    who: "admin",
    body: obj(
      {
        kind: { type: "string", enum: [...REQUEST_KINDS] },
        database: str(),
        email: str({ maxLength: 254 }),
        phone: str({ maxLength: 40 }),
        receivedAt: str({ format: "date-time" }),
      },
      ["kind", "database"],
    ),
    status: 201,
  },
  {
    method: "patch",
    path: "/privacy/requests/{id}",
    summary:
      "Record who handles a request, or close it (completed or refused): the person's identifiers are then dropped",
    who: "admin",
    body: obj({ status: { type: "string", enum: [...REQUEST_STATUSES] }, handledBy: { type: ["string", "null"] } }),
    errors: { "404": "NOT_FOUND: no such request", "409": "REQUEST_CLOSED: a closed request is never reopened" },
    status: 200,
  },
];
