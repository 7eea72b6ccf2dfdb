// The value-reading layer (src/formats/values), reader by reader: CRMs' spellings in, the API's
// values out, and what it cannot read named as a problem of the right kind.
import { describe, expect, test } from "bun:test";
import { readCep, readState } from "../../src/formats/values/address.ts";
import {
  parseDecimal,
  readArea,
  readCoordinate,
  readCount,
  readFloor,
  readMoney,
} from "../../src/formats/values/numbers.ts";
import { readPhotoUrl } from "../../src/formats/values/photos.ts";
import { readPropertyType, vrsyncPropertyType } from "../../src/formats/values/property-type.ts";
import { readText } from "../../src/formats/values/text.ts";
import { areaFactor, feePeriod, rentPeriod, taxPeriod } from "../../src/formats/values/units.ts";
import {
  type Deals,
  dealsOf,
  isBrl,
  isPhotoMedium,
  isPrimary,
  readBoolean,
  readStatus,
  readTier,
  readVisibility,
} from "../../src/formats/values/vocabularies.ts";

describe("numbers: separators", () => {
  const cases: [string, number | null][] = [
    ["350000", 350000],
    ["350.000", 350000],
    ["1.234.567", 1234567],
    ["350.000,00", 350000],
    ["1.234,56", 1234.56],
    ["1,234.56", 1234.56],
    ["1,234,567.89", 1234567.89],
    ["1,5", 1.5],
    ["1,50", 1.5],
    ["1,500", 1500],
    ["12,5000", 125000],
    ["1.5", 1.5],
    ["1234.5", 1234.5],
    ["1.23.4", null],
    ["1,2.3,4", null],
    ["", null],
    ["abc", null],
    ["-2", -2],
    ["+3", 3],
    [".5", 0.5],
  ];
  for (const [text, value] of cases)
    test(`${JSON.stringify(text)} → ${value}`, () => expect(parseDecimal(text)).toBe(value));

  test("coordinates take a single . or , as the decimal mark", () => {
    expect(readCoordinate("-23,5989").value).toBe(-23.5989);
    expect(readCoordinate("-46.633.309").problem?.kind).toBe("UNREADABLE_NUMBER");
    expect(readCoordinate("-23.5989°").value).toBe(-23.5989);
  });
});

describe("numbers: money, areas, counts, floors", () => {
  test("money: currency signs and words, spaces; 0 on request; negative and foreign are problems", () => {
    expect(readMoney("R$ 1.234,56").value).toBe(1234.56);
    expect(readMoney("BRL\u00a0350.000").value).toBe(350000);
    expect(readMoney("350000 reais").value).toBe(350000);
    expect(readMoney("1234.567").value).toBe(1234.57);
    expect(readMoney("0")).toEqual({ value: null });
    expect(readMoney("0", false)).toEqual({ value: 0 });
    expect(readMoney("-1").problem?.kind).toBe("OUT_OF_RANGE");
    expect(readMoney("US$ 100").problem?.kind).toBe("FOREIGN_CURRENCY");
    expect(readMoney("sob consulta").problem?.kind).toBe("UNREADABLE_NUMBER");
    expect(readMoney("1e15").problem?.kind).toBe("UNREADABLE_NUMBER");
  });

  test("areas: m² and m2 ignored, 0 is not informed", () => {
    expect(readArea("120 m²").value).toBe(120);
    expect(readArea("92,5m2").value).toBe(92.5);
    expect(readArea("0")).toEqual({ value: null });
    expect(readArea("-5").problem?.kind).toBe("OUT_OF_RANGE");
  });

  test("counts: 2.0 → 2, 3+ → 3, count words ignored; fractions and words alone are problems", () => {
    expect(readCount("2.0").value).toBe(2);
    expect(readCount("3+").value).toBe(3);
    expect(readCount("2 vagas").value).toBe(2);
    expect(readCount("3 dormitórios").value).toBe(3);
    expect(readCount("2,5").problem?.message).toBe("not a whole number");
    expect(readCount("dois").problem?.kind).toBe("UNREADABLE_NUMBER");
    expect(readCount("2 ou 3").problem?.kind).toBe("UNREADABLE_NUMBER");
  });

  test("floors: Térreo/T → 0, Subsolo → -1, ordinals and andar", () => {
    const floors: [string, number][] = [
      ["Térreo", 0],
      ["terreo", 0],
      ["T", 0],
      ["Subsolo", -1],
      ["2º subsolo", -2],
      ["5º", 5],
      ["5°", 5],
      ["5o andar", 5],
      ["5ª", 5],
      ["12º andar", 12],
      ["-1", -1],
      ["3.0", 3],
    ];
    for (const [text, floor] of floors) expect([text, readFloor(text).value]).toEqual([text, floor]);
    expect(readFloor("Cobertura").problem?.kind).toBe("UNREADABLE_NUMBER");
  });
});

