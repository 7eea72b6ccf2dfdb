// One fictitious property (with its photos) drawn from the seed's PRNG: coherent features, prices, address and Portuguese text.
import type { AddressVisibility, OperationType, PropertyStatus } from "../catalog/enums.ts";
import { CITIES, type City } from "./cities.ts";
import { isoInstant, type Prng, weightedItems, weightedKeys } from "./prng.ts";
import { gridCreatedMs, type Timeline } from "./timeline.ts";
import {
  ADJECTIVES,
  AMENITIES,
  CLOSINGS,
  HIGHLIGHT_WEIGHTS,
  type HighlightTier,
  HOUSE_FEATURES,
  LAND_ADJECTIVES,
  NEARBY,
  OPENINGS,
  OPERATION_PHRASES,
  PHOTO_HOST,
  PHOTO_ROOMS,
  PROPERTY_TYPES,
  type PropertyKind,
  type PropertyTypeProfile,
  RURAL_FEATURES,
  STATUS_BY_OPERATION,
  STREETS,
} from "./vocabulary.ts";

export interface PhotoRecord {
  id: string;
  url: string;
  alt: string | null;
  position: number;
  isMain: boolean;
}

export interface Features {
  totalArea: number | null;
  builtArea: number | null;
  bedrooms: number | null;
  bathrooms: number | null;
  suites: number | null;
  parkingSpaces: number | null;
  floor: number | null;
  totalFloors: number | null;
}

export interface Pricing {
  salePrice: number | null;
  rentalPrice: number | null;
  condominiumFee: number | null;
  iptu: number | null;
}

export interface Address {
  street: string;
  number: string;
  complement: string | null;
  neighborhood: string;
  city: string;
  state: string;
  uf: string;
  cep: string;
  latitude: number | null;
  longitude: number | null;
}

export interface PropertyRecord extends Features, Pricing, Address {
  id: string;
  code: string | null;
  title: string;
  description: string;
  operationType: OperationType;
  status: PropertyStatus;
  propertyType: string;
  highlight: string;
  exclusive: boolean;
  isPublished: boolean;
  createdAt: string;
  updatedAt: string;
  isFurnished: boolean;
  acceptsFinancing: boolean;
  /** What the description says the property offers, as a CRM's Features would name it. */
  amenities: string[];
  displayAddress: AddressVisibility;
  photos: PhotoRecord[];
}

const pickType = weightedItems(PROPERTY_TYPES, (type) => type.weight);
const pickCity = weightedItems(CITIES, (city) => city.weight);
const pickHighlight = weightedKeys(HIGHLIGHT_WEIGHTS);
const pickOperation = new Map(PROPERTY_TYPES.map((type) => [type, weightedKeys(type.operations)]));
const pickStatus = {
  SALE: weightedKeys(STATUS_BY_OPERATION.SALE),
  RENT: weightedKeys(STATUS_BY_OPERATION.RENT),
  SEASONAL: weightedKeys(STATUS_BY_OPERATION.SEASONAL),
} satisfies Record<OperationType, unknown>;

const UNPUBLISHED_SHARE = 0.1;
const NO_CODE_SHARE = 0.05;
const NEVER_UPDATED_SHARE = 0.3;
const YEAR_MS = 365 * 86_400_000;
const CONDOMINIUM_KINDS: ReadonlySet<PropertyKind> = new Set([
  "apartment",
  "penthouse",
  "compact",
  "condo-house",
  "office",
]);
const RESIDENTIAL_KINDS: ReadonlySet<PropertyKind> = new Set([
  "apartment",
  "penthouse",
  "compact",
  "house",
  "condo-house",
  "rural",
]);

const round2 = (x: number): number => Math.round(x * 100) / 100;
const roundTo = (x: number, step: number): number => Math.round(x / step) * step;
const round6 = (x: number): number => Math.round(x * 1e6) / 1e6;
const clamp = (x: number, min: number, max: number): number => Math.min(max, Math.max(min, x));
/** Integers as Portuguese writes them: 12.500. */
const thousands = (n: number): string => (n < 1000 ? String(n) : String(n).replace(/\B(?=(\d{3})+(?!\d))/g, "."));
const plural = (n: number, one: string, many: string): string => `${thousands(n)} ${n === 1 ? one : many}`;

