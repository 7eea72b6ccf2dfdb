// The VRSync reader: every mapped element of the fixture lands in the right field, a listing is
// refused only when it cannot be one (values it cannot read are warnings), and a malformed
// document is refused whole.
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { FeedError, type FeedItem, type Listing } from "../../src/formats/listing.ts";
import { readVrsync } from "../../src/formats/vrsync/reader.ts";
import { MAX_LISTING_CHARS } from "../../src/formats/vrsync/tree.ts";
import type { FeedWarning } from "../../src/formats/warnings.ts";

const FIXTURES = join(import.meta.dir, "../fixtures/vrsync");

async function* chunks(text: string, size = 97): AsyncGenerator<string> {
  // Small odd-sized chunks: elements and entities split across writes must still parse.
  for (let i = 0; i < text.length; i += size) yield text.slice(i, i + size);
}

async function read(text: string, notices: FeedWarning[] = []): Promise<FeedItem[]> {
  const items: FeedItem[] = [];
  for await (const item of readVrsync(chunks(text), notices)) items.push(item);
  return items;
}

async function listings(file: string): Promise<Map<string, Listing>> {
  const items = await read(await Bun.file(join(FIXTURES, file)).text());
  return new Map(
    items.flatMap((item) => (item.kind === "listing" ? [[item.listing.code, item.listing] as const] : [])),
  );
}

const feed = (listingsXml: string, extraNs = "") =>
  `<?xml version="1.0"?><ListingDataFeed xmlns="http://www.vivareal.com/schemas/1.0/VRSync"${extraNs}><Listings>${listingsXml}</Listings></ListingDataFeed>`;

