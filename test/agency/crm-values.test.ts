// docs/reference/behaviour-extensions.md §16 case by case: fixtures of each kind of value as CRMs write it, imported into a new
// database and read back through the API. A listing is refused only when it cannot be one; every
// other unreadable value is null (free text stays) with a warning naming code, line, element, value.
import { afterAll, describe, expect, test } from "bun:test";
import { type ApiRecord, importAndRead, readBack, warningsOf } from "./crm-helpers.ts";
import { tempDir } from "./helpers.ts";

const dir = tempDir();
afterAll(() => dir.cleanup());

const numbers = importAndRead(dir, "crm/numbers.xml");
const transactions = importAndRead(dir, "crm/transactions.xml");
const types = importAndRead(dir, "crm/property-types.xml");
const addresses = importAndRead(dir, "crm/address.xml");
const texts = importAndRead(dir, "crm/features-photos-text.xml");

async function record(feed: typeof numbers, code: string): Promise<ApiRecord> {
  const found = (await feed).records.get(code);
  if (found === undefined) throw new Error(`${code} was not imported`);
  return found;
}

describe("§16 ListingID: trimmed, at most 100 characters, never blank", () => {
  const MAX = 100;
  const ids = importAndRead(dir, "crm/listing-ids.xml");

  test("the code is stored trimmed (newlines and tabs too), and 100 characters after trimming are accepted", async () => {
    const { records } = await ids;
    const atMost = `L-100-${"x".repeat(MAX - 6)}`;
    expect(atMost).toHaveLength(MAX);
    expect(records.get("L-TRIMMED")!.title).toBe("Código com espaços em volta");
    expect(records.get(atMost)!.title).toBe("Código de 100 caracteres");
    expect(records.get(atMost.replace("L-100-", "L-PAD-"))!.title).toBe("100 caracteres depois de aparado");
    expect([...records.keys()].sort()).toEqual(["L-TRIMMED", atMost, atMost.replace("L-100-", "L-PAD-")].sort());
  });

  test("101 characters are refused, named by the first 100; a blank or empty ListingID is refused as missing", async () => {
    const { summary } = await ids;
    expect(summary.rejections).toEqual([
      { code: `L-101-${"x".repeat(MAX - 6)}…`, reason: `line 10: ListingID: longer than ${MAX} characters` },
      { code: null, reason: "line 11: ListingID: is required" },
      { code: null, reason: "line 13: ListingID: is required" },
    ]);
    expect(summary).toMatchObject({ created: 3, rejected: 3, warnings: {} });
  });
});