/** "a", "a e b", "a, b e c": how Portuguese lists read. */
function listPt(items: readonly string[]): string {
  if (items.length <= 1) return items[0] ?? "";
  return `${items.slice(0, -1).join(", ")} e ${items[items.length - 1]}`;
}

/** `count` distinct items (count well below items.length), in a PRNG-chosen order; redraws on a repeat. */
function sample(rng: Prng, items: readonly string[], count: number): string[] {
  const out: string[] = [];
  while (out.length < count) {
    const item = rng.pick(items);
    if (!out.includes(item)) out.push(item);
  }
  return out;
}

// ---- features ----

function range(rng: Prng, bounds: readonly [number, number]): number {
  return rng.int(bounds[0], bounds[1]);
}

/** Bedrooms grow with the built area (about one per 35–45 m²), within the kind's limits. */
function bedroomsFor(rng: Prng, built: number, perRoom: number, min: number, max: number): number {
  return clamp(Math.round(built / perRoom) - rng.int(0, 1), min, max);
}

/** Suites never exceed bedrooms; a social bathroom (and maybe a lavabo) comes on top of them. */
function rooms(rng: Prng, bedrooms: number, minSuites: number): Pick<Features, "bedrooms" | "suites" | "bathrooms"> {
  const suites = clamp(
    rng.int(minSuites, Math.max(minSuites, bedrooms - 1)) + (bedrooms >= 3 && rng.chance(0.3) ? 1 : 0),
    0,
    bedrooms,
  );
  return { bedrooms, suites, bathrooms: suites + rng.int(1, 2) };
}

function buildingFloors(rng: Prng, minFloors: number, maxFloors: number): Pick<Features, "floor" | "totalFloors"> {
  const totalFloors = rng.int(minFloors, maxFloors);
  return { floor: rng.int(1, totalFloors), totalFloors };
}

function unitFeatures(rng: Prng, type: PropertyTypeProfile, built: number): Features {
  const totalArea = round2(built * rng.between(1.1, 1.35));
  switch (type.kind) {
    case "penthouse": {
      const totalFloors = rng.int(6, 30);
      return {
        totalArea,
        builtArea: built,
        ...rooms(rng, rng.int(2, 5), 1),
        parkingSpaces: rng.int(2, 4),
        floor: totalFloors,
        totalFloors,
      };
    }
    case "compact": {
      // Kitnets and studios are one room; flats are usually sold as a suite.
      const suites = type.name === "Flat" ? 1 : 0;
      return {
        totalArea,
        builtArea: built,
        bedrooms: 1,
        suites,
        bathrooms: 1,
        parkingSpaces: rng.chance(0.4) ? 1 : 0,
        ...buildingFloors(rng, 4, 25),
      };
    }
    case "office":
      return {
        totalArea,
        builtArea: built,
        bedrooms: null,
        suites: null,
        bathrooms: built > 100 ? rng.int(2, 3) : rng.int(1, 2),
        parkingSpaces: rng.int(0, 3),
        ...buildingFloors(rng, 5, 30),
      };
    default: {
      const parkingSpaces = built < 50 ? rng.int(0, 1) : built < 100 ? rng.int(1, 2) : rng.int(2, 3);
      return {
        totalArea,
        builtArea: built,
        ...rooms(rng, bedroomsFor(rng, built, 35, 1, 4), 0),
        parkingSpaces,
        ...buildingFloors(rng, 4, 30),
      };
    }
  }
}

/** Houses: the total area is the lot, and the built area never exceeds it. */
function houseFeatures(rng: Prng, type: PropertyTypeProfile, lot: number): Features {
  const drawn = range(rng, type.builtArea!);
  const built = drawn <= lot ? drawn : Math.round(lot * rng.between(0.6, 0.95));
  const rural = type.kind === "rural";
  const bedrooms = rural ? rng.int(2, 5) : bedroomsFor(rng, built, 45, 1, 5);
  return {
    totalArea: lot,
    builtArea: built,
    ...rooms(rng, bedrooms, 0),
    parkingSpaces: rural ? rng.int(2, 8) : rng.int(1, 4),
    floor: null,
    totalFloors: range(rng, type.storeys ?? [1, 1]),
  };
}