describe("VRSync mapping: every element with a home in SPEC's property", () => {
  test("a complete listing maps title, description, operation, type, prices, areas, rooms, address, coordinates, photos, highlight", async () => {
    const ap = (await listings("complete.xml")).get("AP-100")!;
    expect(ap).toEqual({
      code: "AP-100",
      title: "Apartamento com 3 quartos & varanda gourmet em Moema",
      description: "Apartamento reformado, 3 quartos (1 suíte).<br>Condomínio com piscina & academia.",
      operationType: "SALE",
      status: "AVAILABLE",
      propertyType: "Apartamento",
      highlight: "SUPER_PREMIUM",
      exclusive: false,
      address: {
        street: "Avenida Ibirapuera",
        number: "2120",
        complement: "Apto 71",
        neighborhood: "Moema",
        city: "São Paulo",
        state: "São Paulo",
        uf: "SP",
        cep: "04028-001",
        visibility: "ALL",
      },
      coordinates: { latitude: -23.6021, longitude: -46.6653 },
      features: {
        totalArea: 110,
        builtArea: 92.5,
        bedrooms: 3,
        bathrooms: 2,
        suites: 1,
        parkingSpaces: 2,
        floor: 7,
        totalFloors: 15,
        isFurnished: true,
      },
      amenities: ["Pool", "Furnished"],
      pricing: { salePrice: 850000, rentalPrice: null, condominiumFee: 1200.5, iptu: 3600 },
      financing: { acceptsFinancing: false },
      photos: [
        { id: null, url: "https://img.exemplo.com.br/ap-100/1.jpg", alt: "Fachada", order: 1, isMain: false },
        { id: null, url: "https://img.exemplo.com.br/ap-100/2.jpg", alt: "Sala de estar", order: 2, isMain: true },
        { id: null, url: "https://img.exemplo.com.br/ap-100/3.jpg", alt: null, order: 3, isMain: false },
      ],
    });
  });

  test("For Rent is RENT; Featured without PublicationType is PREMIUM; Iptu per month becomes annual; empty elements are null", async () => {
    const ca = (await listings("complete.xml")).get("CA-200")!;
    expect(ca.operationType).toBe("RENT");
    expect(ca.highlight).toBe("PREMIUM");
    expect(ca.pricing).toEqual({ salePrice: null, rentalPrice: 4500, condominiumFee: null, iptu: 1800 });
    expect(ca.features.suites).toBeNull();
    expect(ca.features.builtArea).toBe(120); // no unit: square metres
  });

  test("the state's abbreviation is derived from its name, and the name from a bare abbreviation", async () => {
    const all = await listings("complete.xml");
    expect(all.get("CA-200")!.address).toMatchObject({ state: "Rio de Janeiro", uf: "RJ", cep: "20520-050" });
    expect(all.get("FL-300")!.address).toMatchObject({ state: "Santa Catarina", uf: "SC" });
    expect(all.get("SO-500")!.address).toMatchObject({ state: "Minas Gerais", uf: "MG" });
  });

  test("a daily or weekly rent is SEASONAL, converted to a monthly amount; Temporada is SEASONAL too", async () => {
    const all = await listings("complete.xml");
    expect(all.get("FL-300")!).toMatchObject({ operationType: "SEASONAL", pricing: { rentalPrice: 10500 } });
    expect(all.get("TE-600")!).toMatchObject({
      operationType: "SEASONAL",
      pricing: { rentalPrice: 3000 },
      features: { totalArea: 10000 },
    });
  });

  test("Sale/Rent is a SALE that keeps both prices; PublicationType is case-insensitive", async () => {
    const co = (await listings("complete.xml")).get("CO-400")!;
    expect(co).toMatchObject({
      operationType: "SALE",
      highlight: "PREMIUM",
      pricing: { salePrice: 2400000, rentalPrice: 12000 },
    });
  });

  test("the partner-api extension carries status, exclusivity, financing and photo ids", async () => {
    const so = (await listings("complete.xml")).get("SO-500")!;
    expect(so).toMatchObject({
      status: "RESERVED",
      exclusive: true,
      financing: { acceptsFinancing: true },
      propertyType: "Sobrado",
    });
    expect(so.photos).toEqual([
      { id: "photo-so-500-1", url: "https://img.exemplo.com.br/so-500/1.jpg", alt: "Frente", order: 1, isMain: true },
    ]);
  });

  test("without a primary photo the first one is main; with several, the first marked", async () => {
    const items = await read(
      feed(
        "<Listing><ListingID>P-1</ListingID><Title>t</Title><TransactionType>For Sale</TransactionType><Media>" +
          '<Item medium="image">https://a/1.jpg</Item><Item medium="image">https://a/2.jpg</Item></Media></Listing>' +
          "<Listing><ListingID>P-2</ListingID><Title>t</Title><TransactionType>For Sale</TransactionType><Media>" +
          '<Item>https://a/1.jpg</Item><Item primary="true">https://a/2.jpg</Item><Item primary="true">https://a/3.jpg</Item></Media></Listing>',
      ),
    );
    const mains = items.map((item) => item.kind === "listing" && item.listing.photos.map((p) => p.isMain));
    expect(mains).toEqual([
      [true, false],
      [false, true, false],
    ]);
  });

  test("elements of other vocabularies are ignored; a prefixed VRSync namespace is understood", async () => {
    const xml =
      '<?xml version="1.0"?><v:ListingDataFeed xmlns:v="http://www.vivareal.com/schemas/1.0/VRSync" xmlns:crm="urn:some-crm">' +
      "<v:Listings><v:Listing><v:ListingID>NS-1</v:ListingID><crm:Title>not this</crm:Title><v:Title>this one</v:Title>" +
      "<v:TransactionType>For Sale</v:TransactionType></v:Listing></v:Listings></v:ListingDataFeed>";
    const [item] = await read(xml);
    expect(item).toMatchObject({ kind: "listing", listing: { code: "NS-1", title: "this one" } });
  });
});

