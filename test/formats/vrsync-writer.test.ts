// The VRSync writer: what it writes reads back to the same listing, including what VRSync has no
// element for (through the extension namespace) and text XML would otherwise alter.
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { SaxesParser } from "saxes";
import { blankListing, type FeedItem, type FeedListing } from "../../src/formats/listing.ts";
import { readVrsync } from "../../src/formats/vrsync/reader.ts";
import { PROPERTY_TYPES } from "../../src/formats/vrsync/vocabulary.ts";
import { unwritableReason, VRSYNC_FOOTER, vrsyncHeader, vrsyncListing } from "../../src/formats/vrsync/writer.ts";

async function* once(text: string): AsyncGenerator<string> {
  yield text;
}

/** The listings read back from the writer's XML; what the writer writes must raise no warning. */
async function roundTrip(listings: FeedListing[]): Promise<FeedListing[]> {
  const xml =
    vrsyncHeader("test", "2026-01-01T00:00:00.000Z") +
    listings.map((listing) => vrsyncListing(listing)).join("") +
    VRSYNC_FOOTER;
  const items: FeedItem[] = [];
  for await (const item of readVrsync(once(xml))) items.push(item);
  return items.map((item) => {
    if (item.kind !== "listing") throw new Error(`refused: ${item.reason}`);
    expect(item.warnings).toEqual([]);
    return item.listing;
  });
}

function full(code: string): FeedListing {
  return {
    ...blankListing(code),
    title: 'Título com <tags> & "aspas"',
    description: "Linha 1\r\nLinha 2\n\tcom tab ]]> e <b>negrito</b>",
    operationType: "RENT",
    status: "RENTED",
    propertyType: "Sala Comercial",
    highlight: "TRIPLE",
    exclusive: true,
    address: {
      street: "Rua A",
      number: "S/N",
      complement: "Sala 3",
      neighborhood: "Centro",
      city: "Recife",
      state: "Pernambuco",
      uf: "PE",
      cep: "50000-000",
      visibility: "STREET",
    },
    coordinates: { latitude: -8.0539, longitude: -34.8811 },
    features: {
      totalArea: 48.75,
      builtArea: 40,
      bedrooms: null,
      bathrooms: 1,
      suites: null,
      parkingSpaces: 0,
      floor: -1,
      totalFloors: 12,
      isFurnished: true,
    },
    amenities: ["Ar-condicionado", "Mobiliado", "Copa & cozinha <integrada>"],
    pricing: { salePrice: 320000, rentalPrice: 2100.9, condominiumFee: 0, iptu: 980 },
    financing: { acceptsFinancing: true },
    photos: [
      {
        id: "ph-1",
        url: "https://img.example/1.jpg?w=800&h=600",
        alt: 'Vista "frontal"\tcom tab',
        order: 1,
        isMain: false,
      },
      { id: "ph-2", url: "https://img.example/2.jpg", alt: null, order: 2, isMain: true },
    ],
  };
}

describe("VRSync writer: an export re-imports to the same listing", () => {
  test("every field survives, escapes and line breaks included", async () => {
    const listing = full("SA-1");
    expect(await roundTrip([listing])).toEqual([listing]);
  });

  test("displayAddress is written as VRSync spells it, for each visibility", async () => {
    const listings = (["ALL", "STREET", "NEIGHBORHOOD"] as const).map((visibility) => {
      const listing = full(`V-${visibility}`);
      return { ...listing, address: { ...listing.address, visibility } };
    });
    const xml = listings.map((listing) => vrsyncListing(listing)).join("");
    expect([...xml.matchAll(/displayAddress="(\w+)"/g)].map((m) => m[1])).toEqual(["All", "Street", "Neighborhood"]);
    expect(await roundTrip(listings)).toEqual(listings);
  });

  test("a furnished listing whose amenities do not say so gets a Furnished feature", async () => {
    const listing = {
      ...blankListing("F"),
      title: "t",
      features: { ...blankListing("F").features, isFurnished: true },
    };
    expect(vrsyncListing(listing)).toContain("<Feature>Furnished</Feature>");
    expect(await roundTrip([listing])).toEqual([{ ...listing, amenities: ["Furnished"] }]);
  });

  test("each operation type: SALE, SALE with a rent (Sale/Rent), RENT and SEASONAL", async () => {
    const base = { ...blankListing("X"), title: "t" };
    const listings: FeedListing[] = [
      { ...base, code: "S", operationType: "SALE", pricing: { ...base.pricing, salePrice: 1 } },
      { ...base, code: "SR", operationType: "SALE", pricing: { ...base.pricing, salePrice: 1, rentalPrice: 2 } },
      { ...base, code: "R", operationType: "RENT", pricing: { ...base.pricing, salePrice: 3, rentalPrice: 2 } },
      { ...base, code: "SE", operationType: "SEASONAL", pricing: { ...base.pricing, rentalPrice: 9000 } },
    ];
    expect(await roundTrip(listings)).toEqual(listings);
  });

  test("a rent or holiday let with a sale price but no rent: its rent is written as 0 (on request), so the sale price is not read as the rent", async () => {
    const base = { ...blankListing("X"), title: "t", pricing: { ...blankListing("X").pricing, salePrice: 200000 } };
    const listings: FeedListing[] = [
      { ...base, code: "R", operationType: "RENT" },
      { ...base, code: "SE", operationType: "SEASONAL" },
    ];
    for (const listing of listings)
      expect(vrsyncListing(listing)).toContain('<RentalPrice currency="BRL" period="Monthly">0</RentalPrice>');
    expect(vrsyncListing({ ...base, operationType: "SALE" })).not.toContain("<RentalPrice");
    expect(await roundTrip(listings)).toEqual(listings);
  });

  test("every property type of the table, and one outside it (through the extension)", async () => {
    const names = [...PROPERTY_TYPES.map(([, name]) => name), "Pousada de Charme", null];
    const listings = names.map((propertyType, i) => ({ ...blankListing(`T-${i}`), title: "t", propertyType }));
    expect(await roundTrip(listings)).toEqual(listings);
  });

  test("tiny and whole numbers are written in plain notation", async () => {
    const listing = { ...blankListing("N"), title: "t", coordinates: { latitude: 1e-7, longitude: -0.5 } };
    expect(await roundTrip([listing])).toEqual([listing]);
  });
});

