// Listing vocabulary of the seed: property types and their profiles, how often each tier and status occurs, streets and Portuguese text fragments.
import type { HIGHLIGHT_TIERS, OperationType, PropertyStatus } from "../catalog/enums.ts";

export type HighlightTier = (typeof HIGHLIGHT_TIERS)[number];

/** Share of each portal publication tier (docs/reference/behaviour.md §8): most listings are plain. */
export const HIGHLIGHT_WEIGHTS: Readonly<Record<HighlightTier, number>> = {
  STANDARD: 70,
  PREMIUM: 18,
  SUPER_PREMIUM: 8,
  TRIPLE: 4,
};

/** Status follows the operation: a rental is never SOLD, a sale never RENTED. */
export const STATUS_BY_OPERATION: Readonly<Record<OperationType, Partial<Record<PropertyStatus, number>>>> = {
  SALE: { AVAILABLE: 80, RESERVED: 5, SOLD: 9, UNAVAILABLE: 6 },
  RENT: { AVAILABLE: 79, RENTED: 11, RESERVED: 4, UNAVAILABLE: 6 },
  SEASONAL: { AVAILABLE: 84, RENTED: 9, RESERVED: 5, UNAVAILABLE: 2 },
};

/**
 * How features are shaped: units in a building have a floor, houses have storeys, land has
 * only an area, commercial units have no bedrooms.
 */
export type PropertyKind =
  | "apartment"
  | "penthouse"
  | "compact"
  | "house"
  | "condo-house"
  | "rural"
  | "land"
  | "office"
  | "store"
  | "warehouse";

export interface PropertyTypeProfile {
  /** The stored propertyType value. */
  readonly name: string;
  /** Prefix of the agency code, as in `AP-004512`. */
  readonly codePrefix: string;
  /** Grammatical gender of the name, so adjectives in titles agree ("casa reformada"). */
  readonly feminine: boolean;
  readonly kind: PropertyKind;
  readonly weight: number;
  readonly operations: Partial<Record<OperationType, number>>;
  /** Storeys of a house; null for units in a building (they have floors) and for land. */
  readonly storeys: readonly [number, number] | null;
  /** Built (private) area range in m²; null for land. */
  readonly builtArea: readonly [number, number] | null;
  /** Lot area range in m² for kinds whose total area is the lot (houses, land, rural, warehouses). */
  readonly lotArea: readonly [number, number] | null;
  /** Scales the city's price per m² of built area. */
  readonly builtPriceFactor: number;
  /** Share of the city's price per m² that one m² of lot adds. */
  readonly lotPriceFactor: number;
}

