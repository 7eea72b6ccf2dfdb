// Listings → VRSync XML text, one <Listing> at a time, so an export streams. What VRSync cannot
// say travels in the partner-api extension namespace; the output re-imports to the same data.
import type { AddressVisibility } from "../../catalog/enums.ts";
import type { Listing } from "../listing.ts";
import { readText } from "../values/text.ts";
import {
  EXTENSION_NAMESPACE,
  FURNISHED_FEATURE,
  meansFurnished,
  EXTENSION_PREFIX as PA,
  VRSYNC_NAMESPACE,
  VRSYNC_SCHEMA_LOCATION,
  vrsyncPropertyType,
} from "./vocabulary.ts";

/** The API's address visibility → VRSync's displayAddress. */
const DISPLAY_ADDRESS: Readonly<Record<AddressVisibility, string>> = {
  ALL: "All",
  STREET: "Street",
  NEIGHBORHOOD: "Neighborhood",
};

/** Longest ListingID a reader takes (a lead's propertyCode is at most 100 characters). */
const MAX_LISTING_ID_LENGTH = 100;
/** Characters XML 1.0 cannot carry, even escaped (its `Char` production); lone surrogates are tested apart. */
const NOT_XML_CHAR = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/;

function xmlProblem(name: string, value: unknown): string | null {
  if (value === null || value === undefined || typeof value === "number" || typeof value === "boolean") return null;
  if (typeof value !== "string") return `${name}: not text`;
  return NOT_XML_CHAR.test(value) || !value.isWellFormed() ? `${name}: contains characters XML cannot carry` : null;
}

/**
 * Why a listing cannot be written as VRSync a reader accepts, or null when it can: no ListingID
 * or one over 100 characters, no Title (both as readers read them), or text XML cannot
 * carry (control characters, a lone surrogate) in anything written. A feed must leave such a
 * listing out: one bad character makes the whole document malformed for a strict parser, and a
 * portal that cannot read the file takes every listing down. Checked on the listing as stored.
 */
export function unwritableReason(listing: Listing): string | null {
  const code = typeof listing.code === "string" ? listing.code.trim() : "";
  if (code === "") return "ListingID: is empty";
  if (code.length > MAX_LISTING_ID_LENGTH) return `ListingID: longer than ${MAX_LISTING_ID_LENGTH} characters`;
  // Empty as readers read it: trimmed, cleaned of control characters (C1 ones included) and of an escaped CDATA wrapper.
  if (typeof listing.title !== "string" || readText(listing.title, Number.MAX_SAFE_INTEGER).value === null)
    return "Title: is empty";
  if (!Array.isArray(listing.amenities) || listing.amenities.some((name) => typeof name !== "string"))
    return "Features: not a list of names";
  const { address: a } = listing;
  // Checked in place, without building a list: a feed's first pass checks every listing.
  const problem =
    xmlProblem("ListingID", listing.code) ??
    xmlProblem("Title", listing.title) ??
    xmlProblem("Description", listing.description) ??
    xmlProblem("PropertyType", listing.propertyType) ??
    xmlProblem("PublicationType", listing.highlight) ??
    xmlProblem("Address", a.street) ??
    xmlProblem("StreetNumber", a.number) ??
    xmlProblem("Complement", a.complement) ??
    xmlProblem("Neighborhood", a.neighborhood) ??
    xmlProblem("City", a.city) ??
    xmlProblem("State", a.state) ??
    xmlProblem("State@abbreviation", a.uf) ??
    xmlProblem("PostalCode", a.cep);
  if (problem !== null) return problem;
  for (const name of listing.amenities) {
    const amenityProblem = xmlProblem("Feature", name);
    if (amenityProblem !== null) return amenityProblem;
  }
  for (const photo of listing.photos) {
    const photoProblem =
      xmlProblem("Media/Item", photo.url) ??
      xmlProblem("Media/Item@caption", photo.alt) ??
      xmlProblem("Media/Item@pa:id", photo.id);
    if (photoProblem !== null) return photoProblem;
  }
  return null;
}

