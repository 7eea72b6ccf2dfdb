// VRSync's names that the reader and the writer share: its namespace, the partner-api extension,
// and the Features that mean "furnished". The vocabularies of values (transaction types, property
// types, units…) live in ../values/, where feeds are read as CRMs write them.
import { foldText } from "../brazil.ts";

export { PROPERTY_TYPES, vrsyncPropertyType } from "../values/property-type.ts";

export const VRSYNC_NAMESPACE = "http://www.vivareal.com/schemas/1.0/VRSync";
export const VRSYNC_SCHEMA_LOCATION = "http://xml.vivareal.com/vrsync.xsd";
/**
 * Fields VRSync has no element for (status, exclusive, financing, seasonal rent, photo ids, a
 * property type outside its list) travel in this namespace, so an export re-imports unchanged.
 */
export const EXTENSION_NAMESPACE = "urn:partner-api:vrsync:1";
export const EXTENSION_PREFIX = "pa";

/** The VRSync Feature that says a property is furnished. */
export const FURNISHED_FEATURE = "Furnished";

/** Whether a Feature says the property is furnished (English or Portuguese). */
export function meansFurnished(feature: string): boolean {
  return ["furnished", "mobiliado", "mobiliada"].includes(foldText(feature));
}

/** Featured=true without a PublicationType: the portals' first paid tier. */
export const FEATURED_TIER = "PREMIUM";
