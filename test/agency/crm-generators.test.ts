// Feeds in the shapes real generators write (a WordPress plugin, an agency site's script, a Rails
// serializer, an ERP's Python exporter), each imported into a new database and read back field
// by field through the API: as the agency's own client sees it, and as a partner does.
import { afterAll, describe, expect, test } from "bun:test";
import { type ApiRecord, content, importAndRead, readBack, warningsOf } from "./crm-helpers.ts";
import { tempDir } from "./helpers.ts";

const dir = tempDir();
afterAll(() => dir.cleanup());

const none = {
  street: null,
  number: null,
  complement: null,
  neighborhood: null,
  city: null,
  state: null,
  uf: null,
  cep: null,
};
const noFeatures = {
  totalArea: null,
  builtArea: null,
  bedrooms: null,
  bathrooms: null,
  suites: null,
  parkingSpaces: null,
  floor: null,
  totalFloors: null,
  isFurnished: false,
};
const photo = (url: string, order: number, isMain: boolean, alt: string | null = null) => ({ url, alt, order, isMain });

/** A record as read back: what the listing states, over the values these feeds leave at their defaults. */
function expected({ features, pricing, ...stated }: ApiRecord): ApiRecord {
  return {
    status: "AVAILABLE",
    highlight: "STANDARD",
    exclusive: false,
    financing: { acceptsFinancing: false },
    amenities: [],
    photos: [],
    coordinates: { latitude: null, longitude: null },
    ...stated,
    features: { ...noFeatures, ...features },
    pricing: { salePrice: null, rentalPrice: null, condominiumFee: null, iptu: null, ...pricing },
  };
}

describe("a WordPress plugin's feed (PHP: number_format, wpautop, &nbsp;, a warning printed after the document)", () => {
  const feed = importAndRead(dir, "generators/wordpress-plugin.xml");

  test("imports whole: two listings, the repairs said once each, the relative photo dropped", async () => {
    const { summary } = await feed;
    expect(summary).toMatchObject({
      created: 2,
      rejected: 0,
      warnings: { PHOTO_DROPPED: 1, HTML_ENTITY: 1, XML_REPAIRED: 2 },
    });
    expect(summary.warningList.filter((w) => w.code === null).map((w) => [w.kind, w.line])).toEqual([
      ["XML_REPAIRED", 1],
      ["HTML_ENTITY", 12],
      ["XML_REPAIRED", 93],
    ]);
    expect(warningsOf(summary, "1042")).toEqual(["PHOTO_DROPPED Media/Item"]);
  });

  test("1042: a sale in R$ with Brazilian separators, UsageType beside a bare type, the condominium fee as CondominiumFee", async () => {
    expect(content((await feed).records.get("1042")!)).toEqual(
      expected({
        code: "1042",
        title: "Apartamento\u00a03 dormitórios frente mar em Balneário Camboriú",
        description:
          "<p>Apartamento com 3 dormitórios (1 suíte), sacada com churrasqueira e vista para o mar.</p>\n<p>Prédio com piscina e academia.</p>",
        operationType: "SALE",
        propertyType: "Apartamento",
        highlight: "PREMIUM",
        address: {
          street: "Avenida Atlântica",
          number: "3300",
          complement: "Apto 1201",
          neighborhood: "Centro",
          city: "Balneário Camboriú",
          state: "Santa Catarina",
          uf: "SC",
          cep: "88330-027",
          visibility: "NEIGHBORHOOD",
        },
        coordinates: { latitude: -26.9906, longitude: -48.6348 },
        features: {
          totalArea: null,
          builtArea: 118.5,
          bedrooms: 3,
          bathrooms: 2,
          suites: 1,
          parkingSpaces: 2,
          floor: 12,
          totalFloors: 25,
          isFurnished: false,
        },
        amenities: ["Piscina", "Academia", "Churrasqueira"],
        pricing: { salePrice: 1250000, condominiumFee: 980, iptu: 2400 },
        photos: [
          photo(
            "https://www.imoveislitoral.com.br/wp-content/uploads/2025/03/vista%20sacada.jpg",
            1,
            true,
            "Vista da sacada",
          ),
          photo("https://www.imoveislitoral.com.br/wp-content/uploads/2025/03/sala-1024x768.jpg", 2, false, "Sala"),
        ],
      }),
    );
  });

  test("1043: a rental whose rent is in ListPrice, an exempt fee, Térreo, a furnished kitnet", async () => {
    expect(content((await feed).records.get("1043")!)).toEqual(
      expected({
        code: "1043",
        title: "Kitnet mobiliada para alugar no Centro",
        description: "<p>Kitnet mobiliada, pronta para morar.</p>",
        operationType: "RENT",
        propertyType: "Kitnet",
        highlight: "STANDARD",
        address: {
          street: "Rua Hercílio Luz",
          number: "150",
          complement: "Sala 3",
          neighborhood: "Centro",
          city: "Itajaí",
          state: "Santa Catarina",
          uf: "SC",
          cep: "88301-001",
          visibility: "ALL",
        },
        features: { builtArea: 28, bedrooms: 1, bathrooms: 1, parkingSpaces: 0, floor: 0, isFurnished: true },
        amenities: ["Mobiliado"],
        pricing: { rentalPrice: 1400, condominiumFee: 0 },
        photos: [photo("https://www.imoveislitoral.com.br/wp-content/uploads/2025/04/kitnet.jpg", 1, true, "Ambiente")],
      }),
    );
  });

  test("a partner sees 1042 only to its neighbourhood: street, number, complement and coordinates null", async () => {
    const partner = (await readBack((await feed).db, false)).get("1042")!;
    expect(partner.address).toEqual({
      street: null,
      number: null,
      complement: null,
      neighborhood: "Centro",
      city: "Balneário Camboriú",
      state: "Santa Catarina",
      uf: "SC",
      cep: "88330-027",
      visibility: "NEIGHBORHOOD",
    });
    expect(partner.coordinates).toEqual({ latitude: null, longitude: null });
  });
});