export const PROPERTY_TYPES: readonly PropertyTypeProfile[] = [
  {
    name: "Apartamento",
    codePrefix: "AP",
    feminine: false,
    kind: "apartment",
    weight: 34,
    operations: { SALE: 58, RENT: 36, SEASONAL: 6 },
    storeys: null,
    builtArea: [38, 180],
    lotArea: null,
    builtPriceFactor: 1,
    lotPriceFactor: 0,
  },
  {
    name: "Cobertura",
    codePrefix: "CO",
    feminine: true,
    kind: "penthouse",
    weight: 4,
    operations: { SALE: 75, RENT: 18, SEASONAL: 7 },
    storeys: null,
    builtArea: [110, 420],
    lotArea: null,
    builtPriceFactor: 1.3,
    lotPriceFactor: 0,
  },
  {
    name: "Kitnet",
    codePrefix: "KN",
    feminine: true,
    kind: "compact",
    weight: 4,
    operations: { SALE: 25, RENT: 72, SEASONAL: 3 },
    storeys: null,
    builtArea: [18, 35],
    lotArea: null,
    builtPriceFactor: 1.05,
    lotPriceFactor: 0,
  },
  {
    name: "Studio",
    codePrefix: "ST",
    feminine: false,
    kind: "compact",
    weight: 3,
    operations: { SALE: 45, RENT: 48, SEASONAL: 7 },
    storeys: null,
    builtArea: [22, 45],
    lotArea: null,
    builtPriceFactor: 1.25,
    lotPriceFactor: 0,
  },
  {
    name: "Flat",
    codePrefix: "FL",
    feminine: false,
    kind: "compact",
    weight: 2,
    operations: { SALE: 40, RENT: 45, SEASONAL: 15 },
    storeys: null,
    builtArea: [26, 60],
    lotArea: null,
    builtPriceFactor: 1.15,
    lotPriceFactor: 0,
  },
  {
    name: "Casa",
    codePrefix: "CA",
    feminine: true,
    kind: "house",
    weight: 16,
    operations: { SALE: 68, RENT: 27, SEASONAL: 5 },
    storeys: [1, 1],
    builtArea: [55, 350],
    lotArea: [125, 720],
    builtPriceFactor: 0.7,
    lotPriceFactor: 0.22,
  },
  {
    name: "Sobrado",
    codePrefix: "SO",
    feminine: false,
    kind: "house",
    weight: 6,
    operations: { SALE: 70, RENT: 30 },
    storeys: [2, 3],
    builtArea: [90, 320],
    lotArea: [125, 500],
    builtPriceFactor: 0.72,
    lotPriceFactor: 0.22,
  },
  {
    name: "Casa de Condomínio",
    codePrefix: "CC",
    feminine: true,
    kind: "condo-house",
    weight: 5,
    operations: { SALE: 78, RENT: 18, SEASONAL: 4 },
    storeys: [1, 2],
    builtArea: [120, 500],
    lotArea: [250, 1200],
    builtPriceFactor: 0.85,
    lotPriceFactor: 0.25,
  },
  {
    name: "Chácara",
    codePrefix: "CH",
    feminine: true,
    kind: "rural",
    weight: 2,
    operations: { SALE: 75, RENT: 5, SEASONAL: 20 },
    storeys: [1, 1],
    builtArea: [70, 400],
    lotArea: [1000, 20000],
    builtPriceFactor: 0.45,
    lotPriceFactor: 0.008,
  },
  {
    name: "Terreno",
    codePrefix: "TE",
    feminine: false,
    kind: "land",
    weight: 8,
    operations: { SALE: 97, RENT: 3 },
    storeys: null,
    builtArea: null,
    lotArea: [150, 2000],
    builtPriceFactor: 0,
    lotPriceFactor: 0.25,
  },
  {
    name: "Sala Comercial",
    codePrefix: "SA",
    feminine: true,
    kind: "office",
    weight: 8,
    operations: { SALE: 40, RENT: 60 },
    storeys: null,
    builtArea: [22, 220],
    lotArea: null,
    builtPriceFactor: 0.9,
    lotPriceFactor: 0,
  },
  {
    name: "Loja",
    codePrefix: "LJ",
    feminine: true,
    kind: "store",
    weight: 4,
    operations: { SALE: 35, RENT: 65 },
    storeys: null,
    builtArea: [25, 450],
    lotArea: null,
    builtPriceFactor: 1,
    lotPriceFactor: 0,
  },
  {
    name: "Galpão",
    codePrefix: "GA",
    feminine: false,
    kind: "warehouse",
    weight: 3,
    operations: { SALE: 35, RENT: 65 },
    storeys: null,
    builtArea: [250, 6000],
    lotArea: null,
    builtPriceFactor: 0.3,
    lotPriceFactor: 0.05,
  },
];

/** Names found in nearly every Brazilian city, so any of them fits any city. */
export const STREETS: readonly string[] = [
  "Rua Sete de Setembro",
  "Rua XV de Novembro",
  "Rua Tiradentes",
  "Avenida Getúlio Vargas",
  "Rua Duque de Caxias",
  "Rua Marechal Deodoro",
  "Rua Santos Dumont",
  "Avenida Brasil",
  "Rua Barão do Rio Branco",
  "Rua Dom Pedro II",
  "Rua Rui Barbosa",
  "Avenida Independência",
  "Rua José Bonifácio",
  "Rua Floriano Peixoto",
  "Rua Benjamin Constant",
  "Rua Visconde de Mauá",
  "Rua Castro Alves",
  "Rua Machado de Assis",
  "Rua Carlos Gomes",
  "Rua Osvaldo Cruz",
  "Rua das Flores",
  "Rua das Palmeiras",
  "Rua dos Ipês",
  "Rua das Acácias",
  "Rua dos Jacarandás",
  "Rua Princesa Isabel",
  "Avenida Presidente Vargas",
  "Rua Quintino Bocaiúva",
  "Rua General Osório",
  "Rua Almirante Barroso",
  "Rua Anita Garibaldi",
  "Rua Bento Gonçalves",
  "Avenida Juscelino Kubitschek",
  "Rua Padre Anchieta",
  "Rua São José",
  "Rua Santa Catarina",
  "Rua Paraná",
  "Rua Bahia",
  "Rua Pernambuco",
  "Rua Goiás",
  "Rua Minas Gerais",
  "Rua Amazonas",
  "Alameda dos Anjos",
  "Travessa São Francisco",
  "Rua Cecília Meireles",
  "Rua Clarice Lispector",
  "Rua Cândido Portinari",
  "Rua Heitor Villa-Lobos",
  "Rua Monteiro Lobato",
  "Avenida das Américas",
  "Rua Vinícius de Moraes",
  "Rua Tom Jobim",
];