describe("§16 Numbers: every style of number reads the same", () => {
  test("Brazilian separators, R$, m², count words, Térreo, comma coordinates, a CEP that lost its zero", async () => {
    const r = await record(numbers, "N-BR");
    expect(r.pricing).toEqual({ salePrice: 1234567.89, rentalPrice: null, condominiumFee: 1200.5, iptu: 3600 });
    expect(r.features).toEqual({
      totalArea: 1200,
      builtArea: 92.5,
      bedrooms: 3,
      bathrooms: 2,
      suites: 1,
      parkingSpaces: 2,
      floor: 0,
      totalFloors: 12,
      isFurnished: false,
    });
    expect(r.address.cep).toBe("01310-100");
    expect(r.coordinates).toEqual({ latitude: -23.5989, longitude: -46.6342 });
    expect(warningsOf((await numbers).summary, "N-BR")).toEqual([]);
  });

  test("international separators and currency attributes in any spelling give the same values", async () => {
    const r = await record(numbers, "N-INTL");
    expect(r.pricing).toEqual({ salePrice: 1234567.89, rentalPrice: null, condominiumFee: 1200.5, iptu: 3600 });
    expect(r.features).toMatchObject({ totalArea: 1200, builtArea: 92.5, floor: 5 });
    expect(r.address.cep).toBe("01310-100");
    expect(r.coordinates).toEqual({ latitude: -23.5989, longitude: -46.6342 });
    expect(warningsOf((await numbers).summary, "N-INTL")).toEqual([]);
  });

  test("floors: 5o andar, Subsolo, T, 7°", async () => {
    expect((await record(numbers, "N-FLOORS")).features).toMatchObject({ floor: 5, totalFloors: 10 });
    expect((await record(numbers, "N-FLOORS")).pricing.rentalPrice).toBe(2500);
    expect((await record(numbers, "N-BASEMENT")).features.floor).toBe(-1);
    expect((await record(numbers, "N-GROUND")).features.floor).toBe(0);
    expect((await record(numbers, "N-DEGREE")).features.floor).toBe(7);
  });

  test("a price of 0 is on request (null, no warning); a fee of 0 is an exemption; 0,0 coordinates and 00000000 are no values", async () => {
    const r = await record(numbers, "N-ZERO");
    expect(r.operationType).toBe("SALE");
    expect(r.pricing).toEqual({ salePrice: null, rentalPrice: null, condominiumFee: 0, iptu: null });
    expect(r.features.totalArea).toBeNull();
    expect(r.coordinates).toEqual({ latitude: null, longitude: null });
    expect(r.address.cep).toBeNull();
    expect(warningsOf((await numbers).summary, "N-ZERO")).toEqual(["INVALID_CEP Location/PostalCode"]);
  });

  test("values that cannot be read are null, each with its warning; the listing is imported", async () => {
    const r = await record(numbers, "N-BAD");
    expect(r.operationType).toBe("RENT");
    expect(r.pricing).toEqual({ salePrice: null, rentalPrice: null, condominiumFee: null, iptu: null });
    expect(r.features).toMatchObject({ builtArea: null, bedrooms: null, bathrooms: null, floor: null });
    expect(r.coordinates).toEqual({ latitude: null, longitude: null });
    expect(r.address.cep).toBeNull();
    const { summary } = await numbers;
    expect(warningsOf(summary, "N-BAD")).toEqual([
      "INVALID_CEP Location/PostalCode",
      "OUT_OF_RANGE Details/RentalPrice",
      "OUT_OF_RANGE Location/Latitude",
      "UNREADABLE_NUMBER Details/Bathrooms",
      "UNREADABLE_NUMBER Details/Bedrooms",
      "UNREADABLE_NUMBER Details/ListPrice",
      "UNREADABLE_NUMBER Details/LivingArea",
      "UNREADABLE_NUMBER Details/UnitFloor",
    ]);
    const bedrooms = summary.warningList.find((w) => w.code === "N-BAD" && w.element === "Details/Bedrooms")!;
    expect(bedrooms).toEqual({
      kind: "UNREADABLE_NUMBER",
      code: "N-BAD",
      line: expect.any(Number),
      element: "Details/Bedrooms",
      value: "dois",
      message: "not a count",
    });
  });
});

describe("§16 Units", () => {
  test("square metres in any spelling, hectares; an unknown unit is null with a warning", async () => {
    expect((await record(numbers, "N-UNITS")).features).toMatchObject({ builtArea: 80, totalArea: 25000 });
    expect((await record(numbers, "N-UNITS-2")).features).toMatchObject({ builtArea: 75, totalArea: null });
    expect(warningsOf((await numbers).summary, "N-UNITS-2")).toEqual(["UNKNOWN_UNIT Details/LotArea@unit"]);
  });

  test("the alqueire is the paulista, the mineiro in MG, GO and RJ, the baiano in BA, or as named", async () => {
    expect((await record(numbers, "N-ALQ-SP")).features.totalArea).toBe(48400);
    expect((await record(numbers, "N-ALQ-MG")).features.totalArea).toBe(48400);
    expect((await record(numbers, "N-ALQ-BA")).features.totalArea).toBe(96800);
    expect((await record(numbers, "N-ALQ-NAMED")).features).toMatchObject({ totalArea: 48400, builtArea: 48400 });
  });

  test("BRL in any spelling; another currency makes that price null", async () => {
    const r = await record(numbers, "N-CURRENCY");
    expect(r.operationType).toBe("RENT"); // sale and rent, but only the rent is usable
    expect(r.pricing).toEqual({ salePrice: null, rentalPrice: 3000, condominiumFee: null, iptu: null });
    expect(warningsOf((await numbers).summary, "N-CURRENCY")).toEqual([
      "FOREIGN_CURRENCY Details/ListPrice@currency",
      "FOREIGN_CURRENCY Details/PropertyAdministrationFee@currency",
    ]);
  });
});

