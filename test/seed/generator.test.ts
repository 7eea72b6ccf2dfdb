// The seeded dataset's data rules: publication share, photos, dates, coherent features and prices, codes, addresses and leads.
import type { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  LEAD_PRIORITIES,
  LEAD_SOURCES,
  LEAD_STATUSES,
  OPERATION_TYPES,
  PROPERTY_STATUSES,
} from "../../src/catalog/enums.ts";
import { CITIES } from "../../src/seed/cities.ts";
import { DEFAULT_AS_OF, type SeedSummary } from "../../src/seed/generator.ts";
import { HIGHLIGHT_WEIGHTS, PROPERTY_TYPES } from "../../src/seed/vocabulary.ts";
import { openReadonly, seed, TEST_SIZES, type TempFolder, tempFolder } from "./helpers.ts";

let folder: TempFolder;
let db: Database;
let summary: SeedSummary;

beforeAll(() => {
  folder = tempFolder();
  const built = seed(folder);
  summary = built.summary;
  db = openReadonly(built.path);
}, 60_000);

afterAll(() => {
  db.close();
  folder.remove();
});

const scalar = (sql: string, ...params: (string | number)[]): number =>
  Object.values(db.query(sql).get(...params) as Record<string, number>)[0]!;
const column = (sql: string): unknown[] =>
  db
    .query(sql)
    .values()
    .map((row) => row[0]);

describe("summary", () => {
  test("counts what it wrote", () => {
    expect(summary.properties).toBe(TEST_SIZES.properties);
    expect(summary.leads).toBe(TEST_SIZES.leads);
    expect(scalar("SELECT count(*) FROM properties")).toBe(summary.properties);
    expect(scalar("SELECT count(*) FROM properties WHERE is_published = 1")).toBe(summary.published);
    expect(scalar("SELECT count(*) FROM photos")).toBe(summary.photos);
    expect(scalar("SELECT count(*) FROM leads")).toBe(summary.leads);
  });
});

describe("publication", () => {
  test("about 10 % of the properties are unpublished", () => {
    const share = 1 - summary.published / summary.properties;
    expect(share).toBeGreaterThan(0.07);
    expect(share).toBeLessThan(0.13);
  });

  test("the change feed holds one upsert per published property and per lead, no row per photo", () => {
    expect(scalar("SELECT count(*) FROM changes WHERE entity = 'properties'")).toBe(summary.published);
    expect(scalar("SELECT count(DISTINCT record_id) FROM changes WHERE entity = 'properties'")).toBe(summary.published);
    expect(scalar("SELECT count(*) FROM changes WHERE entity = 'leads'")).toBe(summary.leads);
    expect(column("SELECT DISTINCT change FROM changes")).toEqual(["upsert"]);
    expect(
      scalar(
        `SELECT count(*) FROM changes c JOIN properties p ON p.id = c.record_id WHERE c.entity = 'properties' AND p.is_published = 0`,
      ),
    ).toBe(0);
  });

  test("the counters match the published properties and the leads", () => {
    expect(scalar("SELECT sum(n) FROM property_counts")).toBe(summary.published);
    expect(scalar("SELECT sum(n) FROM lead_counts")).toBe(summary.leads);
  });
});

