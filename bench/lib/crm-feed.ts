// A realistic CRM feed for the import benchmark: the seed generator's fictitious listings written
// the way Brazilian CRMs export VRSync for the portals (UsageType beside a bare PropertyType,
// CDATA descriptions, Features, a 28-photo gallery with captions, displayAddress, contact info,
// elements the API has no home for), not the way partner-api's own exporter writes them.
import { Prng } from "../../src/seed/prng.ts";
import { generateProperty, type PropertyRecord } from "../../src/seed/properties.ts";

export const REALISTIC_LISTINGS = 50_000;
export const PHOTOS_PER_LISTING = 28;

const END_MS = Date.parse("2026-01-01T00:00:00.000Z");
const TIMELINE = { startMs: END_MS - 2 * 365 * 86_400_000, endMs: END_MS };

/** The Portuguese type name → VRSync usage and bare type, as CRMs split them. */
const TYPES: Readonly<Record<string, [usage: string, type: string]>> = {
  Apartamento: ["Residential", "Apartment"],
  Casa: ["Residential", "Home"],
  "Casa de Condomínio": ["Residential", "Condo"],
  Cobertura: ["Residential", "Penthouse"],
  Kitnet: ["Residential", "Kitnet"],
  Studio: ["Residential", "Studio"],
  Flat: ["Residential", "Flat"],
  Loft: ["Residential", "Loft"],
  Sobrado: ["Residential", "Sobrado"],
  Terreno: ["Residential", "Land Lot"],
  Chácara: ["Residential", "Farm Ranch"],
  Sítio: ["Residential", "Agricultural"],
  "Sala Comercial": ["Commercial", "Office"],
  Loja: ["Commercial", "Loja"],
  Galpão: ["Commercial", "Industrial"],
};
const FEATURES = [
  "Pool",
  "Gym",
  "Barbecue Grill",
  "Playground",
  "Party Room",
  "Elevator",
  "Sauna",
  "Gourmet Area",
  "Concierge",
  "Garden",
];
const ROOMS = [
  "Fachada",
  "Sala de estar",
  "Sala de jantar",
  "Cozinha",
  "Quarto",
  "Suíte",
  "Banheiro",
  "Varanda",
  "Área de serviço",
  "Vista",
];
const DISPLAY = ["All", "All", "All", "All", "All", "All", "All", "Street", "Street", "Neighborhood"];

const escape = (text: string) =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
const tag = (name: string, value: string | number | null, attrs = "") =>
  value === null ? "" : `<${name}${attrs}>${typeof value === "number" ? value : escape(value)}</${name}>`;

function listingXml(p: PropertyRecord, index: number, codePrefix: string): string {
  const code = codePrefix + (p.code ?? `IM-${String(index + 1).padStart(6, "0")}`);
  const [usage, type] = TYPES[p.propertyType] ?? ["Residential", "Apartment"];
  const transaction = p.operationType === "SALE" ? (p.rentalPrice !== null ? "Sale/Rent" : "For Sale") : "For Rent";
  const photos = Array.from(
    { length: PHOTOS_PER_LISTING },
    (_, i) =>
      `        <Item medium="image" caption="${ROOMS[i % ROOMS.length]} ${Math.floor(i / ROOMS.length) + 1}"${i === 0 ? ' primary="true"' : ""}>` +
      `https://cdn.crm-exemplo.com.br/imoveis/${code}/fotos/${String(i + 1).padStart(4, "0")}-${p.id.slice(0, 8)}.jpg</Item>\n`,
  ).join("");
  const features = FEATURES.filter((_, i) => (index + i) % 3 === 0);
  return `    <Listing>
      <ListingID>${code}</ListingID>
      <Title><![CDATA[${p.title}]]></Title>
      <TransactionType>${transaction}</TransactionType>
      <PublicationType>${p.highlight}</PublicationType>
      <DetailViewUrl>https://www.imobiliaria-exemplo.com.br/imovel/${code}</DetailViewUrl>
      <ListDate>${p.createdAt.slice(0, 19)}</ListDate>
      <LastUpdateDate>${p.updatedAt.slice(0, 19)}</LastUpdateDate>
      <Media>
${photos}      </Media>
      <Details>
        <UsageType>${usage}</UsageType>
        <PropertyType>${type}</PropertyType>
        <Description><![CDATA[${p.description}]]></Description>
        ${tag("ListPrice", p.salePrice, ' currency="BRL"')}${tag("RentalPrice", p.rentalPrice, ' currency="BRL" period="Monthly"')}
        ${tag("PropertyAdministrationFee", p.condominiumFee, ' currency="BRL"')}${tag("Iptu", p.iptu, ' currency="BRL" period="Yearly"')}
        ${tag("LivingArea", p.builtArea, ' unit="square metres"')}${tag("LotArea", p.totalArea, ' unit="square metres"')}
        ${tag("Bedrooms", p.bedrooms)}${tag("Bathrooms", p.bathrooms)}${tag("Suites", p.suites)}${tag("Garage", p.parkingSpaces, ' type="Parking Space"')}
        ${tag("UnitFloor", p.floor)}${tag("Floors", p.totalFloors)}<YearBuilt>${1980 + (index % 45)}</YearBuilt>
        <Features>${[...features, ...(p.isFurnished ? ["Furnished"] : [])].map((f) => `<Feature>${f}</Feature>`).join("")}</Features>
      </Details>
      <Location displayAddress="${DISPLAY[index % DISPLAY.length]}">
        <Country abbreviation="BR">Brasil</Country>
        <State abbreviation="${p.uf}">${escape(p.state)}</State>
        <City>${escape(p.city)}</City>
        <Neighborhood>${escape(p.neighborhood)}</Neighborhood>
        <Address>${escape(p.street)}</Address>
        <StreetNumber>${p.number}</StreetNumber>
        ${tag("Complement", p.complement)}
        <PostalCode>${p.cep}</PostalCode>
        ${tag("Latitude", p.latitude)}${tag("Longitude", p.longitude)}
      </Location>
      <ContactInfo>
        <Name>Imobiliária Exemplo</Name>
        <Email>contato@imobiliaria-exemplo.com.br</Email>
        <Website>https://www.imobiliaria-exemplo.com.br</Website>
        <Telephone>(11) 3000-0000</Telephone>
      </ContactInfo>
    </Listing>
`;
}

/**
 * Writes the feed of `listings` listings to `path` (deterministic: the seed's PRNG, seed 42).
 * `codePrefix` sets the feed's codes apart from a seeded database's (the feed-run scenario).
 */
export async function writeCrmFeed(path: string, listings: number, codePrefix = ""): Promise<void> {
  const writer = Bun.file(path).writer();
  writer.write(
    '<?xml version="1.0" encoding="UTF-8"?>\n<ListingDataFeed xmlns="http://www.vivareal.com/schemas/1.0/VRSync" ' +
      'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://www.vivareal.com/schemas/1.0/VRSync http://xml.vivareal.com/vrsync.xsd">\n' +
      "  <Header>\n    <Provider>CRM Exemplo</Provider>\n    <Email>integracao@crm-exemplo.com.br</Email>\n" +
      `    <PublishDate>${new Date(END_MS).toISOString()}</PublishDate>\n  </Header>\n  <Listings>\n`,
  );
  const rng = new Prng(42, 1);
  for (let i = 0; i < listings; i++) {
    writer.write(listingXml(generateProperty(rng, i, listings, TIMELINE), i, codePrefix));
    if (i % 2_000 === 1_999) await writer.flush();
  }
  writer.write("  </Listings>\n</ListingDataFeed>\n");
  await writer.end();
}
