// `partner-api seed --out FILE [--properties N] [--leads N] [--seed S] [--as-of ISO] [--force]`.
import { parseDateTime } from "../query/params.ts";
import { DEFAULT_SEED_OPTIONS, writeSeedDatabase } from "../seed/generator.ts";
import { terminalProgress } from "../seed/progress.ts";
import { assertWritable } from "../writable.ts";
import { integerFlag, parseFlags, UsageError } from "./args.ts";

export function seedCommand(args: string[]): void {
  const { values } = parseFlags(args, {
    out: { type: "string" },
    properties: { type: "string" },
    leads: { type: "string" },
    seed: { type: "string" },
    "as-of": { type: "string" },
    force: { type: "boolean" },
  });
  if (!values.out) throw new UsageError("--out FILE is required");
  let asOf = DEFAULT_SEED_OPTIONS.asOf;
  if (values["as-of"] !== undefined) {
    const parsed = parseDateTime(values["as-of"]);
    if (parsed === null) throw new UsageError(`--as-of must be an ISO 8601 date-time, got "${values["as-of"]}"`);
    asOf = parsed;
  }
  const options = {
    ...DEFAULT_SEED_OPTIONS,
    properties: integerFlag(values.properties, "properties", 0, 10_000_000) ?? DEFAULT_SEED_OPTIONS.properties,
    leads: integerFlag(values.leads, "leads", 0, 10_000_000) ?? DEFAULT_SEED_OPTIONS.leads,
    seed: integerFlag(values.seed, "seed", 0, 2 ** 32 - 1) ?? DEFAULT_SEED_OPTIONS.seed,
    asOf,
    overwrite: values.force === true,
    onProgress: terminalProgress("seeding"),
  };
  assertWritable(values.out, "the database", { sqlite: true });
  const summary = writeSeedDatabase(values.out, options);
  process.stdout.write(JSON.stringify(summary) + "\n");
}
