// One VRSync <Listing> element tree → a listing and the warnings about values it could not take
// as written, or the reason it cannot be a listing at all (no ListingID, no Title, no way to tell
// sale from rent: docs/reference/behaviour-extensions.md §16). Values are read by ../values/, where CRMs' spellings live; the
// table of what maps where is docs/IMPORT.md.
import type { OperationType } from "../../catalog/enums.ts";
import { blankListing, type FeedItem, type FeedListing, type ListingPhoto, normalizePhotos } from "../listing.ts";
import { listingProblems, MAX_CODE_LENGTH, MAX_TEXT_LENGTH, MAX_TITLE_LENGTH } from "../validate.ts";
import { readCep, readState } from "../values/address.ts";
import { readArea, readCoordinate, readCount, readFloor, readMoney } from "../values/numbers.ts";
import { readPhotoUrl } from "../values/photos.ts";
import { readPropertyType } from "../values/property-type.ts";
import { readText } from "../values/text.ts";
import { areaFactor, feePeriod, type Period, rentPeriod, scaled, taxPeriod } from "../values/units.ts";
import {
  dealsOf,
  isBrazil,
  isBrl,
  isPhotoMedium,
  isPrimary,
  readBoolean,
  readStatus,
  readTier,
  readVisibility,
} from "../values/vocabularies.ts";
import { type FeedWarning, type Problem, problem, type Read, shownValue } from "../warnings.ts";
import { type ListingTree, pathOf, type XmlElement } from "./tree.ts";
import { FEATURED_TIER, meansFurnished } from "./vocabulary.ts";

/** Longest amenity name kept (a Feature is a short label). */
const MAX_AMENITY_LENGTH = 200;

/** The first child of that key (indexed on first use: a listing looks up some forty of them). */
function child(parent: XmlElement | undefined, key: string): XmlElement | undefined {
  if (parent === undefined) return undefined;
  if (parent.byKey === undefined) {
    parent.byKey = new Map();
    for (const c of parent.children) if (!parent.byKey.has(c.key)) parent.byKey.set(c.key, c);
  }
  return parent.byKey.get(key);
}

