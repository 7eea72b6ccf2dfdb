// `partner-api privacy find|export|anonymize --db FILE (--email E | --phone P | --lead ID…)
// [--config FILE] [--json]`: personal data of a person (docs/operators/personal-data.md) on a
// database file, served or not. Anonymizing takes the server's one path; a running server sends
// `lead.anonymized` from the change log as for any change, and one started later does so then.
import type { Database } from "bun:sqlite";
import { resolve } from "node:path";
import { loadConfigFile } from "../config/load.ts";
import type { Client } from "../config/model.ts";
import { closeDatabase, NotAPartnerDatabaseError, openExistingDatabase } from "../db/open.ts";
import { cutWalHere } from "../db/tenants.ts";
import { type Subject, subjectOf } from "../modules/admin/privacy/identifiers.ts";
import { deliveriesOf, findLeads, leadsById } from "../modules/admin/privacy/repo.ts";
import { anonymizeInFile, CUT_WAL_WITHIN_MS, exportLeads } from "../modules/admin/privacy/service.ts";
import { parseFlags, UsageError } from "./args.ts";

const USAGE = "privacy find|export|anonymize --db FILE (--email E | --phone P | --lead ID…) [--config FILE] [--json]";

function open(path: string): Database {
  try {
    return openExistingDatabase(path);
  } catch (error) {
    if (error instanceof NotAPartnerDatabaseError) throw new UsageError(error.message);
    throw error;
  }
}

/** The config's clients of the database at `db`, for the export's readers; none without --config. */
function clientsFor(configPath: string | undefined, db: string): Client[] {
  if (configPath === undefined) return [];
  const config = loadConfigFile(configPath);
  const path = [...config.databases.values()].find((p) => p === resolve(db));
  if (path === undefined)
    throw new UsageError(
      `--config ${configPath} names no database at ${db} (it names ${[...config.databases.values()].join(", ") || "none"})`,
    );
  return [...config.clients.values()].filter((client) => client.databasePath === path);
}

export async function privacyCommand(args: string[]): Promise<number> {
  const [action, ...rest] = args;
  if (action !== "find" && action !== "export" && action !== "anonymize")
    throw new UsageError(`usage: partner-api ${USAGE}`);
  const { values } = parseFlags(rest, {
    db: { type: "string" },
    email: { type: "string" },
    phone: { type: "string" },
    lead: { type: "string", multiple: true },
    config: { type: "string" },
    json: { type: "boolean" },
  });
  if (!values.db) throw new UsageError("--db FILE is required");
  const leadIds = values.lead ?? [];
  const given = [values.email, values.phone, leadIds.length > 0 ? leadIds : undefined].filter((v) => v !== undefined);
  if (given.length !== 1) throw new UsageError("give exactly one of --email, --phone or --lead ID (repeatable)");
  if (leadIds.length > 0 && action !== "anonymize")
    throw new UsageError("--lead is for anonymize; find and export take --email or --phone");
  let subject: Subject | null = null;
  if (leadIds.length === 0) {
    subject = subjectOf(values.email, values.phone);
    if (subject === null)
      throw new UsageError(values.email !== undefined ? "--email is empty" : "--phone has no digits");
  }
  const clients = action === "export" ? clientsFor(values.config, values.db) : [];

  const db = open(values.db);
  try {
    const leads = subject === null ? leadsById(db, leadIds) : findLeads(db, subject);
    if (action === "find") {
      process.stdout.write(`${JSON.stringify({ data: leads }, null, 2)}\n`);
      return 0;
    }
    if (action === "export") {
      process.stdout.write(
        `${JSON.stringify(
          {
            data: {
              leads: exportLeads(
                leads,
                deliveriesOf(
                  db,
                  leads.map((lead) => lead.id),
                ),
                clients,
              ),
            },
          },
          null,
          2,
        )}\n`,
      );
      return 0;
    }
    const anonymized = anonymizeInFile(
      db,
      leads.map((lead) => lead.id),
      new Date().toISOString(),
    );
    // The command's own checkpoint cannot cut the WAL while a server reads an older snapshot: wait for it a while.
    const walCleared = anonymized === 0 || (await cutWalHere(values.db, CUT_WAL_WITHIN_MS));
    if (values.json) process.stdout.write(`${JSON.stringify({ anonymized, walCleared })}\n`);
    else {
      process.stdout.write(`anonymized ${anonymized} lead${anonymized === 1 ? "" : "s"}\n`);
      if (!walCleared)
        process.stderr.write(
          "the WAL could not be cut yet (a reader held it): the server's next checkpoint copies it back\n",
        );
    }
    return 0;
  } finally {
    closeDatabase(db);
  }
}
