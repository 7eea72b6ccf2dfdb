// VRSync's closed vocabularies and how each maps onto the API's values (docs/IMPORT.md shows
// the same tables for agencies).
import type { OperationType } from "../../catalog/enums.ts";
import { foldText } from "../brazil.ts";

export const VRSYNC_NAMESPACE = "http://www.vivareal.com/schemas/1.0/VRSync";
export const VRSYNC_SCHEMA_LOCATION = "http://xml.vivareal.com/vrsync.xsd";
/**
 * Fields VRSync has no element for (status, exclusive, financing, seasonal rent, photo ids, a
 * property type outside its list) travel in this namespace, so an export re-imports unchanged.
 */
export const EXTENSION_NAMESPACE = "urn:partner-api:vrsync:1";
export const EXTENSION_PREFIX = "pa";

/** TransactionType → operation type. "Sale/Rent" is a sale that also lists a rent. */
const TRANSACTION_TYPES: Readonly<Record<string, OperationType>> = {
  "for sale": "SALE",
  "for rent": "RENT",
  "sale/rent": "SALE",
  seasonal: "SEASONAL",
  temporada: "SEASONAL",
};

export function operationOfTransaction(text: string): OperationType | null {
  return TRANSACTION_TYPES[foldText(text).replace(/\s*\/\s*/g, "/")] ?? null;
}

/** RentalPrice `period` → factor to a monthly amount (SPEC: rentalPrice is monthly). */
export const RENTAL_PERIODS: Readonly<Record<string, number>> = {
  monthly: 1,
  daily: 30,
  weekly: 30 / 7,
  quarterly: 1 / 3,
  yearly: 1 / 12,
};
/** Rents quoted per day or week are holiday lets. */
export const SEASONAL_PERIODS: ReadonlySet<string> = new Set(["daily", "weekly"]);

/** Iptu / YearlyTax `period` → factor to the annual amount (SPEC: iptu is annual). */
export const TAX_PERIODS: Readonly<Record<string, number>> = { yearly: 1, monthly: 12 };

/** PropertyAdministrationFee `period` → factor to the monthly fee. */
export const FEE_PERIODS: Readonly<Record<string, number>> = { monthly: 1, yearly: 1 / 12 };

/** Area `unit` → factor to square metres. */
export const AREA_UNITS: Readonly<Record<string, number>> = {
  "square metres": 1,
  "square meters": 1,
  m2: 1,
  "m²": 1,
  hectare: 10_000,
  hectares: 10_000,
};

/**
 * VRSync PropertyType → the Portuguese type name the API shows. One name per VRSync type, so the
 * table reads both ways and an export re-imports to the same propertyType.
 */
export const PROPERTY_TYPES: readonly (readonly [vrsync: string, name: string])[] = [
  ["Residential / Apartment", "Apartamento"],
  ["Residential / Home", "Casa"],
  ["Residential / Condo", "Casa de Condomínio"],
  ["Residential / Village House", "Casa de Vila"],
  ["Residential / Sobrado", "Sobrado"],
  ["Residential / Penthouse", "Cobertura"],
  ["Residential / Flat", "Flat"],
  ["Residential / Kitnet", "Kitnet"],
  ["Residential / Studio", "Studio"],
  ["Residential / Loft", "Loft"],
  ["Residential / Farm Ranch", "Chácara"],
  ["Residential / Agricultural", "Sítio"],
  ["Residential / Land Lot", "Terreno"],
  ["Commercial / Office", "Sala Comercial"],
  ["Commercial / Loja", "Loja"],
  ["Commercial / Business", "Ponto Comercial"],
  ["Commercial / Industrial", "Galpão"],
  ["Commercial / Building", "Imóvel Comercial"],
  ["Commercial / Edificio Comercial", "Prédio Comercial"],
  ["Commercial / Edificio Residencial", "Prédio Residencial"],
  ["Commercial / Corporate Floor", "Andar Corporativo"],
  ["Commercial / Consultorio", "Consultório"],
  ["Commercial / Hotel", "Hotel"],
  ["Commercial / Garage", "Garagem"],
  ["Commercial / Land Lot", "Terreno Comercial"],
];

const typeKey = (text: string): string => foldText(text).replace(/\s*\/\s*/g, "/");
const NAME_BY_VRSYNC = new Map(PROPERTY_TYPES.map(([vrsync, name]) => [typeKey(vrsync), name]));
const NAME_BY_NAME = new Map(PROPERTY_TYPES.map(([, name]) => [typeKey(name), name]));
const VRSYNC_BY_NAME = new Map(PROPERTY_TYPES.map(([vrsync, name]) => [name, vrsync]));

/** The API's type name for a VRSync PropertyType (a Portuguese name is also understood); null if unknown. */
export function propertyTypeName(text: string): string | null {
  const key = typeKey(text);
  return NAME_BY_VRSYNC.get(key) ?? NAME_BY_NAME.get(key) ?? null;
}

/** The VRSync PropertyType of an API type name; null when VRSync has none. */
export function vrsyncPropertyType(name: string): string | null {
  return VRSYNC_BY_NAME.get(name) ?? null;
}

/** The VRSync Feature that says a property is furnished. */
export const FURNISHED_FEATURE = "Furnished";

/** Featured=true without a PublicationType: the portals' first paid tier. */
export const FEATURED_TIER = "PREMIUM";
