// Property: import → export → import reproduces every field (displayAddress and amenities
// included), through VRSync and through NDJSON, for listings of every shape the API can hold:
// any deal with any prices, a rent with only a sale price too.
import type { Database } from "bun:sqlite";
import { afterAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import fc from "fast-check";
import { type ExportFormat, exportProperties } from "../../src/agency/export.ts";
import { importFeed } from "../../src/agency/import.ts";
import { ADDRESS_VISIBILITIES, OPERATION_TYPES, PROPERTY_STATUSES } from "../../src/catalog/enums.ts";
import { closeDatabase, openExistingDatabase } from "../../src/db/open.ts";
import { STATES } from "../../src/formats/brazil.ts";
import { blankListing, type FeedListing, type ListingPhoto } from "../../src/formats/listing.ts";
import { PROPERTY_TYPES } from "../../src/formats/values/property-type.ts";
import { PUBLICATION_TIERS } from "../../src/formats/values/vocabularies.ts";
import { VRSYNC_FOOTER, vrsyncHeader, vrsyncListing } from "../../src/formats/vrsync/writer.ts";
import { type ApiProperty, publishedProperties, tempDir } from "./helpers.ts";

const dir = tempDir();
afterAll(() => dir.cleanup());

/** Text as the API stores it: trimmed, not empty, no control characters, nothing the reader would unwrap. */
const text = (maxLength: number) =>
  fc
    .string({ unit: "grapheme", minLength: 1, maxLength })
    .map((s) => s.replace(/[\u0000-\u001F\u007F-\u009F\uFFFE\uFFFF]/g, "").trim())
    .filter((s) => s !== "" && !s.startsWith("<![") && !/\p{Cs}/u.test(s));
const multiline = fc.array(text(40), { minLength: 1, maxLength: 3 }).map((lines) => lines.join("\n\t"));
const money = fc.integer({ min: 1, max: 9_999_999_999 }).map((cents) => cents / 100);
const orNull = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: null });
const count = orNull(fc.integer({ min: 0, max: 40 }));
const coordinate = (limit: number) =>
  fc.integer({ min: -limit * 1_000_000, max: limit * 1_000_000 }).map((n) => n / 1_000_000);
const UFS = Object.keys(STATES);

const photos = fc
  .uniqueArray(
    fc.record({
      path: fc.stringMatching(/^[a-z0-9][a-z0-9/_-]{0,30}\.jpg$/),
      alt: orNull(text(60)),
      isMain: fc.boolean(),
    }),
    {
      maxLength: 6,
      selector: (p) => p.path,
    },
  )
  .map((items): ListingPhoto[] => {
    const main = Math.max(
      0,
      items.findIndex((p) => p.isMain),
    );
    return items.map((p, i) => ({
      id: null,
      url: `https://img.exemplo.com.br/${p.path}`,
      alt: p.alt,
      order: i + 1,
      isMain: i === main,
    }));
  });

/** Feature names, distinct in any case; a listing is furnished exactly when one of them says so. */
const amenities = fc
  .uniqueArray(fc.oneof(text(30), fc.constantFrom("Pool", "Gym", "Furnished", "Mobiliado", "Churrasqueira")), {
    maxLength: 6,
    selector: (s) => s.toLowerCase(),
  })
  .map((names) =>
    names.filter((name) => !/^(furnished|mobiliad[oa])$/i.test(name) || name === "Furnished" || name === "Mobiliado"),
  );

const listing = (code: string): fc.Arbitrary<FeedListing> =>
  fc
    .record({
      title: text(80),
      description: fc.oneof(fc.constant(""), multiline),
      operationType: fc.constantFrom(...OPERATION_TYPES),
      status: fc.constantFrom(...PROPERTY_STATUSES),
      propertyType: orNull(fc.oneof(fc.constantFrom(...PROPERTY_TYPES.map(([, name]) => name)), text(30))),
      highlight: fc.constantFrom(...PUBLICATION_TIERS),
      exclusive: fc.boolean(),
      street: orNull(text(40)),
      number: orNull(fc.stringMatching(/^[0-9]{1,5}[A-Z]?$|^S\/N$/)),
      complement: orNull(text(20)),
      neighborhood: orNull(text(30)),
      city: orNull(text(30)),
      uf: orNull(fc.constantFrom(...UFS)),
      cep: orNull(
        fc
          .integer({ min: 1_000_000, max: 99_999_999 })
          .map((n) => String(n).padStart(8, "0"))
          .map((d) => `${d.slice(0, 5)}-${d.slice(5)}`),
      ),
      visibility: fc.constantFrom(...ADDRESS_VISIBILITIES),
      position: orNull(fc.tuple(coordinate(90), coordinate(180)).filter(([lat, lon]) => lat !== 0 || lon !== 0)),
      totalArea: orNull(money),
      builtArea: orNull(money),
      bedrooms: count,
      bathrooms: count,
      suites: count,
      parkingSpaces: count,
      floor: orNull(fc.integer({ min: -3, max: 80 })),
      totalFloors: count,
      amenities,
      salePrice: orNull(money),
      rentalPrice: orNull(money),
      condominiumFee: orNull(fc.oneof(fc.constant(0), money)),
      iptu: orNull(money),
      acceptsFinancing: fc.boolean(),
      photos,
    })
    .map((l) => ({
      code,
      title: l.title,
      description: l.description,
      operationType: l.operationType,
      status: l.status,
      propertyType: l.propertyType,
      highlight: l.highlight,
      exclusive: l.exclusive,
      address: {
        street: l.street,
        number: l.number,
        complement: l.complement,
        neighborhood: l.neighborhood,
        city: l.city,
        state: l.uf === null ? null : STATES[l.uf]!,
        uf: l.uf,
        cep: l.cep,
        visibility: l.visibility,
      },
      coordinates: { latitude: l.position?.[0] ?? null, longitude: l.position?.[1] ?? null },
      features: {
        totalArea: l.totalArea,
        builtArea: l.builtArea,
        bedrooms: l.bedrooms,
        bathrooms: l.bathrooms,
        suites: l.suites,
        parkingSpaces: l.parkingSpaces,
        floor: l.floor,
        totalFloors: l.totalFloors,
        isFurnished: l.amenities.some((a) => /^(furnished|mobiliado)$/i.test(a)),
      },
      amenities: l.amenities,
      pricing: { salePrice: l.salePrice, rentalPrice: l.rentalPrice, condominiumFee: l.condominiumFee, iptu: l.iptu },
      financing: { acceptsFinancing: l.acceptsFinancing },
      photos: l.photos,
    }));

