// `partner-api backup --db FILE --out FILE [--json]`: a consistent copy while the server runs;
// an existing --out is refused (exit 2).
import { BackupTargetExistsError, backupDatabase } from "../agency/backup.ts";
import { NotAPartnerDatabaseError } from "../db/open.ts";
import { assertWritable, explainDatabaseError } from "../writable.ts";
import { parseFlags, UsageError } from "./args.ts";

export async function backupCommand(args: string[]): Promise<number> {
  const { values } = parseFlags(args, { db: { type: "string" }, out: { type: "string" }, json: { type: "boolean" } });
  if (!values.db) throw new UsageError("--db FILE is required");
  if (!values.out) throw new UsageError("--out FILE is required");
  assertWritable(values.out, "the backup");
  try {
    const summary = backupDatabase(values.db, values.out);
    process.stdout.write(
      values.json
        ? JSON.stringify(summary) + "\n"
        : `backed up ${summary.database} to ${summary.out} (${summary.bytes} bytes, ${summary.ms} ms)\n`,
    );
    return 0;
  } catch (error) {
    if (error instanceof BackupTargetExistsError || error instanceof NotAPartnerDatabaseError)
      throw new UsageError(error.message);
    throw explainDatabaseError(error, values.out, "the backup");
  }
}
