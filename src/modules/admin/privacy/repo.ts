// The SQL of personal data (docs/operators/personal-data.md): finding a person's leads, what was
// shared of them, and the anonymization itself, on a connection the caller hands over (the
// server's writer, or the command line's own), inside the caller's transaction for writes.
import type { Database } from "bun:sqlite";
import { foldEmail, foldPhone, type Subject } from "./identifiers.ts";

/** What an anonymized lead's name becomes; its e-mail, phone and message become "". */
export const ANONYMIZED_NAME = "Titular anonimizado";

/** A lead with every stored field, as the admin API shows it. */
export interface StoredLead {
  id: string;
  name: string;
  email: string;
  phone: string;
  message: string;
  source: string;
  status: string;
  priority: string;
  propertyId: string | null;
  interestedPropertyTitle: string | null;
  interestedPropertyLink: string | null;
  trafficOrigin: string | null;
  createdAt: string;
  updatedAt: string;
  createdBy: string | null;
  originLeadId: string | null;
}

const LEAD_COLUMNS =
  "id, name, email, phone, message, source, status, priority, property_id AS propertyId, " +
  "interested_property_title AS interestedPropertyTitle, interested_property_link AS interestedPropertyLink, " +
  "traffic_origin AS trafficOrigin, created_at AS createdAt, updated_at AS updatedAt, created_by AS createdBy, " +
  "origin_lead_id AS originLeadId";

/** The phone's characters that are not digits, as people write them: removed in SQL before comparing. */
const PHONE_DIGITS_SQL = [" ", "-", "(", ")", "+", ".", "/"].reduce(
  (expression, character) => `replace(${expression}, '${character}', '')`,
  "phone",
);

/** Lists of ids are passed as one JSON array. */
const IDS = "(SELECT value FROM json_each(?))";

/** Every lead of the person, oldest first. A phone is narrowed in SQL by its last digits, then compared whole. */
export function findLeads(db: Database, subject: Subject): StoredLead[] {
  if ("email" in subject) {
    const email = foldEmail(subject.email);
    if (email === "") return [];
    // SQLite folds ASCII only: an address with other letters is narrowed by its length, then folded here.
    if (/^[\x00-\x7f]*$/.test(email))
      return db
        .query<StoredLead, [string]>(
          `SELECT ${LEAD_COLUMNS} FROM leads WHERE lower(trim(email)) = ? ORDER BY created_at, id`,
        )
        .all(email);
    return db
      .query<StoredLead, [number]>(
        `SELECT ${LEAD_COLUMNS} FROM leads WHERE length(trim(email)) = ? ORDER BY created_at, id`,
      )
      .all(email.length)
      .filter((lead) => foldEmail(lead.email) === email);
  }
  const phone = foldPhone(subject.phone);
  if (phone.length < 8) return [];
  const tail = phone.slice(-8);
  return db
    .query<StoredLead, [string]>(
      `SELECT ${LEAD_COLUMNS} FROM leads WHERE phone <> '' AND instr(${PHONE_DIGITS_SQL}, ?) > 0 ORDER BY created_at, id`,
    )
    .all(tail)
    .filter((lead) => foldPhone(lead.phone) === phone);
}

/** The leads with these ids, in the order given; ids not found are left out. */
export function leadsById(db: Database, ids: readonly string[]): StoredLead[] {
  if (ids.length === 0) return [];
  const rows = db
    .query<StoredLead, [string]>(`SELECT ${LEAD_COLUMNS} FROM leads WHERE id IN ${IDS}`)
    .all(JSON.stringify(ids));
  const byId = new Map(rows.map((row) => [row.id, row]));
  return ids.map((id) => byId.get(id)).filter((row): row is StoredLead => row !== undefined);
}

/** One webhook delivery of a lead, as the export shows it. */
export interface LeadDelivery {
  leadId: string;
  clientId: string;
  subscriptionId: string;
  event: string;
  at: string;
  outcome: "pending" | "succeeded" | "failed";
  attempts: number;
  lastStatus: number | null;
}

/** Every delivery of these leads still in the delivery log (finished ones are pruned after a while), oldest first. */
export function deliveriesOf(db: Database, leadIds: readonly string[]): LeadDelivery[] {
  if (leadIds.length === 0) return [];
  return db
    .query<Omit<LeadDelivery, "at"> & { at: number }, [string]>(
      "SELECT d.record_id AS leadId, s.client_id AS clientId, d.subscription_id AS subscriptionId, d.type AS event, " +
        "coalesce(d.last_attempt_at, d.created_at) AS at, d.state AS outcome, d.attempts, d.last_status AS lastStatus " +
        "FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id " +
        `WHERE d.record_id IN ${IDS} ORDER BY d.n`,
    )
    .all(JSON.stringify(leadIds))
    .map((row) => ({ ...row, at: new Date(row.at).toISOString() }));
}

/** Whether the lead already holds nothing of the person. */
export function isAnonymized(
  lead: Pick<StoredLead, "name" | "email" | "phone" | "message" | "interestedPropertyLink" | "trafficOrigin">,
): boolean {
  return (
    lead.name === ANONYMIZED_NAME &&
    lead.email === "" &&
    lead.phone === "" &&
    lead.message === "" &&
    lead.interestedPropertyLink === null &&
    lead.trafficOrigin === null
  );
}

/** Drops the marks whose change-log entry compaction removed (inside a write); returns how many. */
export function pruneAnonymizationMarks(db: Database): number {
  return db
    .query(
      "DELETE FROM lead_anonymizations WHERE NOT EXISTS (SELECT 1 FROM changes c WHERE c.sequence = lead_anonymizations.sequence)",
    )
    .run().changes;
}

