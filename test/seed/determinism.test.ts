// Same options, same dataset (down to the file's bytes); another seed, another dataset; each count leaves the other entity alone.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { DATA_TABLES, dumpTable, openReadonly, seed, type TempFolder, tempFolder } from "./helpers.ts";

/** Five builds: smaller than the rules' dataset, still every table and branch. */
const SIZES = { properties: 1000, leads: 2000 };

let folder: TempFolder;
const dumps = new Map<string, Record<string, string>>();
const paths = new Map<string, string>();

function dumpAll(path: string): Record<string, string> {
  const db = openReadonly(path);
  try {
    return Object.fromEntries(DATA_TABLES.map((table) => [table, dumpTable(db, table)]));
  } finally {
    db.close();
  }
}

beforeAll(() => {
  folder = tempFolder();
  const variants = {
    first: {},
    again: {},
    otherSeed: { seed: 43 },
    fewerLeads: { leads: SIZES.leads / 2 },
    laterAsOf: { asOf: "2026-06-01T00:00:00.000Z" },
  };
  for (const [name, options] of Object.entries(variants)) {
    const { path } = seed(folder, { ...SIZES, ...options });
    paths.set(name, path);
    dumps.set(name, dumpAll(path));
  }
}, 60_000);

afterAll(() => folder.remove());

describe("determinism", () => {
  test("two runs with the same options write identical table contents, ids included", () => {
    expect(dumps.get("again")).toEqual(dumps.get("first")!);
  });

  test("two runs with the same options write byte-identical files", () => {
    const hash = (name: string) => Bun.hash(readFileSync(paths.get(name)!)).toString();
    expect(hash("again")).toBe(hash("first"));
  });

  test("another seed gives other data in every generated table", () => {
    for (const table of ["properties", "photos", "leads"]) {
      expect(dumps.get("otherSeed")![table]).not.toBe(dumps.get("first")![table]);
    }
  });

  test("the lead count does not change the properties or their photos", () => {
    expect(dumps.get("fewerLeads")!.properties).toBe(dumps.get("first")!.properties);
    expect(dumps.get("fewerLeads")!.photos).toBe(dumps.get("first")!.photos);
  });

  test("asOf moves the dates", () => {
    const db = openReadonly(paths.get("laterAsOf")!);
    try {
      const { latest } = db.query("SELECT max(updated_at) AS latest FROM properties").get() as { latest: string };
      expect(latest > "2026-01-01T00:00:00.000Z").toBe(true);
      expect(latest <= "2026-06-01T00:00:00.000Z").toBe(true);
    } finally {
      db.close();
    }
  });
});

describe("change feed stamps", () => {
  test("every change row is stamped with asOf, not the wall clock", () => {
    const db = openReadonly(paths.get("first")!);
    try {
      expect(db.query("SELECT DISTINCT at FROM changes").values()).toEqual([["2026-01-01T00:00:00.000Z"]]);
    } finally {
      db.close();
    }
  });
});