describe("units and periods", () => {
  test("square metres in any spelling, hectares, alqueires by state or by name; unknown units are problems", () => {
    for (const unit of [
      "square metres",
      "Square Meters",
      "square meter",
      "meter square",
      "SQM",
      "m2",
      "m²",
      "metros quadrados",
      null,
    ]) {
      expect([unit, areaFactor(unit, null).value]).toEqual([unit, 1]);
    }
    expect(areaFactor("ha", null).value).toBe(10_000);
    expect(areaFactor("Hectares", null).value).toBe(10_000);
    expect(areaFactor("alqueire", null).value).toBe(24_200);
    for (const uf of ["MG", "GO", "RJ"]) expect(areaFactor("alqueire", uf).value).toBe(48_400);
    expect(areaFactor("alqueire", "BA").value).toBe(96_800);
    expect(areaFactor("Alqueire Paulista", "MG").value).toBe(24_200);
    expect(areaFactor("alqueire mineiro", "SP").value).toBe(48_400);
    expect(areaFactor("alqueire baiano", null).value).toBe(96_800);
    expect(areaFactor("acres", null).problem?.kind).toBe("UNKNOWN_UNIT");
  });

  test("rent periods → monthly (by the day or week: a holiday let); fee → monthly; IPTU → annual", () => {
    for (const period of ["Monthly", "Month", "Mensal", null])
      expect(rentPeriod(period).value).toEqual({ factor: 1, seasonal: false });
    expect(rentPeriod("Daily").value).toEqual({ factor: 30, seasonal: true });
    expect(rentPeriod("Diária").value).toEqual({ factor: 30, seasonal: true });
    expect(rentPeriod("Weekly").value?.seasonal).toBe(true);
    expect(rentPeriod("Yearly").value?.factor).toBeCloseTo(1 / 12);
    expect(rentPeriod("Fortnightly").problem?.kind).toBe("UNKNOWN_PERIOD");
    expect(feePeriod("Yearly").value?.factor).toBeCloseTo(1 / 12);
    expect(feePeriod("Daily").problem?.kind).toBe("UNKNOWN_PERIOD");
    expect(taxPeriod(null).value?.factor).toBe(1);
    expect(taxPeriod("Monthly").value?.factor).toBe(12);
  });
});

describe("vocabularies", () => {
  test("every spelling of sale, rent, both and seasonal", () => {
    const sale = { sale: true, rent: false, seasonal: false };
    const rent = { sale: false, rent: true, seasonal: false };
    const both = { sale: true, rent: true, seasonal: false };
    const seasonal = { sale: false, rent: false, seasonal: true };
    const cases: [string, Deals | null][] = [
      ["For Sale", sale],
      ["Sale", sale],
      ["VENDA", sale],
      ["For Rent", rent],
      ["rent", rent],
      ["Aluguel", rent],
      ["Locação", rent],
      ["locacao", rent],
      ["Sale/Rent", both],
      ["For Sale/Rent", both],
      ["For Sale / For Rent", both],
      ["SaleAndRent", both],
      ["Venda/Locação", both],
      ["Venda e Aluguel", both],
      ["Sale & Rent", both],
      ["Seasonal", seasonal],
      ["Temporada", seasonal],
      ["Permuta", null],
      ["", null],
      ["Sale/Permuta", null],
    ];
    for (const [text, deals] of cases) expect([text, dealsOf(text)]).toEqual([text, deals]);
  });

  test("BRL in any spelling; booleans; tiers; statuses; address visibility; photo kinds", () => {
    for (const currency of ["BRL", "brl", "R$", "Real", "reais", null]) expect(isBrl(currency)).toBe(true);
    expect(isBrl("USD")).toBe(false);
    for (const yes of ["true", "True", "1", "yes", "Sim", "S"]) expect(readBoolean(yes).value).toBe(true);
    for (const no of ["false", "0", "no", "Não", "N"]) expect(readBoolean(no).value).toBe(false);
    expect(readBoolean("talvez").problem?.kind).toBe("UNKNOWN_VALUE");
    expect(readTier("super premium").value).toBe("SUPER_PREMIUM");
    expect(readTier("Destaque").value).toBe("PREMIUM");
    expect(readTier("Gold")).toMatchObject({ value: "STANDARD", problem: { kind: "UNKNOWN_VALUE" } });
    expect(readStatus("sold").value).toBe("SOLD");
    expect(readStatus("vendido")).toMatchObject({ value: "AVAILABLE", problem: { kind: "UNKNOWN_VALUE" } });
    expect(readVisibility("all").value).toBe("ALL");
    expect(readVisibility("Street").value).toBe("STREET");
    expect(readVisibility("bairro").value).toBe("NEIGHBORHOOD");
    expect(readVisibility("Partial")).toMatchObject({ value: "NEIGHBORHOOD", problem: { kind: "UNKNOWN_VALUE" } });
    for (const medium of ["image", "IMAGE", "Photo", "foto", "imagem", null]) expect(isPhotoMedium(medium)).toBe(true);
    expect(isPhotoMedium("video")).toBe(false);
    for (const primary of ["true", "TRUE", "1", "yes", "sim"]) expect(isPrimary(primary)).toBe(true);
    expect(isPrimary(null)).toBe(false);
  });
});

