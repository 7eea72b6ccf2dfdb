// The seed writes the same rows for the same options across changes to how it writes them: the
// fingerprints below were taken from the seed as it was before its loading was made faster
// (several generation and insert changes), and every table, the word index's postings and the
// schema must still match them. A change that means to alter the data updates them, and says so:
// schemas 10 and 11 added the change log's stream numbers (`changes`, `change_streams`), the
// empty `lead_anonymizations` and their schema; every other table kept its fingerprint.
import { afterAll, describe, expect, test } from "bun:test";
import { DEFAULT_SEED_OPTIONS, writeSeedDatabase } from "../../src/seed/generator.ts";
import { fingerprint } from "./fingerprint.ts";
import { tempFolder } from "./helpers.ts";

const RECORDED = [
  {
    properties: 3000,
    leads: 6000,
    seed: 42,
    fingerprint: {
      schema: "512e7663bcf635f7",
      changes: "7efaa338b9b6b2b9",
      change_streams: "fab35012cb4939ef",
      lead_anonymizations: "4f53cda18c2baa0c",
      date_order_exceptions: "98e2469d32685fe2",
      day_dimensions: "88b27ad0a7f94f09",
      feed_runs: "4f53cda18c2baa0c",
      idempotency_keys: "4f53cda18c2baa0c",
      lead_counts: "6f5acbd079325c26",
      lead_date_pairs: "a37a4a5807057789",
      lead_days: "708c48bc2a6b94dd",
      leads: "6f2adbe1e78d3bad",
      photos: "9e00b8b5c1e3e0e8",
      properties: "e4629548ccc7d2a4",
      property_counts: "441b4776c59c142c",
      property_date_pairs: "f689c4b62b77162e",
      property_days: "247da32f8c44addc",
      sqlite_sequence: "67c553f5706902cf",
      webhook_cursor: "465d674ce6bae791",
      webhook_deliveries: "4f53cda18c2baa0c",
      webhook_subscriptions: "4f53cda18c2baa0c",
      words: "972ab7dc2d893129",
      word_count: "135788",
    },
  },
  {
    properties: 2500,
    leads: 700,
    seed: 7,
    fingerprint: {
      schema: "512e7663bcf635f7",
      changes: "4febae5f8c8fb000",
      change_streams: "501e6e5caf9498a7",
      lead_anonymizations: "4f53cda18c2baa0c",
      date_order_exceptions: "98e2469d32685fe2",
      day_dimensions: "88b27ad0a7f94f09",
      feed_runs: "4f53cda18c2baa0c",
      idempotency_keys: "4f53cda18c2baa0c",
      lead_counts: "bca02c9ee0f4c358",
      lead_date_pairs: "68b3f14947448039",
      lead_days: "e52f4e7b490c1e8d",
      leads: "a0f9c74490a12d4d",
      photos: "004c56661c714068",
      properties: "f6d22b1d24e78b3a",
      property_counts: "18b764de6891ee7b",
      property_date_pairs: "67e9b180990c78c9",
      property_days: "824d39c6984f34cf",
      sqlite_sequence: "f3279bb7adba1ff1",
      webhook_cursor: "465d674ce6bae791",
      webhook_deliveries: "4f53cda18c2baa0c",
      webhook_subscriptions: "4f53cda18c2baa0c",
      words: "22e36ee963c5313f",
      word_count: "113006",
    },
  },
] as const;

const folder = tempFolder();
afterAll(() => folder.remove());

describe("the same data as recorded", () => {
  for (const { fingerprint: expected, ...sizes } of RECORDED) {
    test(`${sizes.properties} properties, ${sizes.leads} leads, seed ${sizes.seed}`, () => {
      const path = folder.path("seed.sqlite");
      writeSeedDatabase(path, { ...DEFAULT_SEED_OPTIONS, ...sizes });
      expect(fingerprint(path)).toEqual(expected);
    }, 60_000);
  }
});
