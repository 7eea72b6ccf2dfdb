// One VRSync <Listing> element tree → a listing, or the reasons it cannot be imported. The table
// of what maps where is docs/IMPORT.md; the vocabularies are in vocabulary.ts.
import type { PropertyStatus } from "../../catalog/enums.ts";
import { completeState, foldText, normalizeCep } from "../brazil.ts";
import { blankListing, type FeedItem, type FeedListing, type Listing, type ListingPhoto, normalizePhotos } from "../listing.ts";
import { listingProblems, type Label } from "../validate.ts";
import type { ListingTree, XmlElement } from "./tree.ts";
import {
  AREA_UNITS, FEATURED_TIER, FEE_PERIODS, FURNISHED_FEATURE, operationOfTransaction, propertyTypeName, RENTAL_PERIODS,
  SEASONAL_PERIODS, TAX_PERIODS,
} from "./vocabulary.ts";

/** API field paths named as a VRSync author knows them. */
const VRSYNC_NAMES: Readonly<Record<string, string>> = {
  code: "ListingID", title: "Title", description: "Description", operationType: "TransactionType",
  status: "pa:Status", propertyType: "PropertyType", highlight: "PublicationType",
  "address.street": "Address", "address.number": "StreetNumber", "address.complement": "Complement",
  "address.neighborhood": "Neighborhood", "address.city": "City", "address.state": "State",
  "address.uf": "State abbreviation", "address.cep": "PostalCode",
  "coordinates.latitude": "Latitude", "coordinates.longitude": "Longitude",
  "features.totalArea": "LotArea", "features.builtArea": "LivingArea", "features.bedrooms": "Bedrooms",
  "features.bathrooms": "Bathrooms", "features.suites": "Suites", "features.parkingSpaces": "Garage",
  "features.floor": "UnitFloor", "features.totalFloors": "Floors",
  "pricing.salePrice": "ListPrice", "pricing.rentalPrice": "RentalPrice",
  "pricing.condominiumFee": "PropertyAdministrationFee", "pricing.iptu": "Iptu", photos: "Media/Item",
};
const vrsyncLabel: Label = (path) => VRSYNC_NAMES[path] ?? path;

const DECIMAL = /^[+-]?\d+(?:\.\d+)?$/;
/** Money and areas: a dot followed by three digits is far more often a thousands separator than decimals. */
const CENTS = /^[+-]?\d+(?:\.\d{1,2})?$/;

function child(parent: XmlElement | undefined, name: string): XmlElement | undefined {
  return parent?.children.find((c) => c.name === name);
}

/** Trimmed text; an absent or empty element is null (CRMs often write <Suites/> for "none given"). */
function textOf(element: XmlElement | undefined): string | null {
  const text = element?.text.trim() ?? "";
  return text === "" ? null : text;
}

function attribute(element: XmlElement | undefined, name: string): string | null {
  const value = element?.attributes.get(name)?.trim() ?? "";
  return value === "" ? null : value;
}

/** A converted amount keeps two decimals; an unconverted one stays exactly as written. */
function scaled(value: number, factor: number): number {
  return factor === 1 ? value : Math.round(value * factor * 100) / 100;
}

/** Collects problems while reading one listing's elements. */
class ListingReader {
  readonly problems: string[] = [];

  number(element: XmlElement | undefined, name: string, pattern = DECIMAL): number | null {
    const text = textOf(element);
    if (text === null) return null;
    if (!pattern.test(text)) {
      const rule = pattern === CENTS ? "at most two decimals after a dot, no thousands separators" : "digits, optionally a dot and decimals";
      this.problems.push(`${name}: "${text}" is not a plain number (${rule})`);
      return null;
    }
    return Number(text);
  }

  boolean(element: XmlElement | undefined, name: string): boolean | null {
    const text = textOf(element)?.toLowerCase() ?? null;
    if (text === null) return null;
    if (text === "true" || text === "1") return true;
    if (text === "false" || text === "0") return false;
    this.problems.push(`${name}: "${text}" is not true or false`);
    return null;
  }