describe("§16 TransactionType and prices", () => {
  const cases: [string, string, Partial<Record<"salePrice" | "rentalPrice", number | null>>][] = [
    ["T-VENDA", "SALE", { salePrice: 500000 }],
    ["T-ALUGUEL", "RENT", { rentalPrice: 2500 }],
    ["T-LOCACAO", "RENT", { rentalPrice: 3000 }],
    ["T-SALE", "SALE", { salePrice: 400000 }],
    ["T-RENT", "RENT", { rentalPrice: 1500 }],
    ["T-RENT-IN-LISTPRICE", "RENT", { salePrice: null, rentalPrice: 2800 }],
    ["T-BOTH-RENT-ONLY", "RENT", { salePrice: null, rentalPrice: 4000 }],
    ["T-VENDA-LOCACAO", "SALE", { salePrice: 900000, rentalPrice: 4500 }],
    ["T-SALEANDRENT", "SALE", { salePrice: 700000, rentalPrice: 3500 }],
    ["T-FOR-SALE-FOR-RENT", "SALE", { salePrice: 600000, rentalPrice: 3000 }],
    ["T-VENDA-E-ALUGUEL", "SALE", { salePrice: 650000, rentalPrice: 3200 }],
    ["T-TEMPORADA", "SEASONAL", { rentalPrice: 9000 }],
    ["T-SEASONAL", "SEASONAL", { rentalPrice: 6000 }],
    ["T-WEEKLY", "SEASONAL", { rentalPrice: 3000 }],
    ["T-NO-TYPE-SALE", "SALE", { salePrice: 300000 }],
    ["T-NO-TYPE-RENT", "RENT", { rentalPrice: 1800 }],
    ["T-UNKNOWN-TYPE", "SALE", { salePrice: 250000 }],
    ["T-YEARLY-RENT", "RENT", { rentalPrice: 2000 }],
    ["T-BAD-PERIOD", "RENT", { salePrice: 200000, rentalPrice: null }],
  ];
  for (const [code, operationType, pricing] of cases) {
    test(`${code}: ${operationType} ${JSON.stringify(pricing)}`, async () => {
      const r = await record(transactions, code);
      expect(r.operationType).toBe(operationType);
      expect(r.pricing).toMatchObject(pricing);
    });
  }

  test("only a listing with no deal and no price to tell one is refused; an unknown deal told from its price is a warning", async () => {
    const { summary } = await transactions;
    expect(summary.rejections).toEqual([
      {
        code: "T-REFUSED",
        reason: expect.stringMatching(
          /^line \d+: TransactionType: is required when neither ListPrice nor RentalPrice tells sale from rent$/,
        ),
      },
    ]);
    expect(warningsOf(summary, "T-UNKNOWN-TYPE")).toEqual(["UNKNOWN_TRANSACTION_TYPE TransactionType"]);
    expect(warningsOf(summary, "T-BAD-PERIOD")).toEqual(["UNKNOWN_PERIOD Details/RentalPrice@period"]);
    expect(summary.created).toBe(23);
  });

  test("periods: Mensal is monthly, a yearly fee is divided by 12, a monthly IPTU multiplied by 12", async () => {
    expect((await record(transactions, "T-PERIODS")).pricing).toEqual({
      salePrice: null,
      rentalPrice: 2000,
      condominiumFee: 500,
      iptu: 1800,
    });
  });

  test("CondominiumFee, PropertyTax and Location/GeoLocation are read like their VRSync names; Iptu wins, then PropertyTax", async () => {
    const aliases = await record(transactions, "T-ALIASES");
    expect(aliases.pricing).toEqual({ salePrice: 800000, rentalPrice: null, condominiumFee: 700, iptu: 1500 });
    expect(aliases.coordinates).toEqual({ latitude: -22.9068, longitude: -43.1729 });
    expect((await record(transactions, "T-TAX-ORDER")).pricing.iptu).toBe(1000);
    expect((await record(transactions, "T-TAX-ORDER-2")).pricing.iptu).toBe(2000);
  });
});