// Most text needs no escaping: tested first, it is returned as it is, with no new string (a
// portal feed writes millions of values, and its garbage is what pauses the server).
const TEXT_SPECIAL = /[&<>\r]/;
const ATTRIBUTE_SPECIAL = /[&<>\r"\t\n]/;

/** Escapes text content; \r as a reference, since XML parsers turn a raw CR LF into LF. */
function escapeText(text: string): string {
  if (!TEXT_SPECIAL.test(text)) return text;
  return text.replace(/[&<>\r]/g, (c) => (c === "&" ? "&amp;" : c === "<" ? "&lt;" : c === ">" ? "&gt;" : "&#13;"));
}

/** Attribute values also lose raw tabs and newlines to whitespace normalisation. */
function escapeAttribute(text: string): string {
  if (!ATTRIBUTE_SPECIAL.test(text)) return text;
  return escapeText(text).replace(/["\t\n]/g, (c) => (c === '"' ? "&quot;" : c === "\t" ? "&#9;" : "&#10;"));
}

/** Plain decimal notation: String() would write 1e-7 for a tiny coordinate. */
function formatNumber(value: number): string {
  const text = String(value);
  return /e/i.test(text) ? value.toFixed(20).replace(/\.?0+$/, "") : text;
}

type Attributes = Record<string, string | null>;

const NO_ATTRIBUTES: Attributes = {};

function attributes(attrs: Attributes): string {
  let text = "";
  for (const name in attrs) {
    const value = attrs[name];
    if (value !== null && value !== undefined) text += ` ${name}="${escapeAttribute(value)}"`;
  }
  return text;
}

/** An element, or nothing when the value is null (VRSync: absent means unknown). */
function element(
  indent: string,
  name: string,
  value: string | number | boolean | null,
  attrs: Attributes = NO_ATTRIBUTES,
): string {
  if (value === null) return "";
  const text = typeof value === "number" ? formatNumber(value) : String(value);
  return `${indent}<${name}${attributes(attrs)}>${escapeText(text)}</${name}>\n`;
}

/** Sale/Rent only with both prices: with only a rent, a reader takes Sale/Rent for a rental (docs/reference/behaviour-extensions.md §16). */
function transactionType(listing: Listing): string {
  if (listing.operationType !== "SALE") return "For Rent"; // SEASONAL adds pa:Seasonal
  return listing.pricing.rentalPrice !== null && listing.pricing.salePrice !== null ? "Sale/Rent" : "For Sale";
}

const PHOTO_ID = `${PA}:id`;

function media(listing: Listing): string {
  if (listing.photos.length === 0) return "";
  let items = "";
  for (const photo of listing.photos) {
    items += element("        ", "Item", photo.url, {
      medium: "image",
      caption: photo.alt,
      primary: photo.isMain ? "true" : null,
      [PHOTO_ID]: photo.id,
    });
  }
  return `      <Media>\n${items}      </Media>\n`;
}

/** The amenities as Features; `Furnished` added when the listing is furnished and none of them says so. */
function features(listing: Listing, indent: string): string {
  const names = [...listing.amenities];
  if (listing.features.isFurnished && !names.some(meansFurnished)) names.push(FURNISHED_FEATURE);
  if (names.length === 0) return "";
  return `${indent}<Features>\n${names.map((name) => element(`${indent}  `, "Feature", name)).join("")}${indent}</Features>\n`;
}

/**
 * The rent as written. A rental with a sale price but no rent gets a rent of 0, "sob consulta"
 * (read back as null): without any RentalPrice, a reader takes a rental's ListPrice for its rent
 * (docs/reference/behaviour-extensions.md §16), and the sale price would come back as the monthly rent.
 */
function rentalPrice(listing: Listing): number | null {
  const { salePrice, rentalPrice: rent } = listing.pricing;
  return rent === null && salePrice !== null && listing.operationType !== "SALE" ? 0 : rent;
}

function details(listing: Listing): string {
  const { features: f, pricing: p } = listing;
  const I = "        ";
  const type = listing.propertyType === null ? null : vrsyncPropertyType(listing.propertyType);
  return (
    "      <Details>\n" +
    element(I, "UsageType", type === null ? null : type.split(" / ")[0]!) +
    element(I, "PropertyType", type) +
    element(I, "Description", listing.description === "" ? null : listing.description) +
    element(I, "ListPrice", p.salePrice, { currency: "BRL" }) +
    element(I, "RentalPrice", rentalPrice(listing), { currency: "BRL", period: "Monthly" }) +
    element(I, "PropertyAdministrationFee", p.condominiumFee, { currency: "BRL" }) +
    element(I, "Iptu", p.iptu, { currency: "BRL", period: "Yearly" }) +
    element(I, "LivingArea", f.builtArea, { unit: "square metres" }) +
    element(I, "LotArea", f.totalArea, { unit: "square metres" }) +
    element(I, "Bedrooms", f.bedrooms) +
    element(I, "Bathrooms", f.bathrooms) +
    element(I, "Suites", f.suites) +
    element(I, "Garage", f.parkingSpaces) +
    element(I, "UnitFloor", f.floor) +
    element(I, "Floors", f.totalFloors) +
    features(listing, I) +
    "      </Details>\n"
  );
}

function location(listing: Listing): string {
  const { address: a, coordinates: c } = listing;
  const I = "        ";
  return (
    `      <Location displayAddress="${DISPLAY_ADDRESS[a.visibility]}">\n` +
    `${I}<Country abbreviation="BR">Brasil</Country>\n` +
    (a.state !== null || a.uf !== null
      ? `${I}<State${attributes({ abbreviation: a.uf })}>${escapeText(a.state ?? "")}</State>\n`
      : "") +
    element(I, "City", a.city) +
    element(I, "Neighborhood", a.neighborhood) +
    element(I, "Address", a.street) +
    element(I, "StreetNumber", a.number) +
    element(I, "Complement", a.complement) +
    element(I, "PostalCode", a.cep) +
    element(I, "Latitude", c.latitude) +
    element(I, "Longitude", c.longitude) +
    "      </Location>\n"
  );
}

/** One <Listing> element, indented for the Listings of vrsyncHeader(). */
export function vrsyncListing(listing: Listing): string {
  const I = "      ";
  const knownType = listing.propertyType === null || vrsyncPropertyType(listing.propertyType) !== null;
  return (
    "    <Listing>\n" +
    element(I, "ListingID", listing.code) +
    element(I, "Title", listing.title) +
    element(I, "TransactionType", transactionType(listing)) +
    element(I, "PublicationType", listing.highlight) +
    element(I, `${PA}:Status`, listing.status) +
    element(I, `${PA}:Exclusive`, listing.exclusive) +
    element(I, `${PA}:AcceptsFinancing`, listing.financing.acceptsFinancing) +
    element(I, `${PA}:Seasonal`, listing.operationType === "SEASONAL" ? true : null) +
    element(I, `${PA}:PropertyType`, knownType ? null : listing.propertyType) +
    media(listing) +
    details(listing) +
    location(listing) +
    "    </Listing>\n"
  );
}

/** The document up to the first listing. */
export function vrsyncHeader(provider: string, publishDate: string): string {
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    `<ListingDataFeed xmlns="${VRSYNC_NAMESPACE}" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"\n` +
    `                 xsi:schemaLocation="${VRSYNC_NAMESPACE} ${VRSYNC_SCHEMA_LOCATION}"\n` +
    `                 xmlns:${PA}="${EXTENSION_NAMESPACE}">\n` +
    "  <Header>\n" +
    element("    ", "Provider", provider) +
    element("    ", "PublishDate", publishDate) +
    "  </Header>\n" +
    "  <Listings>\n"
  );
}

export const VRSYNC_FOOTER = "  </Listings>\n</ListingDataFeed>\n";