const feed = fc
  .integer({ min: 1, max: 6 })
  .chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => listing(`RT-${i + 1}`))));

/**
 * Every deal with every combination of prices, run before the random feeds: among them a rent
 * (or a holiday let) with a sale price and no rent, which a reader would take for a rent in
 * ListPrice if the export wrote no RentalPrice at all (fixture T-BAD-PERIOD).
 */
const EVERY_DEAL_AND_PRICE: FeedListing[] = OPERATION_TYPES.flatMap((operationType, deal) =>
  (
    [
      [null, null],
      [350_000, null],
      [null, 2_500],
      [350_000, 2_500],
    ] as const
  ).map(([salePrice, rentalPrice], shape) => ({
    ...blankListing(`RT-${String(deal * 4 + shape + 1).padStart(2, "0")}`),
    title: `${operationType}, sale ${salePrice}, rent ${rentalPrice}`,
    operationType,
    pricing: { salePrice, rentalPrice, condominiumFee: null, iptu: null },
  })),
);

let counter = 0;
const next = (name: string) => dir.path(`${name}-${++counter}`);

async function exportFile(db: string, format: ExportFormat): Promise<string> {
  const parts: string[] = [];
  const conn: Database = openExistingDatabase(db);
  try {
    await exportProperties(conn, format, { write: (t) => void parts.push(t) });
  } finally {
    closeDatabase(conn);
  }
  const path = next(`export.${format === "vrsync" ? "xml" : "ndjson"}`);
  writeFileSync(path, parts.join(""));
  return path;
}

/** What a new database does not assign itself; photo ids stay (exports carry them). */
const content = ({ id: _i, createdAt: _c, updatedAt: _u, ...rest }: ApiProperty) => rest;
const byCode = (list: ApiProperty[]) => list.map(content).sort((a, b) => String(a.code).localeCompare(String(b.code)));

describe("import → export → import reproduces every field", () => {
  for (const format of ["vrsync", "ndjson"] as const) {
    test(`through ${format}: the second import holds exactly what the first did`, async () => {
      await fc.assert(
        fc.asyncProperty(feed, async (listings) => {
          const source = next("source.xml");
          writeFileSync(
            source,
            vrsyncHeader("property test", "2026-01-01T00:00:00.000Z") +
              listings.map((l) => vrsyncListing(l)).join("") +
              VRSYNC_FOOTER,
          );
          const first = next("first.sqlite");
          expect(await importFeed(first, source)).toMatchObject({
            created: listings.length,
            rejected: 0,
            warnings: {},
          });
          const stored = byCode(publishedProperties(first));
          // The first import took the listings exactly as given (photo ids aside: the database assigns them).
          const withoutPhotoIds = stored.map(({ isPublished: _p, photos, ...rest }) => ({
            ...rest,
            photos: (photos as ListingPhoto[]).map((p) => ({ ...p, id: null })),
          }));
          expect(withoutPhotoIds as unknown[]).toEqual(
            listings.map((l) => ({ ...l, photos: l.photos.map((p) => ({ ...p, id: null })) })),
          );
          const second = next("second.sqlite");
          expect(await importFeed(second, await exportFile(first, format))).toMatchObject({
            created: listings.length,
            rejected: 0,
            warnings: {},
          });
          expect(byCode(publishedProperties(second))).toEqual(stored);
          // And into the database it came from, nothing changes.
          expect(await importFeed(first, await exportFile(first, format))).toMatchObject({
            unchanged: listings.length,
            updated: 0,
          });
        }),
        { numRuns: 25, examples: [[EVERY_DEAL_AND_PRICE]] },
      );
    }, 60_000);
  }
});