describe("photos", () => {
  test("positions run 1..n without gaps, at most 15", () => {
    const broken = scalar(`
      SELECT count(*) FROM (
        SELECT property_id, count(*) n, min(position) lo, max(position) hi, count(DISTINCT position) d
        FROM photos GROUP BY property_id)
      WHERE lo <> 1 OR hi <> n OR d <> n OR n > 15`);
    expect(broken).toBe(0);
  });

  test("every property with photos has exactly one main photo, usually the first", () => {
    expect(
      scalar("SELECT count(*) FROM (SELECT property_id FROM photos GROUP BY property_id HAVING sum(is_main) <> 1)"),
    ).toBe(0);
    const firstIsMain = scalar("SELECT avg(position = 1) FROM photos WHERE is_main = 1");
    expect(firstIsMain).toBeGreaterThan(0.8);
    expect(firstIsMain).toBeLessThan(1);
  });

  test("some properties have no photos", () => {
    expect(scalar("SELECT count(*) FROM properties WHERE id NOT IN (SELECT property_id FROM photos)")).toBeGreaterThan(
      0,
    );
  });

  test("urls name the property and the position; alt is Portuguese text or null", () => {
    const bad = scalar(
      `SELECT count(*) FROM photos WHERE url <> 'https://img.sandbox.partner-api.example/' || property_id || '/' || position || '.jpg'`,
    );
    expect(bad).toBe(0);
    expect(scalar("SELECT count(*) FROM photos WHERE alt IS NULL")).toBeGreaterThan(0);
    expect(column("SELECT DISTINCT alt FROM photos WHERE alt IS NOT NULL")).toContain("Sala de estar");
  });

  test("photo ids are UUIDs, unique, and every photo belongs to a property", () => {
    expect(scalar("SELECT count(DISTINCT id) FROM photos")).toBe(summary.photos);
    expect(
      scalar(
        "SELECT count(*) FROM photos WHERE id NOT GLOB '[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]-*'",
      ),
    ).toBe(0);
    expect(db.query("PRAGMA foreign_key_check").all()).toEqual([]);
  });
});

describe("dates", () => {
  const asOf = DEFAULT_AS_OF;
  const twoYearsBefore = new Date(Date.parse(asOf) - 2 * 365 * 86_400_000).toISOString();
  const iso = "[0-9][0-9][0-9][0-9]-[0-1][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9]Z";

  for (const table of ["properties", "leads"]) {
    test(`${table}: ISO instants with milliseconds and Z`, () => {
      expect(
        scalar(`SELECT count(*) FROM ${table} WHERE created_at NOT GLOB '${iso}' OR updated_at NOT GLOB '${iso}'`),
      ).toBe(0);
    });

    test(`${table}: createdAt within the two years before asOf, updatedAt between createdAt and asOf`, () => {
      expect(scalar(`SELECT count(*) FROM ${table} WHERE created_at < ? OR created_at > ?`, twoYearsBefore, asOf)).toBe(
        0,
      );
      expect(scalar(`SELECT count(*) FROM ${table} WHERE updated_at < created_at OR updated_at > ?`, asOf)).toBe(0);
      expect(scalar(`SELECT count(*) FROM ${table} WHERE updated_at > created_at`)).toBeGreaterThan(0);
    });

    test(`${table}: creation spreads over both years`, () => {
      const firstYear = scalar(
        `SELECT avg(created_at < ?) FROM ${table}`,
        new Date(Date.parse(asOf) - 365 * 86_400_000).toISOString(),
      );
      expect(firstYear).toBeGreaterThan(0.4);
      expect(firstYear).toBeLessThan(0.6);
    });
  }
});