function features(rng: Prng, type: PropertyTypeProfile): Features {
  switch (type.kind) {
    case "land":
      return {
        totalArea: range(rng, type.lotArea!),
        builtArea: null,
        bedrooms: null,
        bathrooms: null,
        suites: null,
        parkingSpaces: null,
        floor: null,
        totalFloors: null,
      };
    case "house":
    case "condo-house":
    case "rural":
      return houseFeatures(rng, type, range(rng, type.lotArea!));
    case "store": {
      const built = range(rng, type.builtArea!);
      return {
        totalArea: round2(built * rng.between(1, 1.3)),
        builtArea: built,
        bedrooms: null,
        bathrooms: rng.int(1, 2),
        suites: null,
        parkingSpaces: rng.int(0, 4),
        floor: null,
        totalFloors: null,
      };
    }
    case "warehouse": {
      const built = range(rng, type.builtArea!);
      return {
        totalArea: Math.round(built * rng.between(1.2, 3)),
        builtArea: built,
        bedrooms: null,
        bathrooms: rng.int(1, 6),
        suites: null,
        parkingSpaces: rng.int(2, 20),
        floor: null,
        totalFloors: null,
      };
    }
    default:
      return unitFeatures(rng, type, range(rng, type.builtArea!));
  }
}

// ---- prices ----

/** Neighbourhoods are listed priciest first: the first costs 45 % above the city's base, the last 30 % below. */
function neighborhoodFactor(city: City, index: number): number {
  const last = city.neighborhoods.length - 1;
  return last === 0 ? 1 : 1.45 - (0.75 * index) / last;
}

function pricing(
  rng: Prng,
  type: PropertyTypeProfile,
  f: Features,
  operation: OperationType,
  city: City,
  nbIndex: number,
): Pricing {
  const perSqm = city.pricePerSqm * neighborhoodFactor(city, nbIndex);
  const value =
    perSqm *
    ((f.builtArea ?? 0) * type.builtPriceFactor + (f.totalArea ?? 0) * type.lotPriceFactor) *
    rng.between(0.85, 1.15);
  // Monthly rent as a share of the value: commercial yields run higher than residential ones.
  const monthlyYield = RESIDENTIAL_KINDS.has(type.kind) ? rng.between(0.0035, 0.0055) : rng.between(0.005, 0.008);
  const monthlyRent = Math.max(400, roundTo(value * monthlyYield, 10));
  const condominiumFee =
    CONDOMINIUM_KINDS.has(type.kind) && rng.chance(0.95)
      ? roundTo((f.builtArea ?? 0) * rng.between(7, 16) * Math.sqrt(city.pricePerSqm / 8000), 10)
      : null;
  const iptu = rng.chance(0.9) ? Math.round(value * rng.between(0.002, 0.006)) : null;
  switch (operation) {
    case "SALE":
      return { salePrice: roundTo(value, value >= 100_000 ? 1000 : 100), rentalPrice: null, condominiumFee, iptu };
    case "RENT":
      return { salePrice: null, rentalPrice: monthlyRent, condominiumFee, iptu };
    case "SEASONAL":
      // rentalPrice is monthly (SPEC); a season costs more than a year-long lease per month.
      return { salePrice: null, rentalPrice: roundTo(monthlyRent * rng.between(1.5, 2.5), 10), condominiumFee, iptu };
  }
}

// ---- address ----

function complement(rng: Prng, kind: PropertyKind, f: Features): string | null {
  const unit = `${f.floor ?? 0}${String(rng.int(1, 8)).padStart(2, "0")}`;
  switch (kind) {
    case "apartment":
    case "compact":
      return rng.chance(0.3) ? `Bloco ${rng.pick(["A", "B", "C", "D"])}, Apto ${unit}` : `Apto ${unit}`;
    case "penthouse":
      return `Cobertura ${f.floor}01`;
    case "office":
      return `Sala ${unit}`;
    case "store":
      return rng.chance(0.4) ? `Loja ${rng.int(1, 20)}` : null;
    case "condo-house":
      return `Casa ${rng.int(1, 150)}`;
    case "land":
      return rng.chance(0.4) ? `Lote ${rng.int(1, 40)}, Quadra ${rng.int(1, 20)}` : null;
    case "warehouse":
      return rng.chance(0.3) ? `Galpão ${rng.int(1, 8)}` : null;
    default:
      return null;
  }
}

