// What SQLite itself spends on durable lead creation, an earlier schema (7 by default: before
// lead owners; --before 9: before the change log's per-stream numbers) beside the current
// schema, in one process: the time of one group commit of leads, and the pages it writes
// to the WAL, per table and index. Each file's connection has the server's write connection's
// settings, read from a connection the product opened (src/db/open.ts: temp_store = MEMORY, the
// page cache, …) and the writer's synchronous = NORMAL (src/db/group-commit.ts: the WAL is
// synced off the event loop, so no fsync is in a commit); each batch is one transaction with a
// savepoint per lead, the product's INSERT in it, as the writer runs them. The files take turns
// batch by batch.
//
//   bun bench/lead-insert-cost.ts [--before N] [--owners N] [--preload N] [--batches N] [--batch N]
//
// Each file is first loaded with --preload leads (default 20,000). --batch is the leads of one
// group commit (default 50: post-leads' 50 connections each wait for their answer). --owners
// (default 1) is how many clients the new leads come from, in turn: 1 is the bench's post-leads
// (one client); more put each batch's leads at as many places of the owner's index. Before each
// batch the WAL is checkpointed and cut to nothing (untimed), so after it the WAL holds exactly
// the pages that one commit wrote; their owners come from dbstat. Run it pinned to one core
// (`taskset -c 1`); the time ratio is per batch pair, median (10th–90th percentile).
import { Database } from "bun:sqlite";
import { readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { MIGRATIONS, migrate } from "../src/db/migrate.ts";
import { closeDatabase, openDatabase } from "../src/db/open.ts";

const { values } = parseArgs({
  options: {
    before: { type: "string", default: "7" },
    owners: { type: "string", default: "1" },
    preload: { type: "string", default: "20000" },
    batches: { type: "string", default: "300" },
    batch: { type: "string", default: "50" },
  },
});
const OWNERS = Number(values.owners);
const PRELOAD = Number(values.preload);
const BATCHES = Number(values.batches);
const BATCH = Number(values.batch);

/** The last schema without lead owners (migration 8 adds created_by and origin_lead_id). */
const BEFORE_OWNERS = 7;
const BEFORE = Number(values.before);
if (!Number.isInteger(BEFORE) || BEFORE < 1 || BEFORE >= MIGRATIONS.length) {
  console.error(`--before must be a schema version from 1 to ${MIGRATIONS.length - 1}`);
  process.exit(2);
}
const COLUMNS =
  "id, name, email, phone, message, source, status, priority, property_id, interested_property_title, " +
  "interested_property_link, traffic_origin, created_at, updated_at";
/** The write connection's settings that shape a commit, as the product sets them. */
const SETTINGS = ["journal_mode", "foreign_keys", "cache_size", "temp_store", "journal_size_limit", "busy_timeout"];
const WAL_HEADER = 32;
const FRAME_HEADER = 24;

/** The settings of a connection the product opened, read back from it. */
function productSettings(): [string, string | number][] {
  const path = join(tmpdir(), "lead-insert-cost-reference.sqlite");
  for (const suffix of ["", "-wal", "-shm"]) rmSync(path + suffix, { force: true });
  const db = openDatabase(path);
  const settings = SETTINGS.map((name): [string, string | number] => [
    name,
    Object.values(db.query(`PRAGMA ${name}`).get() as Record<string, string | number>)[0]!,
  ]);
  closeDatabase(db);
  for (const suffix of ["", "-wal", "-shm"]) rmSync(path + suffix, { force: true });
  return settings;
}

interface Subject {
  label: string;
  db: Database;
  wal: string;
  insert: (i: number) => void;
  microsPerLead: number[];
  /** Pages one commit wrote to the WAL, per batch, and per table or index over every batch. */
  pagesPerCommit: number[];
  pagesByName: Map<string, number>;
}

let clock = Date.parse("2026-01-01T00:00:00Z");

function open(label: string, schema: number, settings: [string, string | number][]): Subject {
  const path = join(tmpdir(), `lead-insert-cost-${schema}.sqlite`);
  for (const suffix of ["", "-wal", "-shm"]) rmSync(path + suffix, { force: true });
  const db = new Database(path);
  for (const [name, value] of settings) db.run(`PRAGMA ${name} = ${value}`);
  // The group-commit writer's level in WAL mode; checkpoints are this tool's, between batches.
  db.run("PRAGMA synchronous = NORMAL");
  db.run("PRAGMA wal_autocheckpoint = 0");
  migrate(db, MIGRATIONS.slice(0, schema));
  const owned = schema > BEFORE_OWNERS;
  const columns = owned ? `${COLUMNS}, created_by, origin_lead_id` : COLUMNS;
  // The product's INSERT (src/modules/leads/repo.ts), and the same without the owner's columns.
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
  return {
    label,
    db,
    wal: `${path}-wal`,
    insert,
    microsPerLead: [],
    pagesPerCommit: [],
    pagesByName: new Map(),
  };
}

/** The page numbers of the frames in the WAL (one commit's, after a truncating checkpoint). */
function walPages(wal: string): number[] {
  const bytes = readFileSync(wal);
  if (bytes.length < WAL_HEADER) return [];
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const pageSize = view.getUint32(8);
  const pages: number[] = [];
  for (let at = WAL_HEADER; at + FRAME_HEADER + pageSize <= bytes.length; at += FRAME_HEADER + pageSize)
    pages.push(view.getUint32(at));
  return pages;
}

/** One group commit of BATCH leads, timed; then the pages it wrote, counted by their table or index. */
function commitBatch(subject: Subject, first: number): void {
  const { db } = subject;
  db.run("PRAGMA wal_checkpoint(TRUNCATE)");
  const started = Bun.nanoseconds();
  db.run("BEGIN IMMEDIATE");
  for (let i = 0; i < BATCH; i++) {
    db.run("SAVEPOINT job");
    subject.insert(first + i);
    db.run("RELEASE job");
  }
  db.run("COMMIT");
  subject.microsPerLead.push((Bun.nanoseconds() - started) / 1_000 / BATCH);
  const pages = walPages(subject.wal);
  subject.pagesPerCommit.push(pages.length);
  const owners = new Map(
    (db.query("SELECT pageno, name FROM dbstat").values() as [number, string][]).map(([page, name]) => [page, name]),
  );
  for (const page of pages) {
    const name = owners.get(page) ?? "(no table: free list, header)";
    subject.pagesByName.set(name, (subject.pagesByName.get(name) ?? 0) + 1);
  }
}

const settings = productSettings();
const subjects = [
  open(`schema ${BEFORE}`, BEFORE, settings),
  open(`schema ${MIGRATIONS.length}`, MIGRATIONS.length, settings),
];
let next = PRELOAD;
for (let batch = 0; batch < BATCHES; batch++) {
  for (const subject of batch % 2 === 0 ? subjects : [...subjects].reverse()) commitBatch(subject, next);
  next += BATCH;
}

const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
const at = (values: number[], share: number) => values[Math.floor((values.length - 1) * share)]!;
const mean = (values: number[]) => values.reduce((sum, v) => sum + v, 0) / values.length;
const [before, after] = subjects as [Subject, Subject];
console.log(
  `settings: ${settings.map(([name, value]) => `${name}=${value}`).join(", ")}, synchronous=NORMAL; ` +
    `${BATCH} leads a commit, ${OWNERS} owner(s), ${PRELOAD} leads preloaded, ${BATCHES} commits each`,
);
for (const s of subjects)
  console.log(
    `${s.label}: ${at(sorted(s.microsPerLead), 0.5).toFixed(1)} µs a lead (median), ` +
      `${mean(s.pagesPerCommit).toFixed(1)} WAL pages a commit (mean)`,
  );
const ratios = sorted(after.microsPerLead.map((m, i) => m / before.microsPerLead[i]!));
console.log(
  `schema ${MIGRATIONS.length} ÷ schema ${BEFORE}: time per batch pair ${at(ratios, 0.5).toFixed(2)}× ` +
    `(${at(ratios, 0.1).toFixed(2)}×–${at(ratios, 0.9).toFixed(2)}×), WAL pages a commit ` +
    `${(mean(after.pagesPerCommit) / mean(before.pagesPerCommit)).toFixed(2)}×`,
);
console.log("\nWAL pages a commit, by table or index (mean over the commits):\n");
console.log(`| table or index | ${before.label} | ${after.label} |`);
console.log("|---|---|---|");
const names = [...new Set([...before.pagesByName.keys(), ...after.pagesByName.keys()])].sort();
for (const name of names) {
  const perCommit = (s: Subject) =>
    s.pagesByName.has(name) ? (s.pagesByName.get(name)! / s.pagesPerCommit.length).toFixed(1) : "–";
  console.log(`| ${name} | ${perCommit(before)} | ${perCommit(after)} |`);
}
for (const s of subjects) s.db.close();
