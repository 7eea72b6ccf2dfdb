// What SQLite itself spends on one lead's INSERT (its triggers and indexes), schema 7 (before
// lead owners) beside the current schema, in one process: the product's INSERT, in transactions
// of 100 as a group commit makes them, the files taking turns batch by batch, with the write
// connection's settings except synchronous (OFF here, so fsync stays out of the figure).
//
//   bun bench/lead-insert-cost.ts [--owners N] [--preload N] [--batches N]
//
// Each file is first loaded with --preload leads (default 20,000). --owners (default 1) is how
// many clients the new leads come from, in turn: 1 is the bench's post-leads (one client);
// more put each batch's leads at as many places of the owner's index. Run it pinned to one
// core (`taskset -c 1`); the ratio is per batch pair, median (min–max of the middle 80 %).
import { Database } from "bun:sqlite";
import { rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { MIGRATIONS } from "../src/db/migrate.ts";

const { values } = parseArgs({
  options: {
    owners: { type: "string", default: "1" },
    preload: { type: "string", default: "20000" },
    batches: { type: "string", default: "300" },
  },
});
const OWNERS = Number(values.owners);
const PRELOAD = Number(values.preload);
const BATCHES = Number(values.batches);
const BATCH = 100;

const BEFORE_OWNERS = 7;
const COLUMNS =
  "id, name, email, phone, message, source, status, priority, property_id, interested_property_title, " +
  "interested_property_link, traffic_origin, created_at, updated_at";

interface Subject {
  label: string;
  db: Database;
  insert: (i: number) => void;
  microsPerLead: number[];
}

let clock = Date.parse("2026-01-01T00:00:00Z");

function open(label: string, schema: number): Subject {
  const path = join(tmpdir(), `lead-insert-cost-${schema}.sqlite`);
  for (const suffix of ["", "-wal", "-shm"]) rmSync(path + suffix, { force: true });
  const db = new Database(path);
  for (const pragma of ["journal_mode = WAL", "synchronous = OFF", "foreign_keys = ON", "cache_size = -16384"])
    db.run(`PRAGMA ${pragma}`);
  MIGRATIONS.slice(0, schema).forEach((sql, version) => {
    db.transaction(() => {
      db.run(sql);
      db.run(`PRAGMA user_version = ${version + 1}`);
    })();
  });
  const owned = schema > BEFORE_OWNERS;
  const columns = owned ? `${COLUMNS}, created_by, origin_lead_id` : COLUMNS;
  const statement = db.prepare(
    `INSERT INTO leads (${columns}) VALUES (${columns
      .split(",")
      .map(() => "?")
      .join(", ")})` +
      (owned ? " ON CONFLICT (created_by, origin_lead_id) WHERE origin_lead_id IS NOT NULL DO NOTHING" : ""),
  );
  const insert = (i: number) => {
    clock += 1_500;
    const at = new Date(clock).toISOString();
    const lead = [Bun.randomUUIDv7("hex", clock), `Lead ${i}`, `lead${i}@example.com`, "+55 11 91234-5678"];
    const rest = ["Quero visitar", "WEBSITE", "NEW_LEAD", "MEDIUM", null, null, null, null, at, at];
    statement.run(...lead, ...rest, ...(owned ? [`client-${i % OWNERS}`, null] : []));
  };
  db.transaction(() => {
    for (let i = 0; i < PRELOAD; i++) insert(i);
  })();
  return { label, db, insert, microsPerLead: [] };
}

const subjects = [
  open(`schema ${BEFORE_OWNERS}`, BEFORE_OWNERS),
  open(`schema ${MIGRATIONS.length}`, MIGRATIONS.length),
];
let next = PRELOAD;
for (let batch = 0; batch < BATCHES; batch++) {
  for (const subject of batch % 2 === 0 ? subjects : [...subjects].reverse()) {
    const started = Bun.nanoseconds();
    subject.db.transaction(() => {
      for (let i = 0; i < BATCH; i++) subject.insert(next++);
    })();
    subject.microsPerLead.push((Bun.nanoseconds() - started) / 1_000 / BATCH);
  }
}

const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
const at = (values: number[], share: number) => values[Math.floor((values.length - 1) * share)]!;
for (const s of subjects) console.log(`${s.label}: ${at(sorted(s.microsPerLead), 0.5).toFixed(1)} µs a lead (median)`);
const ratios = sorted(subjects[1]!.microsPerLead.map((m, i) => m / subjects[0]!.microsPerLead[i]!));
console.log(
  `schema ${MIGRATIONS.length} ÷ schema ${BEFORE_OWNERS}, per batch pair: ${at(ratios, 0.5).toFixed(2)}× ` +
    `(${at(ratios, 0.1).toFixed(2)}×–${at(ratios, 0.9).toFixed(2)}×), ${OWNERS} owner(s), ${PRELOAD} leads preloaded`,
);
for (const s of subjects) s.db.close();