describe("VRSync refusals: only a listing that cannot be one is refused; the rest are read with warnings", () => {
  test("no ListingID, no Title, or no way to tell sale from rent refuse the listing; unreadable values are warnings", async () => {
    const items = await read(await Bun.file(join(FIXTURES, "rejections.xml")).text());
    const rejected = items.filter((item) => item.kind === "rejected");
    expect(rejected.map((item) => item.code)).toEqual([null, "TT-1", "NOTITLE-1"]);
    const reasons = rejected.map((item) => (item.kind === "rejected" ? item.reason : ""));
    expect(reasons[0]).toMatch(/^line \d+: ListingID: is required$/);
    expect(reasons[1]).toContain(
      'TransactionType: "Lease To Own" is not a known transaction type, and neither ListPrice nor RentalPrice tells sale from rent',
    );
    expect(reasons[2]).toContain("Title: is required");
    const read_ = new Map(
      items.flatMap((item) => (item.kind === "listing" ? [[item.listing.code, item] as const] : [])),
    );
    expect(read_.get("NEG-1")).toMatchObject({
      listing: { pricing: { salePrice: null } },
      warnings: [{ kind: "OUT_OF_RANGE", code: "NEG-1", element: "Details/ListPrice", value: "-100" }],
    });
    expect(read_.get("USD-1")).toMatchObject({
      listing: { pricing: { salePrice: null } },
      warnings: [{ kind: "FOREIGN_CURRENCY", element: "Details/ListPrice@currency", value: "USD" }],
    });
    expect(read_.get("SEP-1")).toMatchObject({ listing: { pricing: { salePrice: 350000 } }, warnings: [] }); // 350.000 is grouping
    expect(read_.get("TYPE-1")).toMatchObject({
      listing: { propertyType: "Residential / Igloo" },
      warnings: [{ kind: "UNKNOWN_PROPERTY_TYPE" }],
    });
    const good = items
      .filter((item) => item.kind === "listing")
      .map((item) => item.kind === "listing" && item.listing.code);
    expect(good).toEqual(["GOOD-1", "NEG-1", "USD-1", "SEP-1", "TYPE-1", "GOOD-1", "GOOD-2"]); // the repeated code is the importer's to settle
  });

  test("each value that cannot be read is its own warning, with the element's line, path and value; the listing is kept", async () => {
    const [item] = await read(
      feed(
        "<Listing><ListingID>MANY</ListingID><Title>t</Title><TransactionType>For Sale</TransactionType><Details><Bedrooms>two</Bedrooms>\n" +
          "<ListPrice>-1</ListPrice></Details><Location><Latitude>95</Latitude><Longitude>10</Longitude>\n<PostalCode>123</PostalCode></Location></Listing>",
      ),
    );
    expect(item!.kind).toBe("listing");
    const warnings = item!.kind === "listing" ? item!.warnings : [];
    expect(warnings.map(({ kind, element, value, line }) => ({ kind, element, value, line }))).toEqual([
      { kind: "INVALID_CEP", element: "Location/PostalCode", value: "123", line: 3 },
      { kind: "OUT_OF_RANGE", element: "Location/Latitude", value: "95", line: 2 },
      { kind: "OUT_OF_RANGE", element: "Details/ListPrice", value: "-1", line: 2 },
      { kind: "UNREADABLE_NUMBER", element: "Details/Bedrooms", value: "two", line: 1 },
    ]);
    expect(item).toMatchObject({
      listing: {
        features: { bedrooms: null },
        pricing: { salePrice: null },
        coordinates: { latitude: null, longitude: null },
        address: { cep: null },
      },
    });
  });

  test("a listing over the size cap is refused by its code without holding it in memory", async () => {
    const huge = "x".repeat(MAX_LISTING_CHARS + 10);
    const [item] = await read(
      feed(
        `<Listing><ListingID>BIG</ListingID><Title>t</Title><Details><Description>${huge}</Description></Details></Listing>`,
      ),
    );
    expect(item).toMatchObject({ kind: "rejected", code: "BIG" });
  });
});

describe("VRSync malformed documents: refused whole, with line and column", () => {
  test("a mismatched tag throws FeedError naming where", async () => {
    const error = await read(await Bun.file(join(FIXTURES, "malformed.xml")).text()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FeedError);
    expect((error as Error).message).toMatch(/^malformed XML at line 11, column \d+: /);
  });

  test("a truncated document throws FeedError", async () => {
    const error = await read(feed("<Listing><ListingID>T</ListingID>").slice(0, -30)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FeedError);
  });

  test("another XML document is not a VRSync feed", async () => {
    const error = await read("<rss><channel/></rss>").catch((e: unknown) => e);
    expect((error as Error).message).toContain("not a VRSync feed");
  });

  test("an entity a DTD declares is expanded as its text", async () => {
    const xml =
      '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY agency "Imobiliária &amp; Cia">]>' +
      feed(
        "<Listing><ListingID>E-1</ListingID><Title>&agency;</Title><TransactionType>For Sale</TransactionType></Listing>",
      ).replace(/^<\?xml[^>]*>/, "");
    const [item] = await read(xml);
    expect(item).toMatchObject({ kind: "listing", listing: { title: "Imobiliária & Cia" } });
  });
});
