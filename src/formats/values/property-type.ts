// PropertyType as CRMs write it (docs/reference/behaviour-extensions.md §16): `Usage / Type` with any spacing, a bare type
// beside `UsageType`, nested elements, Portuguese names and common misspellings, all mapped to
// the table below; anything else is kept as written (propertyType is free text in the specification).
import { foldText } from "../brazil.ts";
import { type Read, readFailed, readOk } from "../warnings.ts";

/**
 * VRSync PropertyType → the Portuguese type name the API shows. One name per VRSync type, so the
 * table reads both ways and an export re-imports to the same propertyType (docs/IMPORT.md).
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

type Usage = "Residential" | "Commercial";

/** Lower case, no accents, no spaces or punctuation: `Land Lot`, `LandLot` and `land_lot` meet. */
const key = (text: string): string => foldText(text).replace(/[^a-z0-9]/g, "");

const USAGES: Readonly<Record<string, Usage>> = {
  residential: "Residential",
  residencial: "Residential",
  residencia: "Residential",
  rural: "Residential",
  commercial: "Commercial",
  comercial: "Commercial",
  commerce: "Commercial",
  business: "Commercial",
};

/** Names the table does not hold, and the misspellings CRMs are known for. */
const SYNONYMS: Readonly<Record<string, string>> = {
  apartament: "Apartamento",
  appartment: "Apartamento",
  apartmento: "Apartamento",
  apartamentos: "Apartamento",
  aparment: "Apartamento",
  apto: "Apartamento",
  ap: "Apartamento",
  apartamentopadrao: "Apartamento",
  house: "Casa",
  casas: "Casa",
  casaterrea: "Casa",
  casapadrao: "Casa",
  residencia: "Casa",
  casaemcondominio: "Casa de Condomínio",
  casacondominio: "Casa de Condomínio",
  condominio: "Casa de Condomínio",
  condominiofechado: "Casa de Condomínio",
  casadecondominiofechado: "Casa de Condomínio",
  villagehouse: "Casa de Vila",
  casavila: "Casa de Vila",
  penthouse: "Cobertura",
  penthose: "Cobertura",
  coberturaduplex: "Cobertura",
  kitinete: "Kitnet",
  kitchenette: "Kitnet",
  kitnete: "Kitnet",
  conjugado: "Kitnet",
  estudio: "Studio",
  apartamentostudio: "Studio",
  chacara: "Chácara",
  chacaras: "Chácara",
  fazenda: "Chácara",
  farm: "Chácara",
  ranch: "Chácara",
  farmranch: "Chácara",
  sitio: "Sítio",
  agricultural: "Sítio",
  lote: "Terreno",
  loteterreno: "Terreno",
  terrenolote: "Terreno",
  lot: "Terreno",
  land: "Terreno",
  landlot: "Terreno",
  sala: "Sala Comercial",
  salas: "Sala Comercial",
  conjuntocomercial: "Sala Comercial",
  escritorio: "Sala Comercial",
  office: "Sala Comercial",
  salacomercial: "Sala Comercial",
  store: "Loja",
  shop: "Loja",
  retail: "Loja",
  lojacomercial: "Loja",
  pontocomercial: "Ponto Comercial",
  galpao: "Galpão",
  deposito: "Galpão",
  armazem: "Galpão",
  warehouse: "Galpão",
  industrial: "Galpão",
  galpaodeposito: "Galpão",
  predio: "Prédio Comercial",
  prediocomercial: "Prédio Comercial",
  edificiocomercial: "Prédio Comercial",
  predioresidencial: "Prédio Residencial",
  edificioresidencial: "Prédio Residencial",
  andarcorporativo: "Andar Corporativo",
  corporatefloor: "Andar Corporativo",
  lajecorporativa: "Andar Corporativo",
  consultorio: "Consultório",
  box: "Garagem",
  vagadegaragem: "Garagem",
  garagem: "Garagem",
};

/** The VRSync type part (after the usage) → the names it has under each usage. */
const BY_TYPE = new Map<string, Partial<Record<Usage, string>>>();
const BY_NAME = new Map<string, string>();
for (const [vrsync, name] of PROPERTY_TYPES) {
  const [usage, type] = vrsync.split(" / ") as [Usage, string];
  BY_TYPE.set(key(type), { ...BY_TYPE.get(key(type)), [usage]: name });
  BY_NAME.set(key(name), name);
}
const VRSYNC_BY_NAME = new Map(PROPERTY_TYPES.map(([vrsync, name]) => [name, vrsync]));

/** The API's name for a bare type, under the usage when the type has one per usage. */
function nameOfType(type: string, usage: Usage | null): string | null {
  const k = key(type);
  const byUsage = BY_TYPE.get(k);
  if (byUsage !== undefined)
    return (usage !== null ? byUsage[usage] : undefined) ?? byUsage.Residential ?? byUsage.Commercial ?? null;
  return BY_NAME.get(k) ?? SYNONYMS[k] ?? null;
}

/** What a feed says about the type: its text (`Residential / Apartment`, `Apartamento`) and a separate usage, if any. */
export interface TypeInFeed {
  text: string;
  usage: string | null;
}

/**
 * The API's propertyType for what a feed wrote. A `Usage / Type` pair whose usage the type does
 * not have (`Commercial / Apartment`) is read by its type. Unknown: kept trimmed, as written.
 */
export function readPropertyType({ text, usage }: TypeInFeed): Read<string> {
  const written = text.trim().replace(/\s+/g, " ");
  const slash = written.indexOf("/");
  const head = slash >= 0 ? USAGES[key(written.slice(0, slash))] : undefined;
  const type = head !== undefined ? written.slice(slash + 1) : written;
  const name =
    nameOfType(type, head ?? (usage === null ? null : (USAGES[key(usage)] ?? null))) ??
    (head === undefined ? null : nameOfType(written, null));
  if (name !== null) return readOk(name);
  return readFailed(
    written,
    "UNKNOWN_PROPERTY_TYPE",
    "a property type outside the table of docs/IMPORT.md: kept as written",
  );
}

/** The VRSync PropertyType of an API type name; null when VRSync has none. */
export function vrsyncPropertyType(name: string): string | null {
  return VRSYNC_BY_NAME.get(name) ?? null;
}
