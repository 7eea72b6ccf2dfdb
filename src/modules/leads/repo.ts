// Lead writes, run inside the group-commit writer's transaction on the write connection.
import type { Database, Statement } from "bun:sqlite";
import type { LeadInput, LeadPatch } from "./model.ts";

export interface LeadRecord {
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
  createdAt: string;
  updatedAt: string;
}

/** What a portal's lead adds to the body of POST /v1/leads (docs/operators/portal-leads.md). */
export interface PortalExtras {
  priority: string;
  /** The portal's own id of the lead: a second lead with it, for the same client, is refused by the index. */
  originLeadId: string | null;
  /** The title of the portal's ad: kept only when the lead links no property. */
  titleIfUnlinked: string | null;
}

export interface StoredReplay {
  requestHash: string;
  response: string;
}

export class LeadsRepo {
  private readonly findProperty: Statement<{ id: string; title: string }>;
  private readonly insertLead: Statement;
  private readonly insertKey: Statement;
  private readonly findKey: Statement<{ request_hash: string; response: string }>;
  private readonly findKeyWriting: Statement<{ request_hash: string; response: string }>;
  private readonly pruneKeys: Statement;
  private readonly findFunnel: Statement<{ created_by: string | null; status: string; priority: string }>;
  private readonly updateFunnel: Statement;
  private readonly findOriginWriting: Statement<{ id: string }>;

  constructor(write: Database, read: Database) {
    this.findProperty = write.prepare("SELECT id, title FROM properties WHERE code = ? AND is_published = 1");
    this.insertLead = write.prepare(
      "INSERT INTO leads (id, name, email, phone, message, source, status, priority, property_id, " +
        "interested_property_title, interested_property_link, traffic_origin, created_at, updated_at, created_by, origin_lead_id) " +
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) " +
        // A portal's lead this client already has (the partial unique index leads_origin) is no
        // error: nothing is inserted and no trigger runs; createOnce() then finds the first one.
        "ON CONFLICT (created_by, origin_lead_id) WHERE origin_lead_id IS NOT NULL DO NOTHING",
    );
    this.insertKey = write.prepare(
      "INSERT OR REPLACE INTO idempotency_keys (client_id, key, request_hash, lead_id, response, created_at) VALUES (?, ?, ?, ?, ?, ?)",
    );
    const findKey =
      "SELECT request_hash, response FROM idempotency_keys WHERE client_id = ? AND key = ? AND created_at > ?";
    this.findKey = read.prepare(findKey);
    this.findKeyWriting = write.prepare(findKey);
    this.pruneKeys = write.prepare("DELETE FROM idempotency_keys WHERE created_at <= ?");
    this.findFunnel = write.prepare("SELECT created_by, status, priority FROM leads WHERE id = ?");
    this.updateFunnel = write.prepare("UPDATE leads SET status = ?, priority = ?, updated_at = ? WHERE id = ?");
    // The partial unique index leads_origin answers it.
    this.findOriginWriting = write.prepare("SELECT id FROM leads WHERE created_by = ? AND origin_lead_id = ?");
  }

  /** Creates `createdBy`'s lead (SPEC rules 1–4); must run inside a write transaction. */
  create(input: LeadInput, id: string, now: string, createdBy: string): LeadRecord {
    return this.insert(input, id, now, createdBy, null)!;
  }

  /**
   * Creates `createdBy`'s lead from a portal's post, or returns null when this client already
   * has a lead with the portal's id (nothing written); must run inside a write transaction.
   */
  createOnce(input: LeadInput, id: string, now: string, createdBy: string, portal: PortalExtras): LeadRecord | null {
    return this.insert(input, id, now, createdBy, portal);
  }

  private insert(
    input: LeadInput,
    id: string,
    now: string,
    createdBy: string,
    portal: PortalExtras | null,
  ): LeadRecord | null {
    const property = input.propertyCode === null ? null : this.findProperty.get(input.propertyCode);
    const lead: LeadRecord = {
      id,
      name: input.name,
      email: input.email,
      phone: input.phone,
      message: input.message,
      source: input.source,
      status: "NEW_LEAD",
      priority: portal?.priority ?? "MEDIUM",
      propertyId: property?.id ?? null,
      // The caller's title wins; the linked property's title fills in otherwise, then a portal's ad title.
      interestedPropertyTitle: input.interestedPropertyTitle ?? property?.title ?? portal?.titleIfUnlinked ?? null,
      createdAt: now,
      updatedAt: now,
    };
    const { changes } = this.insertLead.run(
      lead.id,
      lead.name,
      lead.email,
      lead.phone,
      lead.message,
      lead.source,
      lead.status,
      lead.priority,
      lead.propertyId,
      lead.interestedPropertyTitle,
      input.interestedPropertyLink,
      input.trafficOrigin,
      lead.createdAt,
      lead.updatedAt,
      createdBy,
      portal?.originLeadId ?? null,
    );
    return changes === 0 ? null : lead;
  }

  /**
   * The id of `createdBy`'s lead with the portal's own id `originLeadId`; inside the write
   * transaction, so it sees what any process committed before it, and this batch's own.
   */
  findByOriginWriting(createdBy: string, originLeadId: string): string | null {
    return this.findOriginWriting.get(createdBy, originLeadId)?.id ?? null;
  }

  /** Replaces an expired record of the same key, if one is still stored. */
  rememberKey(clientId: string, key: string, requestHash: string, leadId: string, response: string, now: string): void {
    this.insertKey.run(clientId, key, requestHash, leadId, response, now);
  }

  /** A key used after `since` by this client, if any. */
  findReplay(clientId: string, key: string, since: string): StoredReplay | null {
    const row = this.findKey.get(clientId, key, since);
    return row ? { requestHash: row.request_hash, response: row.response } : null;
  }

  /** The same, inside the write transaction: sees what any process committed before it. */
  findReplayWriting(clientId: string, key: string, since: string): StoredReplay | null {
    const row = this.findKeyWriting.get(clientId, key, since);
    return row ? { requestHash: row.request_hash, response: row.response } : null;
  }

  /**
   * Moves a lead along the funnel; must run inside a write transaction. "missing" when there is
   * no such lead or `owner` (a client that reads only its own) did not create it; "unchanged"
   * when it already has every value given: then nothing is written, so no change, no event.
   */
  updateFunnelOf(id: string, patch: LeadPatch, now: string, owner: string | null): "missing" | "unchanged" | "updated" {
    const current = this.findFunnel.get(id);
    if (current === null || (owner !== null && current.created_by !== owner)) return "missing";
    const status = patch.status ?? current.status;
    const priority = patch.priority ?? current.priority;
    if (status === current.status && priority === current.priority) return "unchanged";
    this.updateFunnel.run(status, priority, now, id);
    return "updated";
  }

  pruneKeysBefore(instant: string): void {
    this.pruneKeys.run(instant);
  }
}