describe("VRSync writer: what it cannot write (unwritableReason)", () => {
  /** Any text, control characters, lone surrogates and blanks included. */
  const anyText = fc.oneof(
    fc.string({ maxLength: 20 }),
    fc.string({ unit: "binary", maxLength: 12 }),
    fc.constantFrom(
      "",
      "  ",
      "\t\n",
      "\u0007",
      "a\u000bb",
      "\ud800",
      "x\udc00",
      "\ufffe",
      "ok & <fine>",
      "\u0085\u00a0",
      "\u007f",
      "<![CDATA[ ]]>",
    ),
  );
  const orNull = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: null });
  const stored = fc
    .record({
      code: fc.oneof(anyText, fc.constant("X".repeat(101)), fc.constant("AP-1")),
      title: fc.oneof(anyText, fc.constant("Apartamento")),
      description: anyText,
      propertyType: orNull(anyText),
      highlight: fc.oneof(fc.constant("STANDARD"), anyText),
      street: orNull(anyText),
      city: orNull(anyText),
      amenities: fc.array(anyText, { maxLength: 3 }),
      alt: orNull(anyText),
      photoId: anyText,
    })
    .map((r): FeedListing => {
      const base = blankListing(r.code);
      return {
        ...base,
        title: r.title,
        description: r.description,
        propertyType: r.propertyType,
        highlight: r.highlight,
        address: { ...base.address, street: r.street, city: r.city },
        amenities: r.amenities,
        pricing: { ...base.pricing, salePrice: 100_000 },
        photos: [{ id: r.photoId, url: "https://img.example/1.jpg", alt: r.alt, order: 1, isMain: true }],
      };
    });

  /** Whether a strict XML parser reads the document without an error. */
  function wellFormed(xml: string): boolean {
    const parser = new SaxesParser({ xmlns: true });
    let ok = true;
    parser.on("error", () => {
      ok = false;
    });
    try {
      parser.write(xml).close();
    } catch {
      ok = false;
    }
    return ok;
  }

  async function readerTakes(xml: string): Promise<boolean> {
    const items: FeedItem[] = [];
    for await (const item of readVrsync(once(xml))) items.push(item);
    return items.length === 1 && items[0]!.kind === "listing";
  }

  test("a listing it can write makes a well-formed document a reader takes; one it cannot would not", async () => {
    await fc.assert(
      fc.asyncProperty(stored, async (listing) => {
        const xml = vrsyncHeader("test", "2026-01-01T00:00:00.000Z") + vrsyncListing(listing) + VRSYNC_FOOTER;
        const writable = unwritableReason(listing) === null;
        const usable = wellFormed(xml) && (await readerTakes(xml));
        expect({ reason: unwritableReason(listing), usable }).toEqual({
          reason: unwritableReason(listing),
          usable: writable,
        });
      }),
      { numRuns: 400 },
    );
  });

  test("the reasons, by example", () => {
    const good = full("OK-1");
    expect(unwritableReason(good)).toBeNull();
    expect(unwritableReason({ ...good, code: "  " })).toBe("ListingID: is empty");
    expect(unwritableReason({ ...good, code: "C".repeat(101) })).toBe("ListingID: longer than 100 characters");
    expect(unwritableReason({ ...good, title: " \n" })).toBe("Title: is empty");
    expect(unwritableReason({ ...good, title: "\u0085\u00a0" })).toBe("Title: is empty"); // C1 controls: readers drop them
    expect(unwritableReason({ ...good, description: "sino \u0007" })).toBe(
      "Description: contains characters XML cannot carry",
    );
    expect(unwritableReason({ ...good, amenities: ["Piscina", 3 as unknown as string] })).toBe(
      "Features: not a list of names",
    );
    expect(unwritableReason({ ...good, photos: [{ ...good.photos[0]!, alt: "\ud83d" }] })).toBe(
      "Media/Item@caption: contains characters XML cannot carry",
    );
  });
});