describe("property types", () => {
  test("known forms map to the table; anything else is kept trimmed, as written", () => {
    const read = (text: string, usage: string | null = null) => readPropertyType({ text, usage });
    expect(read("Residential / Apartment").value).toBe("Apartamento");
    expect(read("Residential/Land Lot").value).toBe("Terreno");
    expect(read("Commercial / Land Lot").value).toBe("Terreno Comercial");
    expect(read("Land Lot", "Comercial").value).toBe("Terreno Comercial");
    expect(read("LandLot").value).toBe("Terreno");
    expect(read("Appartment").value).toBe("Apartamento");
    expect(read("Residencial / Casa").value).toBe("Casa");
    expect(read("Sobrado").value).toBe("Sobrado");
    expect(read("  Flat  ").value).toBe("Flat");
    expect(read(" Pousada   de   Charme ")).toMatchObject({
      value: "Pousada de Charme",
      problem: { kind: "UNKNOWN_PROPERTY_TYPE" },
    });
  });

  test("every name of the table reads back from its VRSync type (an export re-imports to the same type)", () => {
    for (const name of ["Apartamento", "Casa de Condomínio", "Terreno Comercial", "Prédio Residencial", "Chácara"]) {
      expect(readPropertyType({ text: vrsyncPropertyType(name)!, usage: null }).value).toBe(name);
    }
  });
});

describe("addresses", () => {
  test("CEPs from their digits: 7 get their zero back; 00000000 and other lengths are problems", () => {
    expect(readCep("01310-100").value).toBe("01310-100");
    expect(readCep("1310100").value).toBe("01310-100");
    expect(readCep("01.310-100").value).toBe("01310-100");
    expect(readCep("00000000").problem?.kind).toBe("INVALID_CEP");
    expect(readCep("123").problem?.kind).toBe("INVALID_CEP");
  });

  test("states: abbreviation, bare UF, name, `Name - UF`; disagreement keeps the abbreviation", () => {
    expect(readState("São Paulo", "sp")).toEqual({ state: "São Paulo", uf: "SP" });
    expect(readState("SP", null)).toEqual({ state: "São Paulo", uf: "SP" });
    expect(readState("Sao Paulo", null)).toEqual({ state: "São Paulo", uf: "SP" });
    expect(readState("Sao Paulo - SP", null)).toEqual({ state: "São Paulo", uf: "SP" });
    expect(readState("Rio de Janeiro/RJ", null)).toEqual({ state: "Rio de Janeiro", uf: "RJ" });
    expect(readState("São Paulo", "RJ")).toMatchObject({
      state: "Rio de Janeiro",
      uf: "RJ",
      problem: { kind: "STATE_MISMATCH" },
    });
    expect(readState("Minas Gerais", "XX")).toMatchObject({
      state: "Minas Gerais",
      uf: "MG",
      problem: { kind: "UNKNOWN_STATE" },
    });
    expect(readState("Lisboa", null)).toMatchObject({ state: "Lisboa", uf: null, problem: { kind: "UNKNOWN_STATE" } });
    expect(readState(null, null)).toEqual({ state: null, uf: null });
  });
});

describe("photos and text", () => {
  test("photo URLs: protocol-relative and www. made https, spaces encoded; the rest dropped", () => {
    expect(readPhotoUrl(" https://a.com/1.jpg ").value).toBe("https://a.com/1.jpg");
    expect(readPhotoUrl("//a.com/1.jpg").value).toBe("https://a.com/1.jpg");
    expect(readPhotoUrl("WWW.a.com/1.jpg").value).toBe("https://WWW.a.com/1.jpg");
    expect(readPhotoUrl("http://a.com/foto 1.jpg").value).toBe("http://a.com/foto%201.jpg");
    expect(readPhotoUrl("https://a.com/ação.jpg").value).toBe("https://a.com/ação.jpg");
    for (const bad of [
      "",
      "fotos/1.jpg",
      "/fotos/1.jpg",
      "ftp://a.com/1.jpg",
      "javascript:alert(1)",
      `https://a.com/${"x".repeat(2100)}`,
    ]) {
      expect([bad.slice(0, 30), readPhotoUrl(bad).problem?.kind]).toEqual([bad.slice(0, 30), "PHOTO_DROPPED"]);
    }
  });

  test("text: trimmed, an escaped CDATA wrapper unwrapped, controls removed, overlong cut", () => {
    expect(readText("  Casa  ", 500)).toEqual({ value: "Casa" });
    expect(readText("   ", 500)).toEqual({ value: null });
    expect(readText("<![CDATA[Casa & jardim]]>", 500)).toMatchObject({
      value: "Casa & jardim",
      problem: { kind: "TEXT_CLEANED" },
    });
    expect(readText("Ca\u0007sa\u0085", 500)).toMatchObject({ value: "Casa", problem: { kind: "TEXT_CLEANED" } });
    expect(readText("linha 1\n\tlinha 2", 500)).toEqual({ value: "linha 1\n\tlinha 2" });
    expect(readText("x".repeat(600), 500)).toMatchObject({
      value: "x".repeat(500),
      problem: { kind: "TEXT_TRUNCATED" },
    });
  });
});