/** Adjectives as [masculine, feminine]. */
export const ADJECTIVES: readonly (readonly [string, string])[] = [
  ["amplo", "ampla"],
  ["reformado", "reformada"],
  ["aconchegante", "aconchegante"],
  ["iluminado", "iluminada"],
  ["espaçoso", "espaçosa"],
  ["moderno", "moderna"],
  ["charmoso", "charmosa"],
  ["bem localizado", "bem localizada"],
  ["novo", "nova"],
  ["arejado", "arejada"],
];

/** Land is never "reformado" or "mobiliado". */
export const LAND_ADJECTIVES: readonly string[] = ["plano", "amplo", "murado", "bem localizado", "de esquina"];

export const OPERATION_PHRASES: Readonly<Record<OperationType, string>> = {
  SALE: "à venda",
  RENT: "para alugar",
  SEASONAL: "para temporada",
};

/** Condominium amenities, for residential units and condo houses. */
export const AMENITIES: readonly string[] = [
  "piscina",
  "academia",
  "salão de festas",
  "churrasqueira",
  "playground",
  "portaria 24 horas",
  "quadra poliesportiva",
  "espaço gourmet",
  "brinquedoteca",
  "sauna",
  "bicicletário",
  "pet place",
  "coworking",
  "lavanderia coletiva",
];

/** Features of a house or rural property itself. */
export const HOUSE_FEATURES: readonly string[] = [
  "quintal amplo",
  "piscina",
  "churrasqueira",
  "edícula",
  "jardim",
  "área gourmet",
  "lareira",
  "varanda",
  "aquecimento solar",
  "energia solar",
  "portão eletrônico",
  "canil",
];

export const RURAL_FEATURES: readonly string[] = [
  "pomar",
  "lago",
  "poço artesiano",
  "horta",
  "casa de caseiro",
  "campo de futebol",
  "piscina",
  "churrasqueira",
  "área de mata preservada",
  "nascente",
];

export const NEARBY: readonly string[] = [
  "escolas",
  "supermercados",
  "farmácias",
  "padarias",
  "academias",
  "parques",
  "shopping centers",
  "hospitais",
  "restaurantes",
  "transporte público",
  "universidades",
  "bancos",
];

export const OPENINGS: readonly string[] = [
  "Excelente",
  "Ótima oportunidade:",
  "Lindo imóvel:",
  "Imperdível:",
  "Oportunidade única:",
  "Venha conhecer este imóvel:",
  "Destaque da semana:",
];

export const CLOSINGS: readonly string[] = [
  "Agende sua visita!",
  "Entre em contato e agende uma visita.",
  "Documentação em dia.",
  "Chaves na imobiliária.",
  "Aceitamos propostas.",
  "Fale com nossos corretores.",
  "Visitas de segunda a sábado.",
];

/** Room names used as photo alt texts, per kind; the first is the natural main photo. */
export const PHOTO_ROOMS: Readonly<Record<PropertyKind, readonly string[]>> = {
  apartment: [
    "Sala de estar",
    "Varanda",
    "Cozinha",
    "Quarto",
    "Suíte",
    "Banheiro",
    "Área de serviço",
    "Piscina do condomínio",
    "Fachada do prédio",
    "Vista da janela",
  ],
  penthouse: [
    "Terraço",
    "Sala de estar",
    "Piscina privativa",
    "Cozinha",
    "Suíte master",
    "Quarto",
    "Banheiro",
    "Vista panorâmica",
    "Espaço gourmet",
  ],
  compact: ["Ambiente integrado", "Cozinha americana", "Banheiro", "Janela", "Fachada do prédio", "Área comum"],
  house: ["Fachada", "Sala de estar", "Cozinha", "Quarto", "Suíte", "Banheiro", "Quintal", "Garagem", "Área gourmet"],
  "condo-house": [
    "Fachada",
    "Sala de estar",
    "Piscina",
    "Cozinha",
    "Suíte",
    "Quarto",
    "Jardim",
    "Portaria do condomínio",
    "Área de lazer",
  ],
  rural: ["Vista aérea", "Casa sede", "Varanda", "Piscina", "Pomar", "Lago", "Área de lazer", "Cozinha", "Quarto"],
  land: ["Vista do terreno", "Frente do lote", "Rua de acesso", "Vizinhança", "Vista aérea"],
  office: ["Recepção", "Sala", "Copa", "Banheiro", "Vista da janela", "Fachada do edifício", "Hall de entrada"],
  store: ["Fachada", "Vitrine", "Salão", "Depósito", "Banheiro", "Calçada"],
  warehouse: ["Fachada", "Área interna", "Docas", "Pátio de manobra", "Escritório", "Vista aérea"],
};

export const PHOTO_HOST = "https://img.sandbox.partner-api.example";
