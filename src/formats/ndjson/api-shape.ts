// A property in the API's JSON shape (as GET /v1/properties returns it) → a listing, checking
// every member's type; members the database assigns (id, createdAt, updatedAt, isPublished) are ignored.
import {
  ADDRESS_VISIBILITIES,
  type AddressVisibility,
  type OperationType,
  type PropertyStatus,
} from "../../catalog/enums.ts";
import { completeState, normalizeCep } from "../brazil.ts";
import { blankListing, type FeedListing, type Listing, type ListingPhoto, normalizePhotos } from "../listing.ts";
import { listingProblems } from "../validate.ts";

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Reads members with their expected types, collecting a problem per wrong one. */
class Members {
  readonly problems: string[] = [];

  object(parent: Json, key: string, path = key): Json {
    const value = parent[key];
    if (value === undefined || value === null) return {};
    if (isObject(value)) return value;
    this.problems.push(`${path}: must be an object`);
    return {};
  }

  /** A string, trimmed; absent, null or blank is null. */
  text(parent: Json, key: string, path = key): string | null {
    const value = parent[key];
    if (value === undefined || value === null) return null;
    if (typeof value !== "string") {
      this.problems.push(`${path}: must be a string or null`);
      return null;
    }
    const trimmed = value.trim();
    return trimmed === "" ? null : trimmed;
  }

  number(parent: Json, key: string, path = key): number | null {
    const value = parent[key];
    if (value === undefined || value === null) return null;
    if (typeof value !== "number") {
      this.problems.push(`${path}: must be a number or null`);
      return null;
    }
    return value;
  }

  boolean(parent: Json, key: string, path = key): boolean {
    const value = parent[key];
    if (value === undefined || value === null) return false;
    if (typeof value !== "boolean") {
      this.problems.push(`${path}: must be true or false`);
      return false;
    }
    return value;
  }

  /** An array of strings, trimmed, blanks and repeats dropped; absent or null is []. */
  strings(parent: Json, key: string): string[] {
    const value = parent[key];
    if (value === undefined || value === null) return [];
    if (!Array.isArray(value) || value.some((item) => typeof item !== "string")) {
      this.problems.push(`${key}: must be an array of strings`);
      return [];
    }
    return [...new Set((value as string[]).map((item) => item.trim()).filter((item) => item !== ""))];
  }

  photos(parent: Json): ListingPhoto[] {
    const value = parent.photos;
    if (value === undefined || value === null) return [];
    if (!Array.isArray(value)) {
      this.problems.push("photos: must be an array");
      return [];
    }
    return normalizePhotos(
      value.map((item: unknown, index) => {
        const path = `photos[${index + 1}]`;
        const photo = isObject(item) ? item : {};
        if (!isObject(item)) this.problems.push(`${path}: must be an object`);
        return {
          id: this.text(photo, "id", `${path}.id`),
          url: this.text(photo, "url", `${path}.url`) ?? "",
          alt: this.text(photo, "alt", `${path}.alt`),
          order: this.number(photo, "order", `${path}.order`) ?? index + 1,
          isMain: this.boolean(photo, "isMain", `${path}.isMain`),
        };
      }),
    );
  }
}

function build(json: Json, code: string, m: Members): FeedListing {
  const listing = blankListing(code);
  listing.title = m.text(json, "title") ?? "";
  listing.description = m.text(json, "description") ?? "";
  listing.operationType = (m.text(json, "operationType") ?? "") as OperationType;
  listing.status = (m.text(json, "status") ?? "AVAILABLE") as PropertyStatus;
  listing.propertyType = m.text(json, "propertyType");
  listing.highlight = m.text(json, "highlight") ?? "STANDARD";
  listing.exclusive = m.boolean(json, "exclusive");
  const address = m.object(json, "address");
  const { visibility: _, ...texts } = listing.address;
  for (const key of Object.keys(texts) as (keyof typeof texts)[]) {
    listing.address[key] = m.text(address, key, `address.${key}`);
  }
  const visibility = m.text(address, "visibility", "address.visibility") ?? "ALL";
  if ((ADDRESS_VISIBILITIES as readonly string[]).includes(visibility))
    listing.address.visibility = visibility as AddressVisibility;
  else m.problems.push(`address.visibility: must be one of ${ADDRESS_VISIBILITIES.join(", ")}`);
  Object.assign(listing.address, completeState(listing.address.state, listing.address.uf));
  const cep = listing.address.cep;
  listing.address.cep = cep === null ? null : (normalizeCep(cep) ?? cep);
  const coordinates = m.object(json, "coordinates");
  for (const key of Object.keys(listing.coordinates) as (keyof Listing["coordinates"])[]) {
    listing.coordinates[key] = m.number(coordinates, key, `coordinates.${key}`);
  }
  const features = m.object(json, "features");
  for (const key of Object.keys(listing.features) as (keyof Listing["features"])[]) {
    if (key === "isFurnished") listing.features.isFurnished = m.boolean(features, key, "features.isFurnished");
    else listing.features[key] = m.number(features, key, `features.${key}`);
  }
  listing.amenities = m.strings(json, "amenities");
  const pricing = m.object(json, "pricing");
  for (const key of Object.keys(listing.pricing) as (keyof Listing["pricing"])[]) {
    listing.pricing[key] = m.number(pricing, key, `pricing.${key}`);
  }
  listing.financing = {
    acceptsFinancing: m.boolean(m.object(json, "financing"), "acceptsFinancing", "financing.acceptsFinancing"),
  };
  listing.photos = m.photos(json);
  return listing;
}

export type ApiShapeResult = { listing: FeedListing } | { code: string | null; problems: string[] };

/** The listing an API-shaped property describes, or every problem with it. */
export function listingFromApiShape(value: unknown): ApiShapeResult {
  if (!isObject(value)) return { code: null, problems: ["must be a JSON object"] };
  const m = new Members();
  const code = m.text(value, "code");
  if (code === null)
    return { code: null, problems: [...m.problems, "code: is required (imports match listings on it)"] };
  const listing = build(value, code, m);
  const problems = [...m.problems, ...listingProblems(listing)];
  return problems.length > 0 ? { code, problems } : { listing };
}