describe("§16 PropertyType: never refuses a listing", () => {
  const cases: [string, string][] = [
    ["PT-NOSPACE", "Apartamento"],
    ["PT-SPACES", "Casa"],
    ["PT-UPPER", "Apartamento"],
    ["PT-USAGETYPE", "Apartamento"],
    ["PT-USAGETYPE-COMMERCIAL", "Terreno Comercial"],
    ["PT-COMMERCIAL-APARTMENT", "Apartamento"],
    ["PT-NESTED", "Apartamento"],
    ["PT-NESTED-COMMERCIAL", "Terreno Comercial"],
    ["PT-NESTED-TEXT", "Sala Comercial"],
    ["PT-PORTUGUESE", "Casa de Condomínio"],
    ["PT-PORTUGUESE-2", "Galpão"],
    ["PT-MISSPELLED", "Apartamento"],
    ["PT-SYNONYM", "Kitnet"],
  ];
  for (const [code, type] of cases) {
    test(`${code} → ${type}`, async () => {
      expect((await record(types, code)).propertyType).toBe(type);
      expect(warningsOf((await types).summary, code)).toEqual([]);
    });
  }

  test("anything else is stored trimmed, as written, with a warning", async () => {
    const { summary } = await types;
    expect((await record(types, "PT-UNKNOWN")).propertyType).toBe("Pousada");
    expect((await record(types, "PT-UNKNOWN-PAIR")).propertyType).toBe("Residential / Castle");
    expect((await record(types, "PT-UNKNOWN-BARE")).propertyType).toBe("Igloo");
    for (const code of ["PT-UNKNOWN", "PT-UNKNOWN-PAIR", "PT-UNKNOWN-BARE"]) {
      expect(warningsOf(summary, code)).toEqual(["UNKNOWN_PROPERTY_TYPE Details/PropertyType"]);
    }
    expect(summary.rejected).toBe(0);
  });
});