describe("an agency site's own script (a template string: Aluguel/Venda, Commercial / Apartment, bare UF, ListingId)", () => {
  const feed = importAndRead(dir, "generators/agency-site.xml");

  test("imports whole without a warning", async () => {
    expect((await feed).summary).toMatchObject({ created: 2, rejected: 0, warnings: {} });
  });

  test("CN-771: sale and rent with both prices, a Commercial / Apartment, YearlyTax, protocol-relative photos, a repeat and a video", async () => {
    expect(content((await feed).records.get("CN-771")!)).toEqual(
      expected({
        code: "CN-771",
        title: "Sala comercial & garagem no Centro",
        description: "Sala ampla.<br>Próxima ao terminal urbano.",
        operationType: "SALE",
        propertyType: "Apartamento",
        highlight: "STANDARD",
        address: {
          street: "Rua do Príncipe",
          number: "330",
          complement: "Sala 804",
          neighborhood: "Centro",
          city: "Joinville",
          state: "Santa Catarina",
          uf: "SC",
          cep: "89201-001",
          visibility: "STREET",
        },
        coordinates: { latitude: -26.304408, longitude: -48.848242 },
        features: { builtArea: 64.2, bathrooms: 1, parkingSpaces: 1, floor: 8 },
        amenities: ["Elevator", "Security 24h"],
        pricing: { salePrice: 450000, rentalPrice: 3500, condominiumFee: 620, iptu: 1850 },
        photos: [
          photo("https://cdn.casanova.com.br/CN-771/1.jpg", 1, true),
          photo("https://cdn.casanova.com.br/CN-771/2.jpg", 2, false),
        ],
      }),
    );
  });

  test("CN-772: a house for sale", async () => {
    expect(content((await feed).records.get("CN-772")!)).toEqual(
      expected({
        code: "CN-772",
        title: "Casa com piscina no Glória",
        description: "Casa térrea com piscina.",
        operationType: "SALE",
        propertyType: "Casa",
        highlight: "STANDARD",
        address: {
          street: "Rua Max Colin",
          number: "1200",
          complement: null,
          neighborhood: "Glória",
          city: "Joinville",
          state: "Santa Catarina",
          uf: "SC",
          cep: "89216-005",
          visibility: "ALL",
        },
        coordinates: { latitude: -26.2869, longitude: -48.868 },
        features: { totalArea: 450, builtArea: 210, bedrooms: 4, bathrooms: 3, suites: 2, parkingSpaces: 3 },
        amenities: ["Pool", "Barbecue Grill"],
        pricing: { salePrice: 890000 },
        photos: [photo("https://cdn.casanova.com.br/CN-772/1.jpg", 1, true)],
      }),
    );
  });

  test("a partner sees CN-771 to its street: number and complement null, coordinates to 3 decimals", async () => {
    const partner = (await readBack((await feed).db, false)).get("CN-771")!;
    expect(partner.address).toMatchObject({
      street: "Rua do Príncipe",
      number: null,
      complement: null,
      visibility: "STREET",
    });
    expect(partner.coordinates).toEqual({ latitude: -26.304, longitude: -48.848 });
  });
});

