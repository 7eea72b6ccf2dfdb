// Enumerations of the specification (docs/reference/behaviour.md §8), in the order it lists them.

export const OPERATION_TYPES = ["SALE", "RENT", "SEASONAL"] as const;
export const PROPERTY_STATUSES = ["AVAILABLE", "RENTED", "RESERVED", "SOLD", "UNAVAILABLE"] as const;
/**
 * How much of its address an agency lets partners show (VRSync `displayAddress`, docs/reference/behaviour-extensions.md §16):
 * everything, the street without number and complement, or only the neighbourhood.
 */
export const ADDRESS_VISIBILITIES = ["ALL", "STREET", "NEIGHBORHOOD"] as const;
/** Portal publication tiers used by the sandbox data; `highlight` itself is free text. */
export const HIGHLIGHT_TIERS = ["STANDARD", "PREMIUM", "SUPER_PREMIUM", "TRIPLE"] as const;

export const LEAD_SOURCES = [
  "WEBSITE",
  "WHATSAPP",
  "PHONE",
  "EMAIL",
  "SOCIAL_MEDIA",
  "INSTAGRAM",
  "FACEBOOK",
  "PORTAL",
  "PORTAL_VIVAREAL",
  "PORTAL_ZAPIMOVEIS",
  "PORTAL_OLX",
  "PORTAL_IMOVELWEB",
  "PORTAL_CHAVESNAMAO",
  "META_ADS",
  "GOOGLE_ADS",
  "RD_STATION",
  "REFERRAL",
  "REAL_ESTATE",
  "OTHER",
  "API",
] as const;
export const LEAD_STATUSES = [
  "NEW_LEAD",
  "IN_SERVICE",
  "VISIT_SCHEDULED",
  "VISIT_COMPLETED",
  "PROPOSAL_MADE",
  "CONVERTED",
  "LOST",
] as const;
export const LEAD_PRIORITIES = ["LOW", "MEDIUM", "HIGH", "URGENT"] as const;

export type OperationType = (typeof OPERATION_TYPES)[number];
export type PropertyStatus = (typeof PROPERTY_STATUSES)[number];
export type AddressVisibility = (typeof ADDRESS_VISIBILITIES)[number];
export type LeadSource = (typeof LEAD_SOURCES)[number];
export type LeadStatus = (typeof LEAD_STATUSES)[number];
export type LeadPriority = (typeof LEAD_PRIORITIES)[number];