function childrenOf(parent: XmlElement | undefined, key: string): XmlElement[] {
  return parent?.children.filter((c) => c.key === key) ?? [];
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

/** An amount and whether its period makes a rent a holiday let. */
interface Amount {
  value: number | null;
  seasonal: boolean;
}

/** Reads one listing's values through the value layer; each value not taken as written is a warning. */
class ListingValues {
  readonly warnings: FeedWarning[] = [];

  constructor(private readonly code: string) {}

  warn(element: XmlElement, { kind, message }: Problem, value: string | null, attributeName?: string): void {
    const path = pathOf(element);
    const where = attributeName === undefined ? path : `${path}@${attributeName}`;
    this.warnings.push({
      kind,
      code: this.code,
      line: element.line,
      element: where || "Listing",
      value: shownValue(value),
      message,
    });
  }

  take<T>(element: XmlElement, read: Read<T>, value: string | null, attributeName?: string): T {
    if (read.problem !== undefined) this.warn(element, read.problem, value, attributeName);
    return read.value;
  }

  /** Free text, trimmed, cleaned of what nothing means; null when absent. */
  text(element: XmlElement | undefined, max = MAX_TITLE_LENGTH): string | null {
    const raw = element?.text ?? "";
    return element === undefined || raw.trim() === "" ? null : this.take(element, readText(raw, max), raw);
  }

  /** The value of a reader over an element's text; null when the element is absent or empty. */
  value<T>(element: XmlElement | undefined, read: (text: string) => Read<T | null>): T | null {
    const text = textOf(element);
    return element === undefined || text === null ? null : this.take(element, read(text), text);
  }

  /** A flag (pa:Exclusive, Featured…); absent or unreadable is null. */
  flag(element: XmlElement | undefined): boolean | null {
    return this.value(element, readBoolean);
  }

  /**
   * An amount in BRL converted by its `period` attribute (when it has one); another currency is
   * null. A price of 0 is null (on request); a fee or tax of 0 (`exemption`) stays 0.
   */
  money(
    element: XmlElement | undefined,
    period?: (text: string | null) => Read<Period | null>,
    exemption = false,
  ): Amount {
    const amount = this.value(element, (text) => readMoney(text, !exemption));
    if (element === undefined || amount === null) return { value: null, seasonal: false };
    const currency = attribute(element, "currency");
    if (!isBrl(currency)) {
      this.warn(
        element,
        problem("FOREIGN_CURRENCY", "a price in another currency than BRL: null"),
        currency,
        "currency",
      );
      return { value: null, seasonal: false };
    }
    if (period === undefined) return { value: amount, seasonal: false };
    const text = attribute(element, "period");
    const factor = this.take(element, period(text), text, "period");
    return factor === null
      ? { value: null, seasonal: false }
      : { value: scaled(amount, factor.factor), seasonal: factor.seasonal };
  }

  /** An area in square metres, from its `unit` (the alqueire depends on the listing's state). */
  area(element: XmlElement | undefined, uf: string | null): number | null {
    const value = this.value(element, readArea);
    if (element === undefined || value === null) return null;
    const unit = attribute(element, "unit");
    const factor = this.take(element, areaFactor(unit, uf), unit, "unit");
    return factor === null ? null : scaled(value, factor);
  }
}

/** Elements of Details, also found directly under Listing in some feeds. */
function detailOf(listing: XmlElement) {
  const details = child(listing, "details");
  return (key: string) => child(details, key) ?? child(listing, key);
}

function readAddress(location: XmlElement | undefined, v: ListingValues, listing: FeedListing): void {
  if (location === undefined) return;
  const display = attribute(location, "displayaddress");
  const visibility = display === null ? "ALL" : v.take(location, readVisibility(display), display, "displayAddress");
  const country = child(location, "country");
  const countryName = attribute(country, "abbreviation") ?? textOf(country);
  if (country !== undefined && countryName !== null && !isBrazil(countryName)) {
    v.warn(
      country,
      problem("FOREIGN_COUNTRY", "a country other than Brazil: the address is read as it is"),
      countryName,
    );
  }
  const stateElement = child(location, "state");
  const state = readState(textOf(stateElement), attribute(stateElement, "abbreviation"));
  if (state.problem !== undefined)
    v.warn(stateElement!, state.problem, textOf(stateElement) ?? attribute(stateElement, "abbreviation"));
  listing.address = {
    street: v.text(child(location, "address")),
    number: v.text(child(location, "streetnumber")),
    complement: v.text(child(location, "complement")),
    neighborhood: v.text(child(location, "neighborhood")),
    city: v.text(child(location, "city")),
    state: state.state === null ? null : state.state.slice(0, MAX_TITLE_LENGTH),
    uf: state.uf,
    cep: v.value(child(location, "postalcode"), readCep),
    visibility,
  };
  listing.coordinates = readCoordinates(location, v);
}

/**
 * Latitude and longitude (also under Location/GeoLocation). A position needs both: when one is
 * missing or unreadable, or they are the 0,0 placeholder, both are null.
 */
function readCoordinates(location: XmlElement, v: ListingValues): FeedListing["coordinates"] {
  const geo = child(location, "geolocation");
  const latitudeElement = child(location, "latitude") ?? child(geo, "latitude");
  const longitudeElement = child(location, "longitude") ?? child(geo, "longitude");
  const latitude = v.value(latitudeElement, readCoordinate);
  const longitude = v.value(longitudeElement, readCoordinate);
  const none = { latitude: null, longitude: null };
  if (latitude === null || longitude === null || (latitude === 0 && longitude === 0)) return none;
  if (Math.abs(latitude) > 90 || Math.abs(longitude) > 180) {
    const bad = Math.abs(latitude) > 90 ? latitudeElement! : longitudeElement!;
    v.warn(
      bad,
      problem("OUT_OF_RANGE", "outside the globe (latitude -90..90, longitude -180..180): the position is null"),
      textOf(bad),
    );
    return none;
  }
  return { latitude, longitude };
}

/** Feature names in feed order, repeats (in any case) dropped. */
function readAmenities(features: XmlElement[], v: ListingValues): string[] {
  const seen = new Set<string>();
  const amenities: string[] = [];
  for (const feature of features) {
    const name = v.text(feature, MAX_AMENITY_LENGTH);
    if (name === null || seen.has(name.toLowerCase())) continue;
    seen.add(name.toLowerCase());
    amenities.push(name);
  }
  return amenities;
}

function readDetails(detail: (key: string) => XmlElement | undefined, v: ListingValues, listing: FeedListing): void {
  const uf = listing.address.uf;
  const floor = detail("unitfloor") ?? detail("floor");
  const features = detail("features");
  listing.amenities = readAmenities(childrenOf(features, "feature"), v);
  listing.features = {
    totalArea: v.area(detail("lotarea"), uf),
    builtArea: v.area(detail("livingarea"), uf),
    bedrooms: v.value(detail("bedrooms"), readCount),
    bathrooms: v.value(detail("bathrooms"), readCount),
    suites: v.value(detail("suites"), readCount),
    parkingSpaces: v.value(detail("garage"), readCount),
    floor: v.value(floor, readFloor),
    totalFloors: v.value(detail("floors"), readCount),
    isFurnished: listing.amenities.some(meansFurnished),
  };
}

/**
 * The deal and the prices. A listing that names no recognisable deal is told from its prices
 * (only ListPrice: a sale; only RentalPrice: a rent); with neither it cannot be a listing.
 */
function readDeal(
  element: XmlElement,
  detail: (key: string) => XmlElement | undefined,
  v: ListingValues,
  listing: FeedListing,
): string | null {
  const rentElement = detail("rentalprice");
  const rent = v.money(rentElement, rentPeriod);
  let sale = v.money(detail("listprice"));
  const feeElement = detail("propertyadministrationfee") ?? detail("condominiumfee");
  // Iptu is VRSync's current element; PropertyTax its alias; YearlyTax the older one.
  const taxElement = detail("iptu") ?? detail("propertytax") ?? detail("yearlytax");
  const transactionElement = child(element, "transactiontype") ?? detail("transactiontype");
  const transaction = textOf(transactionElement);
  const deals = transaction === null ? null : dealsOf(transaction);
  let rentalPrice = rent.value;
  let seasonal = rent.seasonal || v.flag(child(element, "pa:seasonal")) === true;

  let operation: OperationType;
  if (deals !== null) {
    seasonal ||= deals.seasonal;
    const rents = deals.rent || deals.seasonal;
    if (!deals.sale && rentElement === undefined && sale.value !== null) {
      // A rent-only listing whose rent is in ListPrice: that is its rent.
      const listPrice = detail("listprice")!;
      const period = attribute(listPrice, "period");
      const factor = v.take(listPrice, rentPeriod(period), period, "period");
      rentalPrice = factor === null ? null : scaled(sale.value, factor.factor);
      seasonal ||= factor?.seasonal === true;
      sale = { value: null, seasonal: false };
    }
    if (deals.sale && rents) operation = sale.value === null && rentalPrice !== null ? "RENT" : "SALE";
    else operation = deals.sale ? "SALE" : "RENT";
  } else if (sale.value !== null || rentalPrice !== null) {
    operation = sale.value !== null ? "SALE" : "RENT";
    if (transaction !== null) {
      v.warn(
        transactionElement!,
        problem("UNKNOWN_TRANSACTION_TYPE", `not a known transaction type: told from the prices (${operation})`),
        transaction,
      );
    }
  } else {
    return transaction === null
      ? "TransactionType: is required when neither ListPrice nor RentalPrice tells sale from rent"
      : `TransactionType: "${transaction}" is not a known transaction type, and neither ListPrice nor RentalPrice tells sale from rent`;
  }
  listing.operationType = operation === "RENT" && seasonal ? "SEASONAL" : operation;
  listing.pricing = {
    salePrice: sale.value,
    rentalPrice,
    condominiumFee: v.money(feeElement, feePeriod, true).value,
    iptu: v.money(taxElement, taxPeriod, true).value,
  };
  return null;
}

/**
 * PropertyType as text (`Residential / Apartment`, `Apartamento`), beside UsageType, or as nested
 * elements (`<Residential><Apartment/></Residential>`). pa:PropertyType (our own export, for a
 * type outside the table) wins as written.
 */
function readType(
  element: XmlElement,
  detail: (key: string) => XmlElement | undefined,
  v: ListingValues,
): string | null {
  const extension = v.text(child(element, "pa:propertytype"));
  if (extension !== null) return extension;
  const type = detail("propertytype");
  if (type === undefined) return null;
  const nested = type.children[0];
  if (nested !== undefined) {
    const inner = nested.children[0];
    const text = inner?.name ?? textOf(nested) ?? nested.name;
    return v.take(
      type,
      readPropertyType({ text, usage: inner === undefined && textOf(nested) === null ? null : nested.name }),
      `${nested.name}/${text}`,
    );
  }
  const text = textOf(type);
  if (text === null) return null;
  return v.take(type, readPropertyType({ text, usage: textOf(detail("usagetype")) }), text);
}

/** Photos in feed order; a media item that is no usable photo is dropped with a warning, repeats collapse. */
function readPhotos(media: XmlElement | undefined, v: ListingValues): ListingPhoto[] {
  const photos: ListingPhoto[] = [];
  const byUrl = new Map<string, ListingPhoto>();
  for (const item of childrenOf(media, "item")) {
    const medium = item.attributes.get("medium");
    if (medium !== undefined && medium !== "image" && !isPhotoMedium(medium.trim() || null)) continue; // videos, floor plans: not photos
    const url = v.take(item, readPhotoUrl(item.text), item.text.trim());
    if (url === null) continue;
    const primary = item.attributes.get("primary");
    const isMain = primary !== undefined && isPrimary(primary.trim());
    const repeated = byUrl.get(url);
    if (repeated !== undefined) {
      repeated.isMain ||= isMain;
      continue;
    }
    const caption = attribute(item, "caption");
    const alt = caption === null ? null : v.take(item, readText(caption, MAX_TITLE_LENGTH), caption, "caption");
    let id = attribute(item, "pa:id");
    if (id !== null && (id.length > 100 || photos.some((photo) => photo.id === id))) {
      v.warn(
        item,
        problem("UNKNOWN_VALUE", "a photo id used twice or longer than 100 characters: a new id is given"),
        id,
        "pa:id",
      );
      id = null;
    }
    const photo = { id, url, alt, order: photos.length + 1, isMain };
    byUrl.set(url, photo);
    photos.push(photo);
  }
  return normalizePhotos(photos);
}

function readListing(
  element: XmlElement,
  code: string,
  v: ListingValues,
): { listing: FeedListing } | { reason: string } {
  const listing = blankListing(code);
  const detail = detailOf(element);
  const title = v.text(child(element, "title"));
  if (title === null) return { reason: "Title: is required" };
  listing.title = title;
  listing.description = v.text(detail("description"), MAX_TEXT_LENGTH) ?? "";
  readAddress(child(element, "location"), v, listing);
  const refusal = readDeal(element, detail, v, listing);
  if (refusal !== null) return { reason: refusal };
  const status = child(element, "pa:status");
  listing.status = textOf(status) === null ? "AVAILABLE" : v.take(status!, readStatus(textOf(status)!), textOf(status));
  listing.propertyType = readType(element, detail, v);
  const tier = child(element, "publicationtype") ?? detail("publicationtype");
  listing.highlight =
    textOf(tier) !== null
      ? v.take(tier!, readTier(textOf(tier)!), textOf(tier))
      : v.flag(child(element, "featured")) === true
        ? FEATURED_TIER
        : "STANDARD";
  listing.exclusive = v.flag(child(element, "pa:exclusive")) ?? false;
  listing.financing = { acceptsFinancing: v.flag(child(element, "pa:acceptsfinancing")) ?? false };
  readDetails(detail, v, listing);
  listing.photos = readPhotos(child(element, "media"), v);
  return { listing };
}

/** The feed item of one <Listing>. */
export function mapListing({ element, tooLarge }: ListingTree): FeedItem {
  const line = element.line;
  const rawCode = textOf(child(element, "listingid"));
  const refuse = (code: string | null, reason: string): FeedItem => ({
    kind: "rejected",
    code,
    line,
    reason: `line ${line}: ${reason}`,
  });
  if (tooLarge)
    return refuse(rawCode?.slice(0, MAX_CODE_LENGTH) ?? null, "the listing is larger than 1,000,000 characters");
  if (rawCode === null) return refuse(null, "ListingID: is required");
  if (rawCode.length > MAX_CODE_LENGTH)
    return refuse(`${rawCode.slice(0, MAX_CODE_LENGTH)}…`, `ListingID: longer than ${MAX_CODE_LENGTH} characters`);
  const values = new ListingValues(rawCode);
  const read = readListing(element, rawCode, values);
  if ("reason" in read) return refuse(rawCode, read.reason);
  // By construction nothing is left to break; the rules every import path meets are checked anyway.
  const problems = listingProblems(read.listing);
  if (problems.length > 0) return refuse(rawCode, problems.join("; "));
  return { kind: "listing", listing: read.listing, line, warnings: values.warnings };
}