describe("features are coherent with the type", () => {
  test("every type of the vocabulary occurs", () => {
    expect(column("SELECT DISTINCT property_type FROM properties ORDER BY 1")).toEqual(
      PROPERTY_TYPES.map((t) => t.name).sort(),
    );
  });

  test("a Terreno has an area and nothing built", () => {
    const bad = scalar(`SELECT count(*) FROM properties WHERE property_type = 'Terreno' AND (
      built_area IS NOT NULL OR bedrooms IS NOT NULL OR bathrooms IS NOT NULL OR suites IS NOT NULL
      OR floor IS NOT NULL OR total_floors IS NOT NULL OR total_area IS NULL OR is_furnished = 1)`);
    expect(bad).toBe(0);
  });

  test("commercial types have no bedrooms or suites", () => {
    const bad = scalar(`SELECT count(*) FROM properties WHERE property_type IN ('Sala Comercial', 'Loja', 'Galpão')
      AND (bedrooms IS NOT NULL OR suites IS NOT NULL OR bathrooms IS NULL)`);
    expect(bad).toBe(0);
  });

  test("a Kitnet is small: one room, one bathroom, at most 35 m² built", () => {
    expect(scalar("SELECT max(built_area) FROM properties WHERE property_type = 'Kitnet'")).toBeLessThanOrEqual(35);
    expect(
      scalar("SELECT count(*) FROM properties WHERE property_type = 'Kitnet' AND (bedrooms <> 1 OR bathrooms <> 1)"),
    ).toBe(0);
  });

  test("units in a building are on a floor no higher than the building; houses have no floor", () => {
    const units = "('Apartamento', 'Cobertura', 'Kitnet', 'Studio', 'Flat', 'Sala Comercial')";
    expect(
      scalar(
        `SELECT count(*) FROM properties WHERE property_type IN ${units} AND (floor IS NULL OR floor < 1 OR floor > total_floors)`,
      ),
    ).toBe(0);
    expect(scalar("SELECT count(*) FROM properties WHERE property_type = 'Cobertura' AND floor <> total_floors")).toBe(
      0,
    );
    expect(
      scalar(
        "SELECT count(*) FROM properties WHERE property_type IN ('Casa', 'Sobrado', 'Casa de Condomínio', 'Chácara') AND floor IS NOT NULL",
      ),
    ).toBe(0);
  });

  test("suites never exceed bedrooms, built area never exceeds total area", () => {
    expect(scalar("SELECT count(*) FROM properties WHERE suites > bedrooms")).toBe(0);
    expect(scalar("SELECT count(*) FROM properties WHERE built_area > total_area")).toBe(0);
    expect(scalar("SELECT count(*) FROM properties WHERE bathrooms < suites")).toBe(0);
  });
});

describe("prices follow the operation", () => {
  test("a SALE has a sale price and no rent; a RENT or SEASONAL has a rent and no sale price", () => {
    expect(
      scalar(
        "SELECT count(*) FROM properties WHERE operation_type = 'SALE' AND (sale_price IS NULL OR rental_price IS NOT NULL)",
      ),
    ).toBe(0);
    expect(
      scalar(
        "SELECT count(*) FROM properties WHERE operation_type <> 'SALE' AND (rental_price IS NULL OR sale_price IS NOT NULL)",
      ),
    ).toBe(0);
  });

  test("prices are plausible BRL amounts", () => {
    expect(scalar("SELECT min(sale_price) FROM properties")).toBeGreaterThan(20_000);
    expect(scalar("SELECT max(sale_price) FROM properties")).toBeLessThan(100_000_000);
    expect(scalar("SELECT min(rental_price) FROM properties WHERE operation_type = 'RENT'")).toBeGreaterThanOrEqual(
      400,
    );
    // A season costs more per month than a year-long lease of the same kind of home.
    expect(
      scalar(
        "SELECT avg(rental_price) FROM properties WHERE operation_type = 'SEASONAL' AND property_type = 'Apartamento'",
      ),
    ).toBeGreaterThan(
      scalar(
        "SELECT avg(rental_price) FROM properties WHERE operation_type = 'RENT' AND property_type = 'Apartamento'",
      ),
    );
  });

  test("condominium fees only where there is a condominium", () => {
    expect(
      scalar(
        "SELECT count(*) FROM properties WHERE property_type IN ('Casa', 'Sobrado', 'Terreno', 'Chácara', 'Loja', 'Galpão') AND condominium_fee IS NOT NULL",
      ),
    ).toBe(0);
    expect(
      scalar(
        "SELECT avg(condominium_fee IS NOT NULL) FROM properties WHERE property_type IN ('Apartamento', 'Cobertura')",
      ),
    ).toBeGreaterThan(0.9);
  });

  test("financing is accepted mostly for sales, never for rentals", () => {
    expect(scalar("SELECT count(*) FROM properties WHERE operation_type <> 'SALE' AND accepts_financing = 1")).toBe(0);
    expect(scalar("SELECT avg(accepts_financing) FROM properties WHERE operation_type = 'SALE'")).toBeGreaterThan(0.5);
  });

  test("statuses fit the operation: no sold rental, no rented sale", () => {
    expect(scalar("SELECT count(*) FROM properties WHERE operation_type <> 'SALE' AND status = 'SOLD'")).toBe(0);
    expect(scalar("SELECT count(*) FROM properties WHERE operation_type = 'SALE' AND status = 'RENTED'")).toBe(0);
  });
});