function address(rng: Prng, city: City, nbIndex: number, kind: PropertyKind, f: Features): Address {
  const located = rng.chance(0.98);
  const cepPrefix = String(rng.int(city.cep[0], city.cep[1])).padStart(5, "0");
  return {
    street: rng.pick(STREETS),
    number: kind === "land" && rng.chance(0.15) ? "S/N" : String(rng.int(1, 3500)),
    complement: complement(rng, kind, f),
    neighborhood: city.neighborhoods[nbIndex]!,
    city: city.name,
    state: city.state,
    uf: city.uf,
    cep: `${cepPrefix}-${String(rng.int(0, 999)).padStart(3, "0")}`,
    latitude: located ? round6(rng.between(city.lat[0], city.lat[1])) : null,
    longitude: located ? round6(rng.between(city.lon[0], city.lon[1])) : null,
  };
}

// ---- text ----

interface TextContext {
  type: PropertyTypeProfile;
  f: Features;
  operation: OperationType;
  city: City;
  neighborhood: string;
  furnished: boolean;
  acceptsFinancing: boolean;
  /** Filled in while the description is written: what it says the property offers. */
  amenities: string[];
}

function adjective(rng: Prng, c: TextContext): string {
  if (c.type.kind === "land") return rng.pick(LAND_ADJECTIVES);
  const pair = c.furnished && rng.chance(0.5) ? (["mobiliado", "mobiliada"] as const) : rng.pick(ADJECTIVES);
  return pair[c.type.feminine ? 1 : 0];
}

function roomsPhrase(f: Features): string {
  const phrase = `com ${plural(f.bedrooms ?? 0, "quarto", "quartos")}`;
  return f.suites ? `${phrase} e ${plural(f.suites, "suíte", "suítes")}` : phrase;
}

function title(rng: Prng, c: TextContext): string {
  const { type, f, operation, city, neighborhood } = c;
  const op = OPERATION_PHRASES[operation];
  const name = type.name === "Sala Comercial" ? "Sala comercial" : type.name;
  if (!RESIDENTIAL_KINDS.has(type.kind)) {
    return `${name} de ${thousands(f.builtArea ?? f.totalArea ?? 0)} m² ${op} em ${neighborhood}, ${city.name}`;
  }
  const adj = rng.chance(0.5) ? ` ${adjective(rng, c)}` : "";
  const detail =
    type.kind === "compact"
      ? `de ${f.builtArea} m²`
      : type.kind === "rural"
        ? `de ${thousands(f.totalArea ?? 0)} m²`
        : roomsPhrase(f);
  const view = city.coastal && rng.chance(0.1) ? " com vista para o mar" : "";
  switch (rng.int(0, 2)) {
    case 0:
      return `${name}${adj} ${detail}${view} ${op} em ${neighborhood}, ${city.name}`;
    case 1:
      return `${neighborhood}: ${name.toLowerCase()}${adj} ${detail} ${op}${view}`;
    default:
      return `${op[0]!.toUpperCase()}${op.slice(1)}: ${name.toLowerCase()}${adj} ${detail} em ${neighborhood}, ${city.name}`;
  }
}

function openingSentence(rng: Prng, c: TextContext): string {
  const { type, f, city, neighborhood } = c;
  const area =
    f.builtArea !== null
      ? `${thousands(f.builtArea)} m² de área construída`
      : `${thousands(f.totalArea ?? 0)} m² de área total`;
  return `${rng.pick(OPENINGS)} ${type.name.toLowerCase()} ${adjective(rng, c)} ${OPERATION_PHRASES[c.operation]} no bairro ${neighborhood}, em ${city.name}/${city.uf}, com ${area}.`;
}