describe("§16 State, Country and displayAddress (stored values, as the agency's own client reads them)", () => {
  test("displayAddress in any case, absent = ALL; an unknown value hides the most, with a warning", async () => {
    const visibility = async (code: string) => (await record(addresses, code)).address.visibility;
    expect(await visibility("A-ALL")).toBe("ALL");
    expect(await visibility("A-STREET")).toBe("STREET");
    expect(await visibility("A-NEIGHBORHOOD")).toBe("NEIGHBORHOOD");
    expect(await visibility("A-ABSENT")).toBe("ALL");
    expect(await visibility("A-UNKNOWN-DISPLAY")).toBe("NEIGHBORHOOD");
    expect((await addresses).summary.warningList.find((w) => w.code === "A-UNKNOWN-DISPLAY")).toMatchObject({
      kind: "UNKNOWN_VALUE",
      element: "Location@displayAddress",
      value: "Partial",
    });
  });

  test("the stored address is whole whatever it hides", async () => {
    expect((await record(addresses, "A-NEIGHBORHOOD")).address).toEqual({
      street: "Rua Coronel Quirino",
      number: "1000",
      complement: null,
      neighborhood: "Cambuí",
      city: "Campinas",
      state: "São Paulo",
      uf: "SP",
      cep: "13025-001",
      visibility: "NEIGHBORHOOD",
    });
    expect((await record(addresses, "A-NEIGHBORHOOD")).coordinates).toEqual({
      latitude: -22.8935,
      longitude: -47.0515,
    });
  });

  test("the abbreviation attribute in any case, a bare UF, `Name - UF`, a name alone", async () => {
    const state = async (code: string) => {
      const { address } = await record(addresses, code);
      return [address.state, address.uf];
    };
    expect(await state("A-ALL")).toEqual(["São Paulo", "SP"]);
    expect(await state("A-STREET")).toEqual(["Rio de Janeiro", "RJ"]);
    expect(await state("A-NEIGHBORHOOD")).toEqual(["São Paulo", "SP"]);
    expect(await state("A-ABSENT")).toEqual(["Minas Gerais", "MG"]);
  });

  test("`Sao Paulo - SP` is São Paulo, SP, for the agency and for partners alike, with no warning; its UF is the one the listing's other values use", async () => {
    const { db, summary } = await addresses;
    const partner = (await readBack(db, false)).get("A-NAME-UF")!;
    expect(partner.address).toEqual({
      street: "Avenida Ana Costa",
      number: null,
      complement: null,
      neighborhood: "Gonzaga",
      city: "Santos",
      state: "São Paulo",
      uf: "SP",
      cep: "11060-002",
      visibility: "STREET",
    });
    expect(partner.pricing.rentalPrice).toBe(3200);
    expect((await record(addresses, "A-NAME-UF")).address).toMatchObject({
      state: "São Paulo",
      uf: "SP",
      number: "400",
    });
    expect(warningsOf(summary, "A-NAME-UF")).toEqual([]);
    // The name says RJ, the abbreviation SP: the abbreviation wins.
    expect((await record(addresses, "A-NAME-UF-MISMATCH")).address).toMatchObject({ state: "São Paulo", uf: "SP" });
    expect(warningsOf(summary, "A-NAME-UF-MISMATCH")).toEqual(["STATE_MISMATCH Location/State"]);
    // Minas Gerais - MG: the alqueire is the mineiro, 48,400 m².
    expect((await record(addresses, "A-NAME-UF-ALQUEIRE")).features.totalArea).toBe(2 * 48_400);
    expect(warningsOf(summary, "A-NAME-UF-ALQUEIRE")).toEqual([]);
  });

  test("name and abbreviation disagree: the abbreviation wins (warning); a country other than Brazil and an unknown state are warnings", async () => {
    const { summary } = await addresses;
    expect((await record(addresses, "A-MISMATCH")).address).toMatchObject({ state: "Rio de Janeiro", uf: "RJ" });
    expect(warningsOf(summary, "A-MISMATCH")).toEqual(["STATE_MISMATCH Location/State"]);
    expect((await record(addresses, "A-FOREIGN")).address).toMatchObject({ state: "Lisboa", uf: null, city: "Lisboa" });
    expect(warningsOf(summary, "A-FOREIGN")).toEqual([
      "FOREIGN_COUNTRY Location/Country",
      "UNKNOWN_STATE Location/State",
    ]);
    for (const code of ["A-ALL", "A-STREET", "A-NEIGHBORHOOD", "A-ABSENT"])
      expect(warningsOf(summary, code)).toEqual([]);
  });
});

describe("§16 Amenities", () => {
  test("Features/Feature values in feed order, repeats and blanks dropped; Furnished still sets isFurnished", async () => {
    const r = await record(texts, "F-AMENITIES");
    expect(r.amenities).toEqual(["Pool", "Gym", "Furnished", "Churrasqueira"]);
    expect(r.features.isFurnished).toBe(true);
    expect(await record(texts, "F-MOBILIADO")).toMatchObject({
      amenities: ["Mobiliado"],
      features: { isFurnished: true },
    });
    expect(await record(texts, "F-NONE")).toMatchObject({ amenities: [], features: { isFurnished: false } });
  });
});

describe("§16 Photos", () => {
  test("any spelling of image, protocol-relative and www. URLs, spaces encoded, repeats collapsed; a bad item drops that photo", async () => {
    const r = await record(texts, "P-MEDIA");
    const host = "https://img.exemplo.com.br/p";
    expect(r.photos.map(({ id: _, ...photo }: ApiRecord) => photo)).toEqual([
      { url: `${host}/1.jpg`, alt: "Fachada", order: 1, isMain: true },
      { url: `${host}/2.jpg`, alt: null, order: 2, isMain: false },
      { url: `${host}/3.jpg`, alt: null, order: 3, isMain: false },
      { url: "https://cdn.exemplo.com.br/p/4.jpg", alt: null, order: 4, isMain: false },
      { url: "https://www.exemplo.com.br/p/5.jpg", alt: null, order: 5, isMain: false },
      { url: `${host}/6%20sala%20de%20estar.jpg`, alt: null, order: 6, isMain: false },
    ]);
    const dropped = (await texts).summary.warningList.filter((w) => w.code === "P-MEDIA");
    expect(dropped.map((w) => [w.kind, w.value])).toEqual([
      ["PHOTO_DROPPED", "/uploads/p/7.jpg"],
      ["PHOTO_DROPPED", ""],
      ["PHOTO_DROPPED", "ftp://img.exemplo.com.br/p/8.jpg"],
    ]);
  });

  test("primary in any case (yes, sim, 1, true)", async () => {
    expect((await record(texts, "P-PRIMARY")).photos.map((p: ApiRecord) => p.isMain)).toEqual([false, true]);
  });
});