describe("a Rails serializer's feed (Builder: BigDecimal as 3450000.0, nil as empty elements, true/false)", () => {
  const feed = importAndRead(dir, "generators/rails-serializer.xml");

  test("imports whole without a warning", async () => {
    expect((await feed).summary).toMatchObject({ created: 2, rejected: 0, warnings: {} });
  });

  test("LAR-2291: a penthouse for sale, furnished, shown to its street", async () => {
    const base = "https://cdn.larimobiliaria.com.br/rails/active_storage/blobs/redirect";
    expect(content((await feed).records.get("LAR-2291")!)).toEqual(
      expected({
        code: "LAR-2291",
        title: "Cobertura duplex no Batel",
        description: "Cobertura duplex com terraço, piscina privativa e 4 suítes.",
        operationType: "SALE",
        propertyType: "Cobertura",
        highlight: "SUPER_PREMIUM",
        address: {
          street: "Rua Comendador Araújo",
          number: "880",
          complement: "Cobertura 2101",
          neighborhood: "Batel",
          city: "Curitiba",
          state: "Paraná",
          uf: "PR",
          cep: "80420-000",
          visibility: "STREET",
        },
        coordinates: { latitude: -25.441234, longitude: -49.289876 },
        features: {
          totalArea: null,
          builtArea: 312.75,
          bedrooms: 4,
          bathrooms: 6,
          suites: 4,
          parkingSpaces: 4,
          floor: 21,
          totalFloors: 22,
          isFurnished: true,
        },
        amenities: ["Pool", "Gourmet Area", "Furnished"],
        pricing: { salePrice: 3450000, condominiumFee: 2850.5, iptu: 9800 },
        photos: [
          photo(`${base}/eyJfcmFpbHMiOnsiZGF0YSI6MX19--9a1b/terraco.jpg`, 1, true, "Terraço"),
          photo(`${base}/eyJfcmFpbHMiOnsiZGF0YSI6Mn19--7c2d/living.jpg`, 2, false, "Living"),
        ],
      }),
    );
  });

  test("LAR-2292: a studio to rent, a monthly IPTU made annual, empty elements as null", async () => {
    expect(content((await feed).records.get("LAR-2292")!)).toEqual(
      expected({
        code: "LAR-2292",
        title: "Studio perto da UFPR",
        description: "Studio compacto, ideal para estudantes.",
        operationType: "RENT",
        propertyType: "Studio",
        highlight: "STANDARD",
        address: {
          street: "Rua XV de Novembro",
          number: "1299",
          complement: null,
          neighborhood: "Centro",
          city: "Curitiba",
          state: "Paraná",
          uf: "PR",
          cep: "80060-000",
          visibility: "ALL",
        },
        features: { builtArea: 24, bedrooms: 1, bathrooms: 1, parkingSpaces: 0, floor: 3, totalFloors: 8 },
        pricing: { rentalPrice: 1650, condominiumFee: 310, iptu: 540 },
      }),
    );
  });
});

