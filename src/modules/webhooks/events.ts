// The webhook event types (docs/reference/behaviour-extensions.md §13) and how a row of the change log maps to one.

/** Events a subscription can list; every one but webhook.test comes from the change log. */
export const EVENT_TYPES = [
  "lead.created",
  "lead.updated",
  "lead.anonymized",
  "property.upserted",
  "property.removed",
  "webhook.test",
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export const TEST_EVENT: EventType = "webhook.test";

/**
 * A row of the change log as the dispatcher reads it: `sequence` is its place in the log's
 * write order, which only the server sees; partners are shown `number` (its entity's stream)
 * or `owner_number` (its owner's stream of leads), as they read the entity.
 */
export interface ChangeRow {
  sequence: number;
  number: number;
  owner: string | null;
  owner_number: number | null;
  entity: "properties" | "leads";
  record_id: string;
  change: "upsert" | "remove";
  lead_update: 0 | 1;
  at: string;
  /**
   * For a lead update that anonymized the lead (docs/operators/personal-data.md): the JSON array
   * of the clients that were sent the lead, told beside those that may read it now; else null.
   */
  notify: string | null;
}

/** Sent whatever events a subscription lists: the law asks that everyone the lead was shared with be told. */
export const ANONYMIZED_EVENT: EventType = "lead.anonymized";

/** The event a change is, or null for one no event stands for (a lead deleted by hand). */
export function eventTypeOf(
  change: Pick<ChangeRow, "entity" | "change" | "lead_update"> & { notify?: string | null },
): EventType | null {
  if (change.entity === "properties") return change.change === "upsert" ? "property.upserted" : "property.removed";
  if (change.change === "remove") return null;
  if (change.notify !== null && change.notify !== undefined) return ANONYMIZED_EVENT;
  return change.lead_update === 1 ? "lead.updated" : "lead.created";
}

/** The entity whose records an event carries. */
export function entityOf(type: EventType): "properties" | "leads" | null {
  if (type.startsWith("lead.")) return "leads";
  if (type.startsWith("property.")) return "properties";
  return null;
}

/**
 * The body of a delivery: `{ type, timestamp, data: { sequence, id, record } }`. `record` is
 * JSON text exactly as the single-record route returns it ("null" when there is none), spliced
 * in rather than re-serialised so not a byte of it changes.
 */
export function eventPayload(
  type: EventType,
  timestamp: string,
  sequence: number,
  id: string,
  recordJson: string,
): string {
  return (
    `{"type":${JSON.stringify(type)},"timestamp":${JSON.stringify(timestamp)},` +
    `"data":{"sequence":${sequence},"id":${JSON.stringify(id)},"record":${recordJson}}}`
  );
}