describe("§16 Text", () => {
  test("an escaped CDATA wrapper is unwrapped; control characters are removed; each with a warning", async () => {
    expect(await record(texts, "X-CDATA")).toMatchObject({
      title: "Apartamento & vista para o mar",
      description: "Linha 1<br>Linha 2",
    });
    expect(await record(texts, "X-CONTROL")).toMatchObject({
      title: "Título com controle",
      description: "Texto com caractere de controle no meio.",
    });
    const { summary } = await texts;
    expect(warningsOf(summary, "X-CDATA")).toEqual(["TEXT_CLEANED Details/Description", "TEXT_CLEANED Title"]);
    expect(warningsOf(summary, "X-CONTROL")).toEqual(["TEXT_CLEANED Details/Description", "TEXT_CLEANED Title"]);
  });
});

describe("§16 Duplicates: the last copy of a code that can be imported wins", () => {
  test("each other copy is a warning with its line; a code whose every copy is refused is one rejection; codes compare exactly", async () => {
    const { summary, records } = await importAndRead(dir, "crm/duplicates.xml");
    expect(summary).toMatchObject({ created: 4, rejected: 1, warnings: { DUPLICATE_LISTING: 4 } });
    expect(records.get("D-LAST-WINS")!.title).toBe("Segunda cópia");
    expect(records.get("D-KEEP-VALID")!.title).toBe("Cópia válida");
    expect(records.get("D-REPLACE-REFUSED")!.title).toBe("Cópia válida depois da recusada");
    expect(records.get("d-last-wins")!.title).toBe("Outro código: códigos comparam exatamente");
    expect(records.has("D-ALL-REFUSED")).toBe(false);
    expect(summary.rejections).toEqual([
      { code: "D-ALL-REFUSED", reason: expect.stringMatching(/^line 12: TransactionType: is required/) },
    ]);
    const duplicates = summary.warningList
      .filter((w) => w.kind === "DUPLICATE_LISTING")
      .map((w) => [w.code, w.line, w.message]);
    expect(duplicates).toEqual([
      ["D-LAST-WINS", 5, "ListingID D-LAST-WINS appears again at line 9: the copy at line 9 is imported"],
      [
        "D-REPLACE-REFUSED",
        7,
        "ListingID D-REPLACE-REFUSED appears again at line 11: this copy was refused (Title: is required); the copy at line 11 is imported",
      ],
      [
        "D-ALL-REFUSED",
        8,
        "ListingID D-ALL-REFUSED appears again at line 12: this copy was refused (Title: is required); the copy at line 12 is refused too and reported",
      ],
      [
        "D-KEEP-VALID",
        10,
        "ListingID D-KEEP-VALID appears again: this copy was refused (Title: is required); the copy at line 6 is imported",
      ],
    ]);
  });
});

describe("--strict keeps the old exactness", () => {
  test("a listing with any warning is refused, every warning in its reason; clean listings still import", async () => {
    const { summary, records } = await importAndRead(dir, "crm/numbers.xml", { strict: true });
    expect(records.has("N-BR")).toBe(true);
    expect(records.has("N-BAD")).toBe(false);
    const bad = summary.rejections.find((r) => r.code === "N-BAD")!;
    expect(bad.reason).toContain('Details/Bedrooms: not a count (got "dois")');
    expect(bad.reason).toContain('Location/PostalCode: not a CEP of 8 digits (got "123")');
    expect(summary.warningList).toEqual([]);
  });
});