  /** A factor from a unit or period attribute's table; null (with a problem) for an unknown one. */
  factor(element: XmlElement | undefined, name: string, attr: string, table: Readonly<Record<string, number>>, fallback: string): number | null {
    const value = (attribute(element, attr) ?? fallback).toLowerCase();
    const factor = table[value];
    if (factor === undefined) this.problems.push(`${name}: ${attr} "${value}" is not one of ${Object.keys(table).join(", ")}`);
    return factor ?? null;
  }

  /** An amount in BRL (any other currency is refused: SPEC's money is BRL), scaled to the API's period. */
  money(element: XmlElement | undefined, name: string, periods?: { table: Readonly<Record<string, number>>; fallback: string }): number | null {
    const amount = this.number(element, name, CENTS);
    if (amount === null) return null;
    const currency = attribute(element, "currency");
    if (currency !== null && currency.toUpperCase() !== "BRL") {
      this.problems.push(`${name}: currency ${currency} is not BRL`);
      return null;
    }
    if (periods === undefined) return amount;
    const factor = this.factor(element, name, "period", periods.table, periods.fallback);
    return factor === null ? null : scaled(amount, factor);
  }

  area(element: XmlElement | undefined, name: string): number | null {
    const value = this.number(element, name, CENTS);
    if (value === null) return null;
    const factor = this.factor(element, name, "unit", AREA_UNITS, "square metres");
    return factor === null ? null : scaled(value, factor);
  }
}

function readPhotos(media: XmlElement | undefined): ListingPhoto[] {
  const images = (media?.children ?? []).filter(
    (item) => item.name === "Item" && (attribute(item, "medium") ?? "image").toLowerCase() === "image",
  );
  return normalizePhotos(
    images.map((item, index) => ({
      id: attribute(item, "pa:id"),
      url: textOf(item) ?? "",
      alt: attribute(item, "caption"),
      order: index + 1,
      isMain: attribute(item, "primary")?.toLowerCase() === "true",
    })),
  );
}

function readAddress(location: XmlElement | undefined, r: ListingReader, listing: Listing): void {
  const country = child(location, "Country");
  const countryCode = attribute(country, "abbreviation") ?? textOf(country);
  if (countryCode !== null && !["br", "bra", "brasil", "brazil"].includes(foldText(countryCode))) {
    r.problems.push(`Country: only Brazil (BR) is supported, got ${countryCode}`);
  }
  const stateElement = child(location, "State");
  const { state, uf } = completeState(textOf(stateElement), attribute(stateElement, "abbreviation"));
  const postal = textOf(child(location, "PostalCode"));
  const cep = postal === null ? null : normalizeCep(postal);
  if (postal !== null && cep === null) r.problems.push(`PostalCode: "${postal}" is not a CEP of 8 digits`);
  listing.address = {
    street: textOf(child(location, "Address")),
    number: textOf(child(location, "StreetNumber")),
    complement: textOf(child(location, "Complement")),
    neighborhood: textOf(child(location, "Neighborhood")),
    city: textOf(child(location, "City")),
    state,
    uf,
    cep,
  };
  listing.coordinates = {
    latitude: r.number(child(location, "Latitude"), "Latitude"),
    longitude: r.number(child(location, "Longitude"), "Longitude"),
  };
}

