// The closed vocabularies of a feed as CRMs spell them (docs/reference/behaviour-extensions.md §16): transaction types,
// currencies, booleans, publication tiers, statuses, address visibility, media kinds.
import {
  ADDRESS_VISIBILITIES,
  type AddressVisibility,
  PROPERTY_STATUSES,
  type PropertyStatus,
} from "../../catalog/enums.ts";
import { foldText } from "../brazil.ts";
import { type Read, readFailed, readOk } from "../warnings.ts";

/** The deals a TransactionType names. */
export interface Deals {
  sale: boolean;
  rent: boolean;
  seasonal: boolean;
}

const DEAL_WORDS: Readonly<Record<string, keyof Deals>> = {
  sale: "sale",
  sell: "sale",
  venda: "sale",
  vendas: "sale",
  comprar: "sale",
  rent: "rent",
  rental: "rent",
  lease: "rent",
  aluguel: "rent",
  alugar: "rent",
  locacao: "rent",
  seasonal: "seasonal",
  temporada: "seasonal",
  "aluguel de temporada": "seasonal",
  "locacao de temporada": "seasonal",
};

/**
 * A TransactionType: `For Sale`, `Venda`, `For Rent`, `Aluguel`, `Locação`, `Sale/Rent`,
 * `SaleAndRent`, `Venda/Locação`, `Seasonal`, `Temporada`…, in any case and with or without
 * accents; `/`, `&`, `and`, `e` and `,` join two deals. Null when a part is not a deal.
 */
export function dealsOf(text: string): Deals | null {
  const words = foldText(text.replace(/([a-z])([A-Z])/g, "$1 $2")) // SaleAndRent → sale and rent
    .split(/\s*(?:\/|&|\+|,|\band\b|\be\b|\bou\b|\bor\b)\s*/)
    .map((part) => part.replace(/^(?:for|para|a)\s+/, "").trim())
    .filter((part) => part !== "");
  if (words.length === 0) return null;
  const deals: Deals = { sale: false, rent: false, seasonal: false };
  for (const word of words) {
    const deal = DEAL_WORDS[word];
    if (deal === undefined) return null;
    deals[deal] = true;
  }
  return deals;
}

/** BRL in any spelling, or absent; another currency makes that price null. */
export function isBrl(currency: string | null): boolean {
  return currency === null || ["brl", "r$", "real", "reais", "rs", "rs$"].includes(foldText(currency));
}

const TRUE_WORDS = new Set(["true", "1", "yes", "y", "sim", "s", "verdadeiro"]);
const FALSE_WORDS = new Set(["false", "0", "no", "n", "nao", "falso"]);

/** A boolean in English, Portuguese or as a digit; null (with a problem) otherwise. */
export function readBoolean(text: string): Read<boolean | null> {
  if (text === "true" || text === "false") return readOk(text === "true"); // as VRSync writes them: skip the folding
  const key = foldText(text);
  if (TRUE_WORDS.has(key)) return readOk(true);
  if (FALSE_WORDS.has(key)) return readOk(false);
  return readFailed(null, "UNKNOWN_VALUE", "not true or false");
}

/**
 * Highlight levels: the portals' publication tiers (VRSync PublicationType). A closed set keeps
 * `highlight` filterable and every listing exportable as VRSync.
 */
export const PUBLICATION_TIERS = [
  "STANDARD",
  "PREMIUM",
  "SUPER_PREMIUM",
  "PREMIERE_1",
  "PREMIERE_2",
  "TRIPLE",
] as const;

const TIER_SYNONYMS: Readonly<Record<string, string>> = {
  SIMPLES: "STANDARD",
  PADRAO: "STANDARD",
  NORMAL: "STANDARD",
  BASICO: "STANDARD",
  DESTAQUE: "PREMIUM",
  SUPER_DESTAQUE: "SUPER_PREMIUM",
  SUPERPREMIUM: "SUPER_PREMIUM",
  PREMIERE1: "PREMIERE_1",
  PREMIERE2: "PREMIERE_2",
  TRIPLO: "TRIPLE",
};

/** A PublicationType in any case or spacing (`Super Premium`, `super-premium`); unknown → STANDARD. */
export function readTier(text: string): Read<string> {
  const key = foldText(text)
    .toUpperCase()
    .replace(/[\s-]+/g, "_");
  if ((PUBLICATION_TIERS as readonly string[]).includes(key)) return readOk(key);
  const synonym = TIER_SYNONYMS[key];
  if (synonym !== undefined) return readOk(synonym);
  return readFailed("STANDARD", "UNKNOWN_VALUE", `not a publication tier (${PUBLICATION_TIERS.join(", ")}): STANDARD`);
}

/** A property status in any case; unknown → AVAILABLE. */
export function readStatus(text: string): Read<PropertyStatus> {
  const key = text.trim().toUpperCase();
  if ((PROPERTY_STATUSES as readonly string[]).includes(key)) return readOk(key as PropertyStatus);
  return readFailed("AVAILABLE", "UNKNOWN_VALUE", `not a property status (${PROPERTY_STATUSES.join(", ")}): AVAILABLE`);
}

const VISIBILITY_WORDS: Readonly<Record<string, AddressVisibility>> = {
  all: "ALL",
  full: "ALL",
  completo: "ALL",
  completa: "ALL",
  todos: "ALL",
  tudo: "ALL",
  true: "ALL",
  sim: "ALL",
  street: "STREET",
  rua: "STREET",
  logradouro: "STREET",
  neighborhood: "NEIGHBORHOOD",
  neighbourhood: "NEIGHBORHOOD",
  bairro: "NEIGHBORHOOD",
  none: "NEIGHBORHOOD",
  false: "NEIGHBORHOOD",
  nao: "NEIGHBORHOOD",
};

/**
 * `displayAddress`: `All`, `Street`, `Neighborhood` in any case (and their Portuguese names).
 * An unknown value hides the most (NEIGHBORHOOD): showing what an agency meant to hide is the
 * one mistake that cannot be taken back.
 */
export function readVisibility(text: string): Read<AddressVisibility> {
  const visibility =
    VISIBILITY_WORDS[foldText(text)] ??
    (ADDRESS_VISIBILITIES as readonly string[]).find((v) => v === text.trim().toUpperCase());
  if (visibility !== undefined) return readOk(visibility as AddressVisibility);
  return readFailed(
    "NEIGHBORHOOD",
    "UNKNOWN_VALUE",
    "not All, Street or Neighborhood: the address is shown only to its neighbourhood (NEIGHBORHOOD)",
  );
}

/** A media item's `medium` that makes it a photo; absent counts as one. */
export function isPhotoMedium(medium: string | null): boolean {
  return (
    medium === null ||
    medium === "image" ||
    ["image", "photo", "foto", "imagem", "picture", "img"].includes(foldText(medium))
  );
}

/** A media item's `primary`: true, 1, yes, sim in any case. */
export function isPrimary(primary: string | null): boolean {
  return primary !== null && readBoolean(primary).value === true;
}

/** Brazil in any of the ways CRMs write it. */
export function isBrazil(country: string): boolean {
  return ["br", "bra", "brasil", "brazil", "republica federativa do brasil"].includes(foldText(country));
}