/** The ids of up to `limit` leads not updated since `before` (ISO) that still hold personal data, oldest first. */
export function expiredLeads(db: Database, before: string, limit: number): string[] {
  return db
    .query<{ id: string }, [string, string, number]>(
      "SELECT id FROM leads WHERE updated_at < ? AND NOT (name = ? AND email = '' AND phone = '' AND message = '' " +
        "AND interested_property_link IS NULL AND traffic_origin IS NULL) ORDER BY updated_at, id LIMIT ?",
    )
    .all(before, ANONYMIZED_NAME, limit)
    .map((row) => row.id);
}

/**
 * Anonymizes these leads; must run inside a write transaction on `db`. The lead's update goes
 * through the lead update trigger like any other (the change log numbers it, the change feed
 * shows it); its entry is then marked as an anonymization, with the clients that were sent the
 * lead, so dispatch sends them `lead.anonymized`. Every other copy of the person's data goes in
 * the same transaction: the idempotency answers that held the lead are rewritten, and the
 * deliveries still waiting to be sent again (their bodies hold the old record) end, since
 * `lead.anonymized` replaces them. Returns the ids anonymized (already anonymized ones are left alone).
 */
export function anonymizeLeads(db: Database, ids: readonly string[], now: string): string[] {
  const leads = leadsById(db, ids).filter((lead) => !isAnonymized(lead));
  if (leads.length === 0) return [];
  const leadIds = leads.map((lead) => lead.id);
  const list = JSON.stringify(leadIds);

  const received = new Map<string, Set<string>>(leads.map((lead) => [lead.id, new Set<string>()]));
  for (const lead of leads) if (lead.createdBy !== null) received.get(lead.id)!.add(lead.createdBy);
  const sentTo = db
    .query<{ leadId: string; clientId: string }, [string]>(
      "SELECT DISTINCT d.record_id AS leadId, s.client_id AS clientId FROM webhook_deliveries d " +
        `JOIN webhook_subscriptions s ON s.id = d.subscription_id WHERE d.record_id IN ${IDS}`,
    )
    .all(list);
  for (const { leadId, clientId } of sentTo) received.get(leadId)?.add(clientId);

  const update = db.prepare<unknown, [string, string, string]>(
    "UPDATE leads SET name = ?, email = '', phone = '', message = '', interested_property_link = NULL, " +
      "traffic_origin = NULL, updated_at = ? WHERE id = ?",
  );
  const entry = db.prepare<{ sequence: number | null }, [string]>(
    "SELECT max(sequence) AS sequence FROM changes WHERE entity = 'leads' AND record_id = ?",
  );
  const mark = db.prepare<unknown, [number, string, string, string]>(
    "INSERT INTO lead_anonymizations (sequence, lead_id, notify, at) VALUES (?, ?, ?, ?)",
  );
  for (const lead of leads) {
    update.run(ANONYMIZED_NAME, now, lead.id);
    const sequence = entry.get(lead.id)?.sequence;
    if (sequence === null || sequence === undefined) throw new Error("the lead update trigger wrote no change");
    mark.run(sequence, lead.id, JSON.stringify([...received.get(lead.id)!].sort()), now);
  }

  // An Idempotency-Key's stored answer is the lead as it was created: it becomes the lead as it is now.
  const keys = db
    .query<{ client_id: string; key: string; response: string }, [string]>(
      `SELECT client_id, key, response FROM idempotency_keys WHERE lead_id IN ${IDS}`,
    )
    .all(list);
  const rewrite = db.prepare<unknown, [string, string, string]>(
    "UPDATE idempotency_keys SET response = ? WHERE client_id = ? AND key = ?",
  );
  for (const key of keys) rewrite.run(anonymizedAnswer(key.response, now), key.client_id, key.key);

  db.query<unknown, [string]>(
    "UPDATE webhook_deliveries SET state = 'failed', payload = NULL, next_attempt_at = NULL, lease_owner = NULL, " +
      "last_error = 'not sent again: the lead was anonymized (lead.anonymized follows)' " +
      `WHERE state = 'pending' AND type <> 'lead.anonymized' AND record_id IN ${IDS}`,
  ).run(list);
  return leadIds;
}

/** A stored creation answer `{ data: lead }` with the person's fields anonymized. */
function anonymizedAnswer(response: string, now: string): string {
  try {
    const body = JSON.parse(response) as { data?: Record<string, unknown> };
    if (body.data === undefined || body.data === null) return '{"data":null}';
    Object.assign(body.data, { name: ANONYMIZED_NAME, email: "", phone: "", message: "", updatedAt: now });
    return JSON.stringify(body);
  } catch {
    return '{"data":null}';
  }
}

/** The fields a correction may change. */
export interface Correction {
  name?: string;
  email?: string;
  phone?: string;
  message?: string;
}

/**
 * Corrects a lead (inside a write transaction): an update like any other, so the change log and
 * `lead.updated` follow from the trigger. Null when there is no such lead; the same values
 * again write nothing.
 */
export function correctLead(db: Database, id: string, correction: Correction, now: string): StoredLead | null {
  const [lead] = leadsById(db, [id]);
  if (lead === undefined) return null;
  const next = { ...lead, ...correction };
  if (
    next.name === lead.name &&
    next.email === lead.email &&
    next.phone === lead.phone &&
    next.message === lead.message
  )
    return lead;
  db.query<unknown, [string, string, string, string, string, string]>(
    "UPDATE leads SET name = ?, email = ?, phone = ?, message = ?, updated_at = ? WHERE id = ?",
  ).run(next.name, next.email, next.phone, next.message, now, id);
  return leadsById(db, [id])[0]!;
}
