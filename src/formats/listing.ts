// The plain record every feed reader produces and every writer consumes: one listing's content
// in the API's shape, without what the database assigns (id, createdAt, updatedAt, isPublished).
import type { AddressVisibility, OperationType, PropertyStatus } from "../catalog/enums.ts";
import type { FeedWarning } from "./warnings.ts";

export interface ListingPhoto {
  /** Null when the feed does not carry photo ids: the importer keeps or assigns them. */
  id: string | null;
  url: string;
  alt: string | null;
  order: number;
  isMain: boolean;
}

export interface ListingAddress {
  street: string | null;
  number: string | null;
  complement: string | null;
  neighborhood: string | null;
  city: string | null;
  state: string | null;
  uf: string | null;
  cep: string | null;
  /** What partners may be shown (VRSync displayAddress); the other values are stored whole. */
  visibility: AddressVisibility;
}

export interface ListingCoordinates {
  latitude: number | null;
  longitude: number | null;
}

export interface ListingFeatures {
  totalArea: number | null;
  builtArea: number | null;
  bedrooms: number | null;
  bathrooms: number | null;
  suites: number | null;
  parkingSpaces: number | null;
  floor: number | null;
  totalFloors: number | null;
  isFurnished: boolean;
}

export interface ListingPricing {
  salePrice: number | null;
  rentalPrice: number | null;
  condominiumFee: number | null;
  iptu: number | null;
}

export interface Listing {
  /** Null only for a stored property without a code (feeds always name their listings). */
  code: string | null;
  title: string;
  description: string;
  operationType: OperationType;
  status: PropertyStatus;
  propertyType: string | null;
  highlight: string;
  exclusive: boolean;
  address: ListingAddress;
  coordinates: ListingCoordinates;
  features: ListingFeatures;
  /** Feature names as the feed gives them, in its order, without repeats. */
  amenities: string[];
  pricing: ListingPricing;
  financing: { acceptsFinancing: boolean };
  photos: ListingPhoto[];
}

/** A listing as a feed carries it: always named by its code. */
export type FeedListing = Listing & { code: string };

/**
 * What a reader yields: a listing ready to import (with the warnings about values it could not
 * take as written), or one it refused and why. `line` is where the listing starts.
 */
export type FeedItem =
  | { kind: "listing"; listing: FeedListing; line: number; warnings: FeedWarning[] }
  | { kind: "rejected"; code: string | null; line: number; reason: string };

/** The feed as a whole cannot be read (malformed XML, unreachable URL…): nothing is imported. */
export class FeedError extends Error {}

/** Every field at its "absent" value; readers fill in what the feed says. */
export function blankListing(code: string): FeedListing {
  return {
    code,
    title: "",
    description: "",
    operationType: "SALE",
    status: "AVAILABLE",
    propertyType: null,
    highlight: "STANDARD",
    exclusive: false,
    address: {
      street: null,
      number: null,
      complement: null,
      neighborhood: null,
      city: null,
      state: null,
      uf: null,
      cep: null,
      visibility: "ALL",
    },
    coordinates: { latitude: null, longitude: null },
    features: {
      totalArea: null,
      builtArea: null,
      bedrooms: null,
      bathrooms: null,
      suites: null,
      parkingSpaces: null,
      floor: null,
      totalFloors: null,
      isFurnished: false,
    },
    amenities: [],
    pricing: { salePrice: null, rentalPrice: null, condominiumFee: null, iptu: null },
    financing: { acceptsFinancing: false },
    photos: [],
  };
}

/**
 * Gallery order and cover as the API shows them: ordered by `order` (then feed position),
 * renumbered 1..n, and exactly one main photo (the first one marked, else the first).
 */
export function normalizePhotos(photos: readonly ListingPhoto[]): ListingPhoto[] {
  const sorted = photos
    .map((photo, index) => ({ photo, index }))
    .sort((a, b) => a.photo.order - b.photo.order || a.index - b.index);
  const main = Math.max(
    0,
    sorted.findIndex(({ photo }) => photo.isMain),
  );
  return sorted.map(({ photo }, index) => ({ ...photo, order: index + 1, isMain: index === main }));
}