function layoutSentence(rng: Prng, c: TextContext): string {
  const { type, f } = c;
  const bathrooms = plural(f.bathrooms ?? 0, "banheiro", "banheiros");
  const parking = f.parkingSpaces
    ? plural(f.parkingSpaces, "vaga de garagem", "vagas de garagem")
    : "sem vaga de garagem";
  switch (type.kind) {
    case "land":
      return `Terreno ${rng.pick(["plano", "em leve aclive", "em leve declive"])}, com ${rng.int(8, 30)} m de frente, ideal para construção ${rng.pick(["residencial", "comercial"])}.`;
    case "office":
      return `Conta com recepção, copa e ${bathrooms}, em edifício de ${f.totalFloors} andares com portaria; ${parking}.`;
    case "store":
      return `Loja com ${bathrooms}, ampla vitrine e grande fluxo de pedestres; ${parking}.`;
    case "warehouse":
      return `Pé-direito de ${rng.int(6, 14)} m, ${plural(rng.int(1, 6), "doca", "docas")}, ${bathrooms} e pátio para ${f.parkingSpaces} veículos.`;
  }
  const suites = f.suites ? `, sendo ${plural(f.suites, "suíte", "suítes")}` : "";
  const layout = `Possui ${plural(f.bedrooms ?? 0, "quarto", "quartos")}${suites}, ${bathrooms} e ${parking}.`;
  if (type.kind === "penthouse") return `${layout} No último andar, com terraço e vista privilegiada.`;
  if (f.floor !== null)
    return `${layout} ${type.feminine ? "Localizada" : "Localizado"} no ${f.floor}º andar de um edifício de ${f.totalFloors} andares.`;
  return layout;
}

/** Vocabulary items as a CRM's Features name them (capitalised), computed once. */
const FEATURE_NAMES = new Map(
  [...AMENITIES, ...HOUSE_FEATURES, ...RURAL_FEATURES].map((item) => [item, item[0]!.toUpperCase() + item.slice(1)]),
);

/** The items a sentence names are the property's amenities too. */
function offered(c: TextContext, items: string[]): string {
  for (const item of items) c.amenities.push(FEATURE_NAMES.get(item)!);
  return listPt(items);
}

function surroundingsSentence(rng: Prng, c: TextContext): string {
  switch (c.type.kind) {
    case "house":
      return `Conta com ${offered(c, sample(rng, HOUSE_FEATURES, rng.int(2, 3)))}.`;
    case "rural":
      return `A propriedade tem ${offered(c, sample(rng, RURAL_FEATURES, rng.int(2, 4)))}.`;
    case "apartment":
    case "penthouse":
    case "compact":
    case "condo-house":
      return `O condomínio oferece ${offered(c, sample(rng, AMENITIES, rng.int(2, 4)))}.`;
    default:
      return "";
  }
}

function description(rng: Prng, c: TextContext): string {
  const sentences = [openingSentence(rng, c), layoutSentence(rng, c), surroundingsSentence(rng, c)];
  if (c.type.kind !== "rural") sentences.push(`Próximo a ${listPt(sample(rng, NEARBY, rng.int(2, 4)))}.`);
  if (c.city.coastal && RESIDENTIAL_KINDS.has(c.type.kind) && rng.chance(0.3))
    sentences.push("A poucos minutos da praia.");
  if (c.furnished) {
    sentences.push(c.type.feminine ? "Entregue mobiliada." : "Entregue mobiliado.");
    c.amenities.push("Mobiliado");
  }
  if (c.acceptsFinancing) sentences.push("Aceita financiamento bancário.");
  if (c.operation === "SEASONAL") sentences.push("Disponível para temporadas e feriados; consulte o calendário.");
  sentences.push(rng.pick(CLOSINGS));
  return sentences.filter((s) => s !== "").join(" ");
}

// ---- photos ----

/** Photo counts by publication tier: agencies pay for the higher tiers and show more. */
const PHOTO_COUNTS: Readonly<Record<HighlightTier, readonly [number, number]>> = {
  STANDARD: [1, 8],
  PREMIUM: [4, 12],
  SUPER_PREMIUM: [8, 15],
  TRIPLE: [10, 15],
};

function photos(rng: Prng, propertyId: string, kind: PropertyKind, highlight: HighlightTier): PhotoRecord[] {
  const [min, max] = PHOTO_COUNTS[highlight];
  const cap = kind === "land" ? 6 : 15; // there is only so much to show of a plot
  const count = rng.chance(0.04) ? 0 : rng.int(Math.min(min, cap), Math.min(max, cap));
  // Usually the first photo is the main one; agents sometimes promote another.
  const main = count > 1 && rng.chance(0.1) ? rng.int(2, count) : 1;
  const roomNames = PHOTO_ROOMS[kind];
  const folder = `${PHOTO_HOST}/${propertyId}/`;
  const out: PhotoRecord[] = [];
  for (let position = 1; position <= count; position++) {
    out.push({
      id: rng.uuid(),
      url: `${folder}${position}.jpg`,
      alt: rng.chance(0.2) ? null : roomNames[(position - 1) % roomNames.length]!,
      position,
      isMain: position === main,
    });
  }
  return out;
}

