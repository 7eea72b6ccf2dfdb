// Field selections a partner sends in `fields` (SPEC: Resources and their fields).

/** What a listing card needs: the cheap, common read. */
export const PROPERTY_FEW = ["id", "code", "title", "operationType", "pricing"];

/** A full sync of a listing: every field and group, photos included, the expensive read. */
export const PROPERTY_ALL = [
  "id",
  "code",
  "title",
  "description",
  "operationType",
  "status",
  "propertyType",
  "highlight",
  "exclusive",
  "isPublished",
  "createdAt",
  "updatedAt",
  "address",
  "coordinates",
  "features",
  "pricing",
  "financing",
  "photos",
];

export const LEAD_FEW = ["id", "name", "email", "status", "createdAt"];

export const LEAD_ALL = [
  "id",
  "name",
  "email",
  "phone",
  "message",
  "source",
  "status",
  "priority",
  "propertyId",
  "interestedPropertyTitle",
  "createdAt",
  "updatedAt",
];

export const PROPERTY_STATUSES = ["AVAILABLE", "RENTED", "RESERVED", "SOLD", "UNAVAILABLE"];

export const LEAD_STATUSES = [
  "NEW_LEAD",
  "IN_SERVICE",
  "VISIT_SCHEDULED",
  "VISIT_COMPLETED",
  "PROPOSAL_MADE",
  "CONVERTED",
  "LOST",
];

/** Sources a partner would plausibly send; the server defaults to API when absent. */
export const LEAD_SOURCES = ["WEBSITE", "PORTAL", "PORTAL_ZAPIMOVEIS", "WHATSAPP", "INSTAGRAM"];
