// The rules every imported listing meets, whatever its format: a bad listing is refused with
// every problem named, never half-stored.
import { OPERATION_TYPES, PROPERTY_STATUSES } from "../catalog/enums.ts";
import { isUf } from "./brazil.ts";
import type { Listing } from "./listing.ts";
import { isHttpUrl, MAX_URL_LENGTH } from "./values/photos.ts";
import { PUBLICATION_TIERS } from "./values/vocabularies.ts";

export const MAX_CODE_LENGTH = 100; // a lead's propertyCode is at most 100 characters (docs/reference/behaviour.md §9)
export const MAX_TITLE_LENGTH = 500;
export const MAX_TEXT_LENGTH = 100_000;

/** C0 controls other than tab, newline and carriage return: not allowed in XML 1.0, never meant in a listing. */
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/;

/** Names problems in the reader's own vocabulary (a VRSync feed says ListPrice, not pricing.salePrice). */
export type Label = (path: string) => string;
export const apiLabel: Label = (path) => path;

/** Money and areas carry at most two decimals (centavos); more is a thousands separator misread. */
function hasAtMostTwoDecimals(value: number): boolean {
  return Math.round(value * 100) / 100 === value;
}

function checkText(problems: string[], name: string, value: string | null, max: number): void {
  if (value === null) return;
  if (value.length > max) problems.push(`${name}: longer than ${max} characters`);
  if (CONTROL.test(value)) problems.push(`${name}: contains control characters`);
}

function checkNumber(
  problems: string[],
  name: string,
  value: number | null,
  kind: "money" | "area" | "count" | "floor",
): void {
  if (value === null) return;
  if (!Number.isFinite(value) || Math.abs(value) > 1e12) {
    problems.push(`${name}: must be a finite number below 10^12`);
  } else if (kind !== "floor" && value < 0) {
    problems.push(`${name}: must not be negative (got ${value})`);
  } else if ((kind === "count" || kind === "floor") && !Number.isInteger(value)) {
    problems.push(`${name}: must be an integer (got ${value})`);
  } else if ((kind === "money" || kind === "area") && !hasAtMostTwoDecimals(value)) {
    problems.push(`${name}: must have at most two decimals (got ${value})`);
  }
}

function checkPhotos(problems: string[], listing: Listing, label: Label): void {
  const ids = new Set<string>();
  for (const [index, photo] of listing.photos.entries()) {
    const name = `${label("photos")}[${index + 1}]`;
    if (!isHttpUrl(photo.url))
      problems.push(`${name}: url must be an absolute http(s) URL of at most ${MAX_URL_LENGTH} characters`);
    checkText(problems, `${name}.alt`, photo.alt, MAX_TITLE_LENGTH);
    if (photo.id !== null) {
      if (photo.id === "" || photo.id.length > 100) problems.push(`${name}: id must be 1 to 100 characters`);
      if (ids.has(photo.id)) problems.push(`${name}: id ${photo.id} is used twice`);
      ids.add(photo.id);
    }
  }
}

/** Every rule the listing breaks; empty when it can be imported. */
export function listingProblems(listing: Listing, label: Label = apiLabel): string[] {
  const problems: string[] = [];
  if (listing.code === "") problems.push(`${label("code")}: is required`);
  checkText(problems, label("code"), listing.code, MAX_CODE_LENGTH);
  if (listing.title === "") problems.push(`${label("title")}: is required`);
  checkText(problems, label("title"), listing.title, MAX_TITLE_LENGTH);
  checkText(problems, label("description"), listing.description, MAX_TEXT_LENGTH);
  checkText(problems, label("propertyType"), listing.propertyType, MAX_TITLE_LENGTH);
  if (!(OPERATION_TYPES as readonly string[]).includes(listing.operationType)) {
    problems.push(`${label("operationType")}: must be one of ${OPERATION_TYPES.join(", ")}`);
  }
  if (!(PROPERTY_STATUSES as readonly string[]).includes(listing.status)) {
    problems.push(`${label("status")}: must be one of ${PROPERTY_STATUSES.join(", ")}`);
  }
  if (!(PUBLICATION_TIERS as readonly string[]).includes(listing.highlight)) {
    problems.push(`${label("highlight")}: must be one of ${PUBLICATION_TIERS.join(", ")}`);
  }
  for (const [key, value] of Object.entries(listing.address))
    checkText(problems, label(`address.${key}`), value, MAX_TITLE_LENGTH);
  const { uf, cep } = listing.address;
  if (uf !== null && !isUf(uf)) problems.push(`${label("address.uf")}: ${uf} is not a Brazilian state abbreviation`);
  if (cep !== null && !/^\d{5}-\d{3}$/.test(cep)) problems.push(`${label("address.cep")}: must be a CEP of 8 digits`);
  const { latitude, longitude } = listing.coordinates;
  if (latitude !== null && !(latitude >= -90 && latitude <= 90))
    problems.push(`${label("coordinates.latitude")}: must be between -90 and 90`);
  if (longitude !== null && !(longitude >= -180 && longitude <= 180))
    problems.push(`${label("coordinates.longitude")}: must be between -180 and 180`);
  const f = listing.features;
  checkNumber(problems, label("features.totalArea"), f.totalArea, "area");
  checkNumber(problems, label("features.builtArea"), f.builtArea, "area");
  for (const key of ["bedrooms", "bathrooms", "suites", "parkingSpaces", "totalFloors"] as const) {
    checkNumber(problems, label(`features.${key}`), f[key], "count");
  }
  checkNumber(problems, label("features.floor"), f.floor, "floor");
  for (const [key, value] of Object.entries(listing.pricing))
    checkNumber(problems, label(`pricing.${key}`), value, "money");
  checkPhotos(problems, listing, label);
  return problems;
}