// ---- the record ----

function isFurnished(rng: Prng, kind: PropertyKind, operation: OperationType): boolean {
  if (kind === "land" || kind === "warehouse") return false;
  if (operation === "SEASONAL") return rng.chance(0.9);
  return rng.chance(kind === "compact" ? 0.55 : kind === "office" ? 0.15 : kind === "store" ? 0.05 : 0.2);
}

function acceptsFinancing(rng: Prng, kind: PropertyKind, operation: OperationType): boolean {
  if (operation !== "SALE") return false;
  return rng.chance(kind === "land" ? 0.5 : kind === "warehouse" ? 0.4 : 0.8);
}

/**
 * Some agencies hide the street number (one listing in ten here) or the whole street (one in
 * twenty), so partners meet both in the sandbox. Taken from the index, not the PRNG, so every
 * other value of the dataset stays what it was.
 */
function displayAddressOf(index: number): AddressVisibility {
  if (index % 20 === 7) return "NEIGHBORHOOD";
  return index % 10 === 3 ? "STREET" : "ALL";
}

/**
 * Property `index` (0-based) of `count`, drawn from `rng`; called in index order, which is
 * creation order and id order alike (see Prng.ascendingUuid), so every B-tree keyed on the id or
 * on creation time only grows at its right edge.
 */
export function generateProperty(rng: Prng, index: number, count: number, timeline: Timeline): PropertyRecord {
  const id = rng.ascendingUuid(index, count);
  const type = pickType(rng);
  const operation = pickOperation.get(type)!(rng);
  const city = pickCity(rng);
  const nbIndex = rng.int(0, city.neighborhoods.length - 1);
  const f = features(rng, type);
  const furnished = isFurnished(rng, type.kind, operation);
  const financing = acceptsFinancing(rng, type.kind, operation);
  const createdMs = gridCreatedMs(rng, index, count, timeline);
  // Listings get edited (price, photos, status) within their first year, if ever.
  const updatedMs = rng.chance(NEVER_UPDATED_SHARE)
    ? createdMs
    : rng.instantBetween(createdMs, Math.min(timeline.endMs, createdMs + YEAR_MS));
  const text: TextContext = {
    type,
    f,
    operation,
    city,
    neighborhood: city.neighborhoods[nbIndex]!,
    furnished,
    acceptsFinancing: financing,
    amenities: [],
  };
  const a = address(rng, city, nbIndex, type.kind, f);
  const price = pricing(rng, type, f, operation, city, nbIndex);
  const highlight = pickHighlight(rng);
  // Fields spelled out rather than spread: object spreads dominate the profile at a million rows.
  return {
    id,
    code: rng.chance(NO_CODE_SHARE) ? null : `${type.codePrefix}-${String(index + 1).padStart(6, "0")}`,
    title: title(rng, text),
    description: description(rng, text),
    operationType: operation,
    status: pickStatus[operation](rng),
    propertyType: type.name,
    highlight,
    exclusive: rng.chance(0.3),
    isPublished: !rng.chance(UNPUBLISHED_SHARE),
    createdAt: isoInstant(createdMs),
    updatedAt: isoInstant(updatedMs),
    street: a.street,
    number: a.number,
    complement: a.complement,
    neighborhood: a.neighborhood,
    city: a.city,
    state: a.state,
    uf: a.uf,
    cep: a.cep,
    latitude: a.latitude,
    longitude: a.longitude,
    totalArea: f.totalArea,
    builtArea: f.builtArea,
    bedrooms: f.bedrooms,
    bathrooms: f.bathrooms,
    suites: f.suites,
    parkingSpaces: f.parkingSpaces,
    floor: f.floor,
    totalFloors: f.totalFloors,
    isFurnished: furnished,
    amenities: text.amenities, // filled by description() above
    displayAddress: displayAddressOf(index),
    salePrice: price.salePrice,
    rentalPrice: price.rentalPrice,
    condominiumFee: price.condominiumFee,
    iptu: price.iptu,
    acceptsFinancing: financing,
    photos: photos(rng, id, type.kind, highlight),
  };
}
