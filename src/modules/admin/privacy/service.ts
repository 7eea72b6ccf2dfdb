// Personal data under the LGPD (docs/operators/personal-data.md), without HTTP: finding a
// person's leads, what was shared of them, and the one anonymization path every caller takes
// (the admin API, the console, the command line and retention). Anonymizing writes through the
// database's writer in short batches, then has the WAL copied back and cut to nothing, so no byte
// of what was erased stays in the database file or its WAL.
import type { Database } from "bun:sqlite";
import type { Clock } from "../../../clock.ts";
import type { Client } from "../../../config/model.ts";
import type { Tenant } from "../../../db/tenants.ts";
import { leadAccessOf } from "../../../security/scopes.ts";
import { type Subject, subjectOf } from "./identifiers.ts";
import { anonymizeLeads, deliveriesOf, findLeads, type LeadDelivery, type StoredLead } from "./repo.ts";

/** How long the WAL's cut after an anonymization may wait for readers on older snapshots. */
export const CUT_WAL_WITHIN_MS = 15_000;

/**
 * Leads anonymized per write: the writer is never held long, so lead creation keeps its pace
 * (100,000 leads of a million while 200 leads a second were created: creation p50 84 ms at 50 a
 * write, 295 ms at 200, on one shared core; bench/anonymize.ts).
 */
export const ANONYMIZE_BATCH = 50;

/** Whom a lead was shared with. */
export interface SharedWith {
  /** The client that sent it (null for a lead the agency loaded). */
  createdBy: string | null;
  /** The enabled clients of its database whose scopes let them read it now. */
  readers: string[];
  /** Every delivery of it still in the delivery log. */
  deliveries: { clientId: string; event: string; at: string; outcome: string }[];
}

export interface ExportedLead {
  lead: StoredLead;
  sharedWith: SharedWith;
}

/** Which clients may read a lead: those of its database with `leads:read`, or its creator with `leads:read:own`. */
export function readersOf(lead: Pick<StoredLead, "createdBy">, clients: readonly Client[]): string[] {
  return clients
    .filter((client) => client.enabled)
    .filter((client) => {
      const access = leadAccessOf(client);
      return access.kind === "all" || (access.kind === "own" && lead.createdBy === client.id);
    })
    .map((client) => client.id)
    .sort();
}

/** A person's leads and the deliveries of them, as a reader thread hands them over. */
export interface PersonFound {
  leads: StoredLead[];
  deliveries: LeadDelivery[];
}

/**
 * The leads of the person a query names (`email=` or `phone=`) and their deliveries, as JSON: a
 * scan of every lead (none is indexed by e-mail or phone: the writes of every lead would pay for
 * a search an agency makes a few times a month), so a reader thread runs it, never the event loop.
 */
export function personIn(db: Database, rawQuery: string): string {
  const params = new URLSearchParams(rawQuery);
  const subject = subjectOf(params.get("email"), params.get("phone"));
  const leads = subject === null ? [] : findLeads(db, subject);
  const found: PersonFound = {
    leads,
    deliveries: deliveriesOf(
      db,
      leads.map((lead) => lead.id),
    ),
  };
  return JSON.stringify(found);
}

/** The query personIn reads of a subject. */
export function personQuery(subject: Subject): string {
  return new URLSearchParams("email" in subject ? { email: subject.email } : { phone: subject.phone }).toString();
}

/** The export of a person: every lead with every field, and whom each was shared with. */
export function exportLeads(
  leads: readonly StoredLead[],
  leadDeliveries: readonly LeadDelivery[],
  clients: readonly Client[],
): ExportedLead[] {
  const deliveries = new Map<string, LeadDelivery[]>();
  for (const delivery of leadDeliveries) {
    const list = deliveries.get(delivery.leadId) ?? [];
    list.push(delivery);
    deliveries.set(delivery.leadId, list);
  }
  return leads.map((lead) => ({
    lead,
    sharedWith: {
      createdBy: lead.createdBy,
      readers: readersOf(lead, clients),
      deliveries: (deliveries.get(lead.id) ?? []).map((d) => ({
        clientId: d.clientId,
        event: d.event,
        at: d.at,
        outcome: d.lastStatus === null ? d.outcome : `${d.outcome} (HTTP ${d.lastStatus})`,
      })),
    },
  }));
}

/**
 * Anonymizes these leads of a served database through its writer, `ANONYMIZE_BATCH` at a time,
 * then has the WAL cut. Returns how many leads were anonymized (already anonymized ones and
 * unknown ids count for nothing).
 */
export async function anonymizeInTenant(
  tenant: Tenant,
  ids: readonly string[],
  clock: Clock,
  /** Cuts the WAL (TenantRegistry.cutWal: on the checkpointer's thread); null leaves it to the caller. */
  cutWal: ((path: string) => Promise<boolean>) | null,
): Promise<number> {
  let done = 0;
  for (let at = 0; at < ids.length; at += ANONYMIZE_BATCH) {
    const batch = ids.slice(at, at + ANONYMIZE_BATCH);
    done += await tenant.writer.submit(
      () => anonymizeLeads(tenant.write, batch, new Date(clock.now()).toISOString()).length,
    );
  }
  if (done > 0 && cutWal !== null) await cutWal(tenant.path);
  return done;
}

/** Anonymizes leads in a database file the command line opened, a transaction per batch; the caller cuts the WAL. */
export function anonymizeInFile(db: Database, ids: readonly string[], now: string): number {
  let done = 0;
  for (let at = 0; at < ids.length; at += ANONYMIZE_BATCH) {
    const batch = ids.slice(at, at + ANONYMIZE_BATCH);
    done += db.transaction(() => anonymizeLeads(db, batch, now).length).immediate();
  }
  return done;
}
