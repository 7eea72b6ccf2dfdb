// The lead field catalogue: names, descriptions, SQL and value schemas of every readable field.
import { Type as T } from "@sinclair/typebox";
import { EMAIL_FORMAT } from "./email.ts";
import { LEAD_PRIORITIES, LEAD_SOURCES, LEAD_STATUSES } from "./enums.ts";
import { DateTime, NullableString, oneOf } from "./schemas.ts";
import type { EntityCatalog, FieldSpec, FilterSpec } from "./types.ts";

export const LEAD_FIELDS: readonly FieldSpec[] = [
  { name: "id", description: "Unique identifier (UUID)", sql: "l.id", schema: T.String({ format: "uuid" }) },
  { name: "name", description: "Contact name", sql: "l.name", schema: T.String() },
  { name: "email", description: "Contact e-mail", sql: "l.email", schema: T.String({ format: EMAIL_FORMAT }) },
  { name: "phone", description: "Contact phone", sql: "l.phone", schema: T.String() },
  { name: "message", description: "Message from the contact", sql: "l.message", schema: T.String() },
  { name: "source", description: "Where the lead came from", sql: "l.source", schema: oneOf(LEAD_SOURCES) },
  { name: "status", description: "Position in the sales funnel", sql: "l.status", schema: oneOf(LEAD_STATUSES) },
  { name: "priority", description: "Lead priority", sql: "l.priority", schema: oneOf(LEAD_PRIORITIES) },
  {
    name: "propertyId",
    description: "Id of the linked property, or null",
    sql: "l.property_id",
    schema: T.Union([T.String({ format: "uuid" }), T.Null()]),
  },
  {
    name: "interestedPropertyTitle",
    description: "Title of the property of interest, or null",
    sql: "l.interested_property_title",
    schema: NullableString,
  },
  {
    name: "createdBy",
    description: "Id of the partner client that created the lead, or null for leads the agency loaded (seed, import)",
    sql: "l.created_by",
    schema: NullableString,
  },
  { name: "createdAt", description: "Creation time (ISO 8601, UTC)", sql: "l.created_at", schema: DateTime },
  { name: "updatedAt", description: "Last update time (ISO 8601, UTC)", sql: "l.updated_at", schema: DateTime },
];

/**
 * The lead's owner: forced to the caller's id for a client that reads only its own leads. Counted
 * (lead_counts), but with no per-day counters: an owner's deep pages walk leads_owner_created
 * (in creation order), which holds both dates and the status, so the walk reads index entries
 * only (migration 8).
 */
export const CREATED_BY_FILTER: FilterSpec = {
  param: "createdBy",
  column: "l.created_by",
  description: "Id of the client that created the lead",
  countColumn: "created_by",
  drives: "created",
  example: "sandbox",
};

export const LEAD_CATALOG: EntityCatalog = {
  entity: "leads",
  table: "leads",
  alias: "l",
  visible: "1 = 1",
  fields: LEAD_FIELDS,
  filters: [
    {
      param: "status",
      column: "l.status",
      description: "Lead status",
      values: LEAD_STATUSES,
      countColumn: "status",
      dayDimension: "status",
      inDateIndexes: true,
    },
    { param: "source", column: "l.source", description: "Lead source", values: LEAD_SOURCES, countColumn: "source" },
    {
      param: "priority",
      column: "l.priority",
      description: "Lead priority",
      values: LEAD_PRIORITIES,
      countColumn: "priority",
      inDateIndexes: true,
    },
    CREATED_BY_FILTER,
  ],
  values: [
    { field: "status", values: LEAD_STATUSES },
    { field: "source", values: LEAD_SOURCES },
    { field: "priority", values: LEAD_PRIORITIES },
    { field: "createdBy", column: "created_by" },
  ],
  countsTable: "lead_counts",
  daysTable: "lead_days",
  pairsTable: "lead_date_pairs",
};
