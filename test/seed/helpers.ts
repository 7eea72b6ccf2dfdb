// Shared by the seed tests: a temp folder per file, seeded databases built once per options, whole-table dumps.
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  DEFAULT_SEED_OPTIONS,
  type SeedOptions,
  type SeedSummary,
  writeSeedDatabase,
} from "../../src/seed/generator.ts";

/** Enough rows for the shares (10 % unpublished, 40 % linked) to settle, small enough to build in well under a second. */
export const TEST_SIZES = { properties: 3000, leads: 6000 } as const;

export interface TempFolder {
  path(name: string): string;
  remove(): void;
}

export function tempFolder(): TempFolder {
  const dir = mkdtempSync(join(tmpdir(), "partner-api-seed-"));
  let files = 0;
  return {
    path: (name) => join(dir, `${files++}-${name}`),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

export function seed(folder: TempFolder, options: Partial<SeedOptions> = {}): { path: string; summary: SeedSummary } {
  const path = folder.path("seed.sqlite");
  const summary = writeSeedDatabase(path, { ...DEFAULT_SEED_OPTIONS, ...TEST_SIZES, ...options });
  return { path, summary };
}

export function openReadonly(path: string): Database {
  return new Database(path, { readonly: true, strict: true });
}

export const DATA_TABLES = [
  "properties",
  "photos",
  "leads",
  "changes",
  "property_counts",
  "lead_counts",
  "property_days",
  "lead_days",
  "date_order_exceptions",
  "property_date_pairs",
  "lead_date_pairs",
] as const;

/** Every row of a table in a fixed order, as one string: equal dumps mean equal contents. */
export function dumpTable(db: Database, table: string): string {
  const order =
    table === "photos"
      ? "property_id, position"
      : table.endsWith("_counts") || table.endsWith("_days")
        ? "1, 2, 3, 4"
        : table.endsWith("_date_pairs")
          ? "1, 2, 3"
          : table === "date_order_exceptions"
            ? "entity"
            : "rowid";
  return JSON.stringify(db.query(`SELECT * FROM ${table} ORDER BY ${order}`).values());
}