describe("enumerations and mixes", () => {
  test("every property status and operation type occurs, mostly AVAILABLE", () => {
    expect(column("SELECT DISTINCT status FROM properties ORDER BY 1")).toEqual([...PROPERTY_STATUSES].sort());
    expect(column("SELECT DISTINCT operation_type FROM properties ORDER BY 1")).toEqual([...OPERATION_TYPES].sort());
    expect(scalar("SELECT avg(status = 'AVAILABLE') FROM properties")).toBeGreaterThan(0.7);
  });

  test("every highlight tier occurs, STANDARD the most", () => {
    expect(column("SELECT highlight FROM properties GROUP BY 1 ORDER BY count(*) DESC")).toEqual(
      Object.keys(HIGHLIGHT_WEIGHTS),
    );
  });

  test("exclusive and furnished are both mixed", () => {
    expect(scalar("SELECT avg(exclusive) FROM properties")).toBeGreaterThan(0.1);
    expect(scalar("SELECT avg(exclusive) FROM properties")).toBeLessThan(0.5);
    expect(scalar("SELECT avg(is_furnished) FROM properties")).toBeGreaterThan(0.05);
  });
});

describe("codes", () => {
  test("about 5 % have no code; the others are unique, like AP-004512", () => {
    const missing = scalar("SELECT avg(code IS NULL) FROM properties");
    expect(missing).toBeGreaterThan(0.02);
    expect(missing).toBeLessThan(0.08);
    expect(
      scalar("SELECT count(*) FROM properties WHERE code NOT GLOB '[A-Z][A-Z]-[0-9][0-9][0-9][0-9][0-9][0-9]'"),
    ).toBe(0);
    expect(scalar("SELECT count(DISTINCT code) FROM properties")).toBe(scalar("SELECT count(code) FROM properties"));
  });
});

describe("addresses", () => {
  const byName = new Map(CITIES.map((c) => [c.name, c]));
  const rows = () =>
    db.query("SELECT city, state, uf, neighborhood, cep, latitude, longitude FROM properties").all() as {
      city: string;
      state: string;
      uf: string;
      neighborhood: string;
      cep: string;
      latitude: number | null;
      longitude: number | null;
    }[];

  test("city, state, UF and neighbourhood are a real combination; the CEP is NNNNN-NNN in the city's range", () => {
    for (const r of rows()) {
      const city = byName.get(r.city)!;
      expect(city).toBeDefined();
      expect([r.state, r.uf]).toEqual([city.state, city.uf]);
      expect(city.neighborhoods).toContain(r.neighborhood);
      expect(r.cep).toMatch(/^\d{5}-\d{3}$/);
      const prefix = Number(r.cep.slice(0, 5));
      expect(prefix >= city.cep[0] && prefix <= city.cep[1]).toBe(true);
    }
  });

  test("coordinates fall inside the city's box, or are both null", () => {
    for (const r of rows()) {
      const city = byName.get(r.city)!;
      if (r.latitude === null || r.longitude === null) {
        expect([r.latitude, r.longitude]).toEqual([null, null]);
        continue;
      }
      expect(
        r.latitude >= city.lat[0] &&
          r.latitude <= city.lat[1] &&
          r.longitude >= city.lon[0] &&
          r.longitude <= city.lon[1],
      ).toBe(true);
    }
  });

  test("at least 25 cities across many states appear", () => {
    expect(scalar("SELECT count(DISTINCT city) FROM properties")).toBeGreaterThanOrEqual(25);
    expect(scalar("SELECT count(DISTINCT uf) FROM properties")).toBeGreaterThanOrEqual(15);
  });
});

describe("text", () => {
  test("titles and descriptions name the type's word, the neighbourhood and the city", () => {
    const rows = db
      .query("SELECT property_type, title, description, neighborhood, city FROM properties LIMIT 500")
      .all() as Record<string, string>[];
    for (const r of rows) {
      const word = r.property_type!.split(" ")[0]!.toLowerCase();
      expect(r.title!.toLowerCase()).toContain(word);
      expect(r.title).toContain(r.neighborhood!);
      expect(r.description!.toLowerCase()).toContain(word);
      expect(r.description).toContain(`bairro ${r.neighborhood}, em ${r.city}`);
    }
  });
});