describe("an ERP's Python exporter (ElementTree in ISO-8859-1: None and True as words, nested types, a CEP without its zero, a code twice)", () => {
  const feed = importAndRead(dir, "generators/erp-python.xml");

  test("the last copy of a code wins; the first copy's unreadable values are its warnings", async () => {
    const { summary } = await feed;
    expect(summary).toMatchObject({ created: 2, rejected: 0 });
    expect(warningsOf(summary, "000318")).toEqual([
      "DUPLICATE_LISTING Listing",
      "PHOTO_DROPPED Media/Item",
      "UNREADABLE_NUMBER Details/PropertyAdministrationFee",
      "UNREADABLE_NUMBER Details/Suites",
      "UNREADABLE_NUMBER Details/UnitFloor",
    ]);
  });

  test("000318: read from Latin-1, Featured True is PREMIUM, a nested Residential/Home, the CEP gets its zero back", async () => {
    expect(content((await feed).records.get("000318")!)).toEqual(
      expected({
        code: "000318",
        title: "CASA 3 QUARTOS - JARDIM PAULISTA",
        description: "Casa térrea, 3 quartos, quintal e edícula.\nAceita financiamento.",
        operationType: "SALE",
        propertyType: "Casa",
        highlight: "PREMIUM",
        address: {
          street: "Rua Estados Unidos",
          number: "1500",
          complement: null,
          neighborhood: "Jardim Paulista",
          city: "São Paulo",
          state: "São Paulo",
          uf: "SP",
          cep: "01426-001",
          visibility: "ALL",
        },
        coordinates: { latitude: -23.5722385, longitude: -46.6660719 },
        features: { totalArea: 300, builtArea: 165, bedrooms: 3, bathrooms: 2, parkingSpaces: 2 },
        amenities: ["QUINTAL", "EDÍCULA"],
        pricing: { salePrice: 769000, iptu: 2140.35 },
        photos: [
          photo("http://fotos.erpimob.com.br/000318/01.JPG", 1, true),
          photo("http://fotos.erpimob.com.br/000318/02.JPG", 2, false),
        ],
      }),
    );
  });

  test("000319: a nested Commercial/LandLot measured in hectares", async () => {
    expect(content((await feed).records.get("000319")!)).toEqual(
      expected({
        code: "000319",
        title: "TERRENO COMERCIAL - RODOVIA",
        description: "Terreno às margens da rodovia.",
        operationType: "SALE",
        propertyType: "Terreno Comercial",
        highlight: "STANDARD",
        address: {
          ...none,
          neighborhood: "Distrito Industrial",
          city: "Campinas",
          state: "São Paulo",
          uf: "SP",
          cep: "13069-000",
          visibility: "ALL",
        },
        features: { totalArea: 15000 },
        pricing: { salePrice: 1200000 },
      }),
    );
  });
});

describe("what every generator's feed gives back through the single-record route", () => {
  test("GET /v1/properties/{id} answers the same record as the list, for the agency and for a partner", async () => {
    const { db, records } = await importAndRead(dir, "generators/agency-site.xml");
    const { apiOver } = await import("./helpers.ts");
    for (const fullAddress of [true, false]) {
      const api = await apiOver(db, { fullAddress });
      try {
        const listed = (await readBack(db, fullAddress)).get("CN-771")!;
        const { status, body } = await api.get(
          `/v1/properties/${records.get("CN-771")!.id}?fields=${Object.keys(listed).join(",")}`,
        );
        expect(status).toBe(200);
        expect(body.data as ApiRecord).toEqual(listed);
      } finally {
        api.close();
      }
    }
  });
});
