// The streams the change log is numbered in (migrations/010_change_streams.sql): every number a
// partner receives (the change feed, its head, a webhook's `data.sequence`, the delivery log, a
// replay's range) is a number of the stream it reads (security/scopes.ts, streamOf), so it
// counts only changes that partner may read (docs/partners/sync-and-webhooks.md).

/**
 * A stream of the change log: an entity's (`owner` null: every property, or every lead), or
 * one client's leads (`owner`: the client that created them).
 */
export interface Stream {
  entity: "properties" | "leads";
  owner: string | null;
}

/** The numbers an entry of the log carries. */
export interface NumberedChange {
  entity: "properties" | "leads";
  number: number;
  owner: string | null;
  owner_number: number | null;
}

/** The number of `change` in `stream`, or null when the entry is not in it (another entity, another owner's lead). */
export function numberIn(stream: Stream, change: NumberedChange): number | null {
  if (change.entity !== stream.entity) return null;
  if (stream.owner === null) return change.number;
  return change.owner === stream.owner ? change.owner_number : null;
}

/** The statements that read one kind of stream by its index, `?` being the stream's key then a number. */
export interface StreamSql {
  /** The log's place of the stream's first entry numbered after a number: where a replay starts. */
  firstAfter: string;
  /** The stream's last entry: its number and its place in the log (one key parameter). */
  head: string;
}

function sqlOf(key: "entity" | "owner", number: "number" | "owner_number"): StreamSql {
  return {
    firstAfter: `SELECT sequence FROM changes WHERE ${key} = ? AND ${number} > ? ORDER BY ${number} LIMIT 1`,
    head: `SELECT ${number}, sequence FROM changes WHERE ${key} = ? AND ${number} IS NOT NULL ORDER BY ${number} DESC LIMIT 1`,
  };
}

/** An entity's stream, keyed by the entity; an owner's stream of leads, keyed by the owner. */
export const STREAM_SQL = { entity: sqlOf("entity", "number"), owner: sqlOf("owner", "owner_number") } as const;

/** The kind of a stream (which of STREAM_SQL reads it) and its key. */
export function streamKey(stream: Stream): { kind: keyof typeof STREAM_SQL; key: string } {
  return stream.owner === null ? { kind: "entity", key: stream.entity } : { kind: "owner", key: stream.owner };
}
