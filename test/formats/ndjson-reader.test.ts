// The NDJSON reader: one API-shaped property per line; members the database assigns are
// ignored, types are checked, and a bad line is refused alone with its line number.
import { describe, expect, test } from "bun:test";
import type { FeedItem } from "../../src/formats/listing.ts";
import { MAX_LINE_CHARS, readNdjson } from "../../src/formats/ndjson/reader.ts";

async function* chunks(text: string, size = 13): AsyncGenerator<string> {
  for (let i = 0; i < text.length; i += size) yield text.slice(i, i + size);
}

async function read(text: string, size?: number): Promise<FeedItem[]> {
  const items: FeedItem[] = [];
  for await (const item of readNdjson(chunks(text, size))) items.push(item);
  return items;
}

const apiProperty = {
  id: "9f0f6a5e-0000-4000-8000-000000000001",
  code: "AP-1",
  title: " Apartamento ",
  description: "Desc",
  operationType: "RENT",
  status: "AVAILABLE",
  propertyType: "Apartamento",
  highlight: "PREMIUM",
  exclusive: false,
  isPublished: true,
  createdAt: "2025-01-01T00:00:00.000Z",
  updatedAt: "2025-01-02T00:00:00.000Z",
  address: {
    street: "Rua B",
    number: "10",
    complement: null,
    neighborhood: "Centro",
    city: "Curitiba",
    state: null,
    uf: "PR",
    cep: "80000000",
    visibility: "STREET" as const,
  },
  coordinates: { latitude: -25.4, longitude: -49.2 },
  features: {
    totalArea: 60,
    builtArea: 55.5,
    bedrooms: 2,
    bathrooms: 1,
    suites: 0,
    parkingSpaces: 1,
    floor: 3,
    totalFloors: 8,
    isFurnished: false,
  },
  amenities: ["Piscina", " Academia ", "Piscina"],
  pricing: { salePrice: null, rentalPrice: 2300, condominiumFee: 400, iptu: 900 },
  financing: { acceptsFinancing: false },
  photos: [
    { id: "b", url: "https://img.example/2.jpg", alt: null, order: 2, isMain: false },
    { id: "a", url: "https://img.example/1.jpg", alt: "Sala", order: 1, isMain: true },
  ],
};

describe("NDJSON: properties in the API's shape", () => {
  test("a line becomes a listing: trimmed text, state completed from the UF, CEP normalised, photos in order", async () => {
    const [item] = await read(JSON.stringify(apiProperty) + "\n");
    expect(item).toEqual({
      kind: "listing",
      line: 1,
      warnings: [],
      listing: {
        code: "AP-1",
        title: "Apartamento",
        description: "Desc",
        operationType: "RENT",
        status: "AVAILABLE",
        propertyType: "Apartamento",
        highlight: "PREMIUM",
        exclusive: false,
        address: { ...apiProperty.address, state: "Paraná", cep: "80000-000" },
        coordinates: apiProperty.coordinates,
        features: apiProperty.features,
        amenities: ["Piscina", "Academia"],
        pricing: apiProperty.pricing,
        financing: apiProperty.financing,
        photos: [
          { id: "a", url: "https://img.example/1.jpg", alt: "Sala", order: 1, isMain: true },
          { id: "b", url: "https://img.example/2.jpg", alt: null, order: 2, isMain: false },
        ],
      },
    });
  });

  test("absent groups take their empty values; blank lines and CRLF endings are fine", async () => {
    const items = await read(`\n${JSON.stringify({ code: "M", title: "Mínimo", operationType: "SALE" })}\r\n\n`);
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({
      kind: "listing",
      listing: {
        code: "M",
        status: "AVAILABLE",
        highlight: "STANDARD",
        photos: [],
        amenities: [],
        address: { city: null, visibility: "ALL" },
      },
    });
  });

  test("the last line needs no newline", async () => {
    const items = await read(JSON.stringify({ code: "L", title: "t", operationType: "SALE" }));
    expect(items.map((i) => i.kind)).toEqual(["listing"]);
  });
});

describe("NDJSON rejections: each bad line alone, by line number", () => {
  test("invalid JSON, a missing code, wrong types and broken rules are refused; good lines still read", async () => {
    const lines = [
      JSON.stringify({ code: "OK-1", title: "t", operationType: "SALE" }),
      "{not json",
      JSON.stringify({ title: "no code", operationType: "SALE" }),
      JSON.stringify({ code: "T-1", title: 42, operationType: "LEASE", features: { bedrooms: "2" } }),
      JSON.stringify({ code: "N-1", title: "t", operationType: "SALE", pricing: { salePrice: -5 }, highlight: "GOLD" }),
      JSON.stringify([1, 2]),
      JSON.stringify({ code: "OK-2", title: "t", operationType: "RENT" }),
    ];
    const items = await read(lines.join("\n") + "\n");
    expect(items.map((i) => (i.kind === "listing" ? i.listing.code : `x:${i.code}`))).toEqual([
      "OK-1",
      "x:null",
      "x:null",
      "x:T-1",
      "x:N-1",
      "x:null",
      "OK-2",
    ]);
    const reasons = items.flatMap((i) => (i.kind === "rejected" ? [i.reason] : []));
    expect(reasons[0]).toMatch(/^line 2: not valid JSON/);
    expect(reasons[1]).toBe("line 3: code: is required (imports match listings on it)");
    expect(reasons[2]).toContain("line 4: ");
    expect(reasons[2]).toContain("title: must be a string or null");
    expect(reasons[2]).toContain("features.bedrooms: must be a number or null");
    expect(reasons[2]).toContain("operationType: must be one of SALE, RENT, SEASONAL");
    expect(reasons[3]).toContain("pricing.salePrice: must not be negative");
    expect(reasons[3]).toContain("highlight: must be one of STANDARD");
    expect(reasons[4]).toBe("line 6: must be a JSON object");
  });

  test("a runaway line is refused without being held whole", async () => {
    const long = `{"code":"L","title":"${"x".repeat(MAX_LINE_CHARS + 100)}"}`;
    const items = await read(
      `${long}\n${JSON.stringify({ code: "AFTER", title: "t", operationType: "SALE" })}\n`,
      1 << 20,
    );
    expect(items.map((i) => i.kind)).toEqual(["rejected", "listing"]);
    expect(items[0]).toMatchObject({ reason: `line 1: longer than ${MAX_LINE_CHARS} characters` });
  });
});
