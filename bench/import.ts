// Import benchmark: `bun bench/import.ts [--listings N] [--regenerate] [--bin dist/partner-api]`
// writes a VRSync feed of N (default 100,000) fictitious listings to bench/datasets/ (gitignored),
// then times the real CLI (`bun src/main.ts`, or the compiled binary) importing it into a fresh
// database, and again unchanged, reporting wall time and the child's peak RSS.
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { blankListing, type Listing } from "../src/feeds/listing.ts";
import { VRSYNC_FOOTER, vrsyncHeader, vrsyncListing } from "../src/feeds/vrsync/writer.ts";
import { Prng } from "../src/seed/prng.ts";
import { generateProperty, type PropertyRecord } from "../src/seed/properties.ts";

const { values } = parseArgs({ options: { listings: { type: "string" }, regenerate: { type: "boolean" }, bin: { type: "string" } } });
const COMMAND = values.bin === undefined ? ["bun", "src/main.ts"] : [values.bin];
const LISTINGS = Number(values.listings ?? 100_000);
const FEED = `bench/datasets/vrsync-${LISTINGS}.xml`;
const END_MS = Date.parse("2026-01-01T00:00:00.000Z");
const TIMELINE = { startMs: END_MS - 2 * 365 * 86_400_000, endMs: END_MS };

/** The seed generator's property as a feed listing; every listing gets a code and is listed. */
function toListing(p: PropertyRecord, index: number): Listing {
  const listing = blankListing(p.code ?? `BX-${String(index + 1).padStart(6, "0")}`);
  return {
    ...listing,
    title: p.title, description: p.description, operationType: p.operationType, status: p.status,
    propertyType: p.propertyType, highlight: p.highlight, exclusive: p.exclusive,
    address: { street: p.street, number: p.number, complement: p.complement, neighborhood: p.neighborhood, city: p.city, state: p.state, uf: p.uf, cep: p.cep, visibility: "ALL" },
    amenities: [],
    coordinates: { latitude: p.latitude, longitude: p.longitude },
    features: {
      totalArea: p.totalArea, builtArea: p.builtArea, bedrooms: p.bedrooms, bathrooms: p.bathrooms, suites: p.suites,
      parkingSpaces: p.parkingSpaces, floor: p.floor, totalFloors: p.totalFloors, isFurnished: p.isFurnished,
    },
    pricing: { salePrice: p.salePrice, rentalPrice: p.rentalPrice, condominiumFee: p.condominiumFee, iptu: p.iptu },
    financing: { acceptsFinancing: p.acceptsFinancing },
    // As a CRM's feed: no photo ids (the importer assigns them).
    photos: p.photos.map((photo) => ({ id: null, url: photo.url, alt: photo.alt, order: photo.position, isMain: photo.isMain })),
  };
}

async function generateFeed(): Promise<void> {
  mkdirSync("bench/datasets", { recursive: true });
  const writer = Bun.file(FEED).writer();
  writer.write(vrsyncHeader("partner-api bench", new Date(END_MS).toISOString()));
  const rng = new Prng(42, 1);
  for (let i = 0; i < LISTINGS; i++) {
    writer.write(vrsyncListing(toListing(generateProperty(rng, i, LISTINGS, TIMELINE), i)));
    if (i % 10_000 === 9_999) await writer.flush();
  }
  writer.write(VRSYNC_FOOTER);
  await writer.end();
}

interface Run {
  seconds: number;
  peakRssMb: number;
  summary: Record<string, unknown>;
}

async function timedImport(db: string): Promise<Run> {
  const started = performance.now();
  const child = Bun.spawn([...COMMAND, "import", "--db", db, FEED, "--json"], { stdout: "pipe", stderr: "inherit" });
  const output = await new Response(child.stdout).text();
  await child.exited;
  const seconds = (performance.now() - started) / 1000;
  const { rejections: _, ...summary } = JSON.parse(output) as Record<string, unknown>;
  return { seconds, peakRssMb: child.resourceUsage()!.maxRSS / 1_048_576, summary };
}

if (values.regenerate || !existsSync(FEED)) {
  const started = performance.now();
  await generateFeed();
  console.log(`generated ${FEED}: ${LISTINGS} listings, ${(statSync(FEED).size / 1_048_576).toFixed(0)} MB in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}
const dir = mkdtempSync(join(tmpdir(), "partner-api-bench-"));
console.log(`command: ${COMMAND.join(" ")} import --db <fresh file> ${FEED} --json`);
try {
  const db = join(dir, "agency.sqlite");
  for (const label of ["into a new database", "again, unchanged"]) {
    const run = await timedImport(db);
    console.log(`import ${label}: ${run.seconds.toFixed(1)} s, peak RSS ${run.peakRssMb.toFixed(0)} MB, ${JSON.stringify(run.summary)}`);
  }
  console.log(`database: ${(statSync(db).size / 1_048_576).toFixed(0)} MB`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