function readDetails(details: XmlElement | undefined, r: ListingReader, listing: Listing): void {
  const floor = child(details, "UnitFloor") ?? child(details, "Floor");
  const features = child(details, "Features")?.children.filter((f) => f.name === "Feature") ?? [];
  listing.features = {
    totalArea: r.area(child(details, "LotArea"), "LotArea"),
    builtArea: r.area(child(details, "LivingArea"), "LivingArea"),
    bedrooms: r.number(child(details, "Bedrooms"), "Bedrooms"),
    bathrooms: r.number(child(details, "Bathrooms"), "Bathrooms"),
    suites: r.number(child(details, "Suites"), "Suites"),
    parkingSpaces: r.number(child(details, "Garage"), "Garage"),
    floor: r.number(floor, floor?.name ?? "UnitFloor"),
    totalFloors: r.number(child(details, "Floors"), "Floors"),
    isFurnished: features.some((f) => ["furnished", "mobiliado"].includes(foldText(f.text))),
  };
  // Iptu is VRSync's current element; YearlyTax the older one it replaces.
  const tax = child(details, "Iptu") ?? child(details, "YearlyTax");
  listing.pricing = {
    salePrice: r.money(child(details, "ListPrice"), "ListPrice"),
    rentalPrice: r.money(child(details, "RentalPrice"), "RentalPrice", { table: RENTAL_PERIODS, fallback: "monthly" }),
    condominiumFee: r.money(child(details, "PropertyAdministrationFee"), "PropertyAdministrationFee", { table: FEE_PERIODS, fallback: "monthly" }),
    iptu: r.money(tax, tax?.name ?? "Iptu", { table: TAX_PERIODS, fallback: "yearly" }),
  };
}

function readOperation(element: XmlElement, details: XmlElement | undefined, r: ListingReader, listing: Listing): void {
  const transaction = textOf(child(element, "TransactionType"));
  const operation = transaction === null ? null : operationOfTransaction(transaction);
  if (transaction === null) r.problems.push("TransactionType: is required");
  else if (operation === null) r.problems.push(`TransactionType: unknown value "${transaction}" (use For Sale, For Rent or Sale/Rent)`);
  const period = (attribute(child(details, "RentalPrice"), "period") ?? "monthly").toLowerCase();
  const seasonal = r.boolean(child(element, "pa:Seasonal"), "pa:Seasonal") === true || SEASONAL_PERIODS.has(period);
  listing.operationType = operation === "RENT" && seasonal ? "SEASONAL" : (operation ?? "SALE");
}

function readListing(element: XmlElement, code: string, r: ListingReader): FeedListing {
  const listing = blankListing(code);
  const details = child(element, "Details");
  listing.title = textOf(child(element, "Title")) ?? "";
  listing.description = textOf(child(details, "Description") ?? child(element, "Description")) ?? "";
  readOperation(element, details, r, listing);
  listing.status = (textOf(child(element, "pa:Status"))?.toUpperCase() ?? "AVAILABLE") as PropertyStatus;
  const extensionType = textOf(child(element, "pa:PropertyType"));
  const vrsyncType = textOf(child(details, "PropertyType"));
  listing.propertyType = extensionType ?? (vrsyncType === null ? null : propertyTypeName(vrsyncType));
  if (extensionType === null && vrsyncType !== null && listing.propertyType === null) {
    r.problems.push(`PropertyType: unknown value "${vrsyncType}"`);
  }
  const tier = textOf(child(element, "PublicationType"))?.toUpperCase() ?? null;
  listing.highlight = tier ?? (r.boolean(child(element, "Featured"), "Featured") === true ? FEATURED_TIER : "STANDARD");
  listing.exclusive = r.boolean(child(element, "pa:Exclusive"), "pa:Exclusive") ?? false;
  listing.financing = { acceptsFinancing: r.boolean(child(element, "pa:AcceptsFinancing"), "pa:AcceptsFinancing") ?? false };
  readDetails(details, r, listing);
  readAddress(child(element, "Location"), r, listing);
  listing.photos = readPhotos(child(element, "Media"));
  return listing;
}

/** The feed item of one <Listing>: the listing, or its code (if any) and every problem found. */
export function mapListing({ element, tooLarge }: ListingTree): FeedItem {
  const code = textOf(child(element, "ListingID"));
  const where = `line ${element.line}`;
  if (tooLarge) return { kind: "rejected", code, reason: `${where}: the listing is larger than 1,000,000 characters` };
  if (code === null) return { kind: "rejected", code: null, reason: `${where}: ListingID: is required` };
  const reader = new ListingReader();
  const listing = readListing(element, code, reader);
  const problems = [...reader.problems, ...listingProblems(listing, vrsyncLabel)];
  if (problems.length > 0) return { kind: "rejected", code, reason: `${where}: ${problems.join("; ")}` };
  return { kind: "listing", listing };
}
