// Property: every style of number a CRM writes reads to the same value (docs/reference/behaviour-extensions.md §16, Numbers),
// whether read alone or as a price, area or coordinate of a listing.
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import type { FeedItem } from "../../src/formats/listing.ts";
import { readArea, readCoordinate, readMoney } from "../../src/formats/values/numbers.ts";
import { readVrsync } from "../../src/formats/vrsync/reader.ts";

/** Thousands grouped with `separator`: 1234567 → 1.234.567. */
const grouped = (whole: number, separator: string) => String(whole).replace(/\B(?=(\d{3})+(?!\d))/g, separator);

/** Every way the value (whole and centavos) is written by some CRM. */
function styles(whole: number, cents: number): string[] {
  const two = String(cents).padStart(2, "0");
  const decimals = cents === 0 ? ["", ".00", `,00`] : [`.${two}`, `,${two}`];
  const written = [
    cents === 0 ? String(whole) : `${whole}.${two}`, // plain
    `${grouped(whole, ".")}${cents === 0 ? "" : `,${two}`}`, // Brazilian
    `${grouped(whole, ",")}${cents === 0 ? "" : `.${two}`}`, // international
    `${grouped(whole, ".")},${two}`,
    `${grouped(whole, ",")}.${two}`,
    `${whole},${two}`,
    cents % 10 === 0 && cents !== 0 ? `${grouped(whole, ".")},${two[0]}` : `${whole}${decimals[0]}`,
  ];
  return written.flatMap((text) => [
    text,
    `R$ ${text}`,
    `R$${text}`,
    `BRL ${text}`,
    `${text} reais`,
    `R$\u00a0${text}`,
  ]);
}

const amount = fc
  .record({ whole: fc.integer({ min: 0, max: 99_999_999 }), cents: fc.integer({ min: 0, max: 99 }) })
  .filter(({ whole, cents }) => whole + cents > 0);

describe("every number style reads to the same value", () => {
  test("money: plain, Brazilian and international separators, with R$, BRL, reais and no-break spaces", () => {
    fc.assert(
      fc.property(amount, ({ whole, cents }) => {
        const value = (whole * 100 + cents) / 100;
        for (const text of styles(whole, cents)) expect([text, readMoney(text).value]).toEqual([text, value]);
      }),
      { numRuns: 500 },
    );
  });

  test("areas: the same styles with m² or m2 after them", () => {
    fc.assert(
      fc.property(amount, ({ whole, cents }) => {
        const value = (whole * 100 + cents) / 100;
        for (const text of styles(whole, cents).filter((t) => !/R\$|BRL|reais/.test(t))) {
          expect([text, readArea(`${text} m²`).value, readArea(`${text}m2`).value]).toEqual([text, value, value]);
        }
      }),
      { numRuns: 300 },
    );
  });

  test("coordinates: . or , as the decimal mark", () => {
    fc.assert(
      fc.property(fc.integer({ min: -180_000_000, max: 180_000_000 }), (micro) => {
        const text = (micro / 1_000_000).toFixed(6);
        const value = Number(text);
        expect(readCoordinate(text).value).toBe(value);
        expect(readCoordinate(text.replace(".", ",")).value).toBe(value);
      }),
      { numRuns: 500 },
    );
  });

  test("as a listing's ListPrice and LivingArea, in a whole feed", async () => {
    await fc.assert(
      fc.asyncProperty(amount, fc.integer({ min: 0, max: 6 }), async ({ whole, cents }, pick) => {
        const text = styles(whole, cents)[pick * 6]!; // the unprefixed styles
        const xml =
          `<ListingDataFeed><Listings><Listing><ListingID>P</ListingID><Title>t</Title><TransactionType>Venda</TransactionType>` +
          `<Details><ListPrice currency="BRL">R$ ${text}</ListPrice><LivingArea unit="m²">${text}</LivingArea></Details></Listing></Listings></ListingDataFeed>`;
        const items: FeedItem[] = [];
        for await (const item of readVrsync(
          (async function* () {
            yield xml;
          })(),
        ))
          items.push(item);
        const value = (whole * 100 + cents) / 100;
        expect(items[0]).toMatchObject({
          kind: "listing",
          warnings: [],
          listing: { pricing: { salePrice: value }, features: { builtArea: value } },
        });
      }),
      { numRuns: 200 },
    );
  });
});
