// The product as the bench sees it: the compiled binary (rebuilt when src/ is newer), its
// seeded datasets (cached under bench/datasets/), and a working copy per run, since the
// write scenarios add leads and the cached dataset must stay as seeded.

import { Database } from "bun:sqlite";
import { copyFileSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from "node:fs";
import { cpus } from "node:os";
import { join, resolve } from "node:path";
import { SCHEMA_VERSION, schemaVersion } from "../../src/db/migrate.ts";
import { closeDatabase, openExistingDatabase } from "../../src/db/open.ts";

export const ROOT = resolve(import.meta.dir, "../..");
export const BINARY = join(ROOT, "dist/partner-api");
export const DATASETS = join(ROOT, "bench/datasets");
export const OUT = join(ROOT, "bench/out");

function newestMtime(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)));
  return newest;
}

function run(argv: string[], what: string): string {
  const proc = Bun.spawnSync(argv, { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
  if (proc.exitCode !== 0)
    throw new Error(`${what} failed (exit ${proc.exitCode}):\n${proc.stderr.toString()}${proc.stdout.toString()}`);
  return proc.stdout.toString().trim();
}

/** Builds dist/partner-api when it is missing or older than anything in src/. */
export function ensureBinary(log: (line: string) => void): string {
  const stale = !existsSync(BINARY) || newestMtime(join(ROOT, "src")) > statSync(BINARY).mtimeMs;
  if (stale) {
    log("building dist/partner-api (missing or older than src/) …");
    run([process.execPath, "run", "build"], "bun run build");
  }
  return run([BINARY, "--version"], "dist/partner-api --version");
}

export interface Dataset {
  label: string;
  properties: number;
  leads: number;
  seed: number;
}

export const DATASET_1K: Dataset = { label: "1k", properties: 1_000, leads: 1_000, seed: 42 };
export const DATASET_1M: Dataset = { label: "1M", properties: 1_000_000, leads: 1_000_000, seed: 42 };

export function seedCommand(dataset: Dataset, out: string, binary = BINARY): string[] {
  return [
    binary,
    "seed",
    "--out",
    out,
    "--properties",
    String(dataset.properties),
    "--leads",
    String(dataset.leads),
    "--seed",
    String(dataset.seed),
  ];
}

/**
 * A command run on every core: the seed writes with two threads, and the runner that starts it
 * keeps itself (and so, unless told otherwise, its children) to one core.
 */
function onEveryCore(argv: string[]): string[] {
  return ["taskset", "-c", `0-${cpus().length - 1}`, ...argv];
}

/** The cached dataset file, seeded first when missing (1M takes several minutes). */
export function ensureDataset(dataset: Dataset, log: (line: string) => void): string {
  mkdirSync(DATASETS, { recursive: true });
  const file = join(DATASETS, `p${dataset.properties}-l${dataset.leads}-s${dataset.seed}.sqlite`);
  if (existsSync(file)) {
    upgradeSchema(file, log);
    return file;
  }
  // Seeded under a temporary name and renamed, so an interrupted seed is never mistaken for a dataset.
  const partial = `${file}.partial`;
  for (const suffix of ["", "-wal", "-shm"]) rmSync(partial + suffix, { force: true });
  log(`seeding ${dataset.label} dataset (${dataset.properties} properties, ${dataset.leads} leads) into ${file} …`);
  const started = performance.now();
  run(onEveryCore(seedCommand(dataset, partial)), "seeding");
  renameSync(partial, file);
  log(`  seeded in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  return file;
}

/**
 * A dataset seeded by an older version gets the current schema once, in place: otherwise every
 * run's copy would be migrated by the product at start (about a minute at 1M).
 */
function upgradeSchema(file: string, log: (line: string) => void): void {
  const db = new Database(file, { readonly: true });
  const version = schemaVersion(db);
  db.close();
  if (version >= SCHEMA_VERSION) return;
  log(`upgrading the cached dataset ${file} from schema ${version} to ${SCHEMA_VERSION} …`);
  const started = performance.now();
  closeDatabase(openExistingDatabase(file));
  log(`  upgraded in ${((performance.now() - started) / 1000).toFixed(0)} s`);
}

/** A fresh copy of the dataset for one run; removed by the caller when the run ends. */
export function workingCopy(dataset: Dataset, source: string): string {
  const copy = join(folderOfItsOwn(`work-${dataset.label}`), `work-${dataset.label}.sqlite`);
  copyFileSync(source, copy);
  return copy;
}

/**
 * An empty folder under bench/out for one server's files: a sandbox keeps its control database
 * beside its dataset (sandbox-control.sqlite), and two servers must never share one (another
 * build may not open its schema, and each records its own requests there).
 */
function folderOfItsOwn(name: string): string {
  const folder = join(OUT, name);
  rmSync(folder, { recursive: true, force: true });
  mkdirSync(folder, { recursive: true });
  return folder;
}

export function removeDatabase(path: string): void {
  for (const suffix of ["", "-wal", "-shm"]) rmSync(path + suffix, { force: true });
}

export function sandboxArgv(db: string, port: number, binary = BINARY): string[] {
  return [binary, "sandbox", "--port", String(port), "--db", db, "--rate-limit", "1000000000"];
}

/** `serve` on a config file, listening on this machine only. */
export function serveArgv(config: string, port: number, binary = BINARY): string[] {
  return [binary, "serve", "--config", config, "--port", String(port), "--host", "127.0.0.1"];
}

export interface SeedMeasurement {
  seconds: number;
  /** Peak resident set of the seeding process (getrusage's maxrss). */
  peakRssMb: number;
  command: string;
}

/**
 * Seeds the dataset afresh into bench/out and times it, so a regression of the seed's time or
 * memory shows in every run (the cached dataset is seeded once and never again). Timed as an
 * agency runs it, on every core of the machine.
 */
export async function measureSeed(dataset: Dataset): Promise<SeedMeasurement> {
  mkdirSync(OUT, { recursive: true });
  const out = join(OUT, `seed-${dataset.label}.sqlite`);
  removeDatabase(out);
  const argv = onEveryCore(seedCommand(dataset, out));
  const started = performance.now();
  const proc = Bun.spawn(argv, { cwd: ROOT, stdout: "ignore", stderr: "pipe" });
  const code = await proc.exited;
  const seconds = (performance.now() - started) / 1000;
  removeDatabase(out);
  if (code !== 0) throw new Error(`seeding failed (exit ${code}):\n${await new Response(proc.stderr).text()}`);
  return { seconds, peakRssMb: (proc.resourceUsage()?.maxRSS ?? 0) / (1024 * 1024), command: argv.join(" ") };
}

/**
 * The dataset as another build seeds it, cached like this build's under bench/datasets/, in a
 * folder named for that binary's size and time (a rebuilt binary seeds its own anew).
 */
export function compareDataset(binary: string, dataset: Dataset, log: (line: string) => void): string {
  const stat = statSync(binary);
  const folder = join(DATASETS, `compare-${stat.size}-${Math.floor(stat.mtimeMs)}`);
  mkdirSync(folder, { recursive: true });
  const file = join(folder, `p${dataset.properties}-l${dataset.leads}-s${dataset.seed}.sqlite`);
  if (existsSync(file)) return file;
  const partial = `${file}.partial`;
  removeDatabase(partial);
  log(`seeding ${dataset.label} dataset with ${binary} into ${file} …`);
  run(onEveryCore(seedCommand(dataset, partial, binary)), "seeding with the --compare build");
  renameSync(partial, file);
  return file;
}

/**
 * A working copy in bench/out of the dataset as another build seeds it (compareDataset): a build
 * compared with --compare may not open a file of a newer schema, and the seed is deterministic,
 * so the rows are the same.
 */
export function seededBy(binary: string, dataset: Dataset, log: (line: string) => void): string {
  const source = compareDataset(binary, dataset, log);
  const out = join(folderOfItsOwn(`compare-${dataset.label}`), `compare-${dataset.label}.sqlite`);
  copyFileSync(source, out);
  return out;
}