describe("leads", () => {
  test("every source, status and priority value of the contract occurs", () => {
    expect(column("SELECT DISTINCT source FROM leads ORDER BY 1")).toEqual([...LEAD_SOURCES].sort());
    expect(column("SELECT DISTINCT status FROM leads ORDER BY 1")).toEqual([...LEAD_STATUSES].sort());
    expect(column("SELECT DISTINCT priority FROM leads ORDER BY 1")).toEqual([...LEAD_PRIORITIES].sort());
  });

  test("about 40 % are linked, each to a published property with its title, created before the lead", () => {
    const linked = scalar("SELECT avg(property_id IS NOT NULL) FROM leads");
    expect(linked).toBeGreaterThan(0.33);
    expect(linked).toBeLessThan(0.45);
    const mismatched = scalar(`SELECT count(*) FROM leads l LEFT JOIN properties p ON p.id = l.property_id
      WHERE l.property_id IS NOT NULL AND (p.id IS NULL OR p.is_published = 0 OR p.title IS NOT l.interested_property_title OR p.created_at > l.created_at)`);
    expect(mismatched).toBe(0);
  });

  test("unlinked leads have neither a property nor its title", () => {
    expect(
      scalar(
        "SELECT count(*) FROM leads WHERE property_id IS NULL AND (interested_property_title IS NOT NULL OR interested_property_link IS NOT NULL)",
      ),
    ).toBe(0);
  });

  test("links and traffic origins are set on some leads", () => {
    expect(scalar("SELECT count(*) FROM leads WHERE interested_property_link LIKE 'https://%'")).toBeGreaterThan(0);
    expect(scalar("SELECT count(*) FROM leads WHERE traffic_origin IS NOT NULL")).toBeGreaterThan(0);
    expect(scalar("SELECT count(*) FROM leads WHERE traffic_origin IS NULL")).toBeGreaterThan(0);
  });

  test("phones are Brazilian mobiles with a real DDD; e-mails come from the name on reserved domains", () => {
    const ddds = new Set(CITIES.map((c) => c.ddd));
    const rows = db.query("SELECT name, email, phone FROM leads LIMIT 1000").all() as {
      name: string;
      email: string;
      phone: string;
    }[];
    for (const r of rows) {
      expect(r.phone).toMatch(/^\+55 \d{2} 9\d{4}-\d{4}$/);
      expect(ddds.has(r.phone.slice(4, 6))).toBe(true);
      expect(r.email).toMatch(/^[a-z0-9._]+@(example\.(com|com\.br|net|org)|[a-z]+\.example)$/);
      const last = r.name
        .split(" ")
        .at(-1)!
        .normalize("NFD")
        .replace(/[\u0300-\u036f]/g, "")
        .toLowerCase();
      const first = r.name
        .split(" ")[0]!
        .normalize("NFD")
        .replace(/[\u0300-\u036f]/g, "")
        .toLowerCase();
      expect(r.email.includes(last) || r.email.startsWith(first)).toBe(true);
    }
  });

  test("messages are Portuguese; a linked lead's message quotes the listing", () => {
    const linked = db
      .query("SELECT message, interested_property_title t FROM leads WHERE property_id IS NOT NULL LIMIT 200")
      .all() as { message: string; t: string }[];
    for (const r of linked) expect(r.message).toContain(`"${r.t}"`);
    expect(
      column("SELECT message FROM leads WHERE property_id IS NULL LIMIT 200").every((m) =>
        /Olá|Bom dia|Procuro|Gostaria|Estou|Tenho/.test(String(m)),
      ),
    ).toBe(true);
  });

  test("a new lead was mostly left untouched; the others moved within two months", () => {
    expect(scalar("SELECT avg(updated_at = created_at) FROM leads WHERE status = 'NEW_LEAD'")).toBeGreaterThan(0.7);
    expect(scalar("SELECT max(julianday(updated_at) - julianday(created_at)) FROM leads")).toBeLessThanOrEqual(60);
  });
});
