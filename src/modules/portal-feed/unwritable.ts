// Which published listings the VRSync writer cannot write (writer.ts, unwritableReason), as of a
// change head. A feed states their number in its headers, before its first byte, so they are
// known before it streams: found once in a full pass over the database, then kept up to date
// from the change log, which names every listing written since (only those are read again).
// Kept per database, shared by every client: the answer is about the stored listing.
import type { Database } from "bun:sqlite";
import { listingOfProjection } from "../../agency/rows.ts";
import { PROPERTY_FIELDS } from "../../catalog/properties.ts";
import { projection } from "../../catalog/sql.ts";
import type { Tenant } from "../../db/tenants.ts";
import { unwritableReason } from "../../formats/vrsync/writer.ts";
import type { ChangeHead } from "./snapshot.ts";
import { feedTurns } from "./turns.ts";

/** Past this many listings changed since the last answer, one pass over all of them costs less than reading each again. */
const RECHECK_LIMIT = 20_000;

const STORED_JSON = projection(PROPERTY_FIELDS, "stored");
const ALL_SQL = `SELECT p.id AS id, ${STORED_JSON} AS json FROM properties p WHERE p.is_published = 1`;
const ONE_SQL = `SELECT ${STORED_JSON} AS json FROM properties p WHERE p.id = ? AND p.is_published = 1`;
/** By the properties' own stream, which the change head numbers too (snapshot.ts). */
const CHANGED_SQL = "SELECT DISTINCT record_id AS id FROM changes WHERE entity = 'properties' AND number > ?";

function isUnwritable(id: string, json: string): boolean {
  const { listing } = listingOfProjection(json);
  return unwritableReason({ ...listing, code: listing.code ?? id }) !== null;
}

const sameHead = (a: ChangeHead, b: ChangeHead) =>
  a.sequence === b.sequence && a.recordId === b.recordId && a.at === b.at;

/** Gives the event loop back between slices (turns.ts): these passes read the whole database. */
async function takeTurns(): Promise<void> {
  if (feedTurns.sliceOver()) await feedTurns.next();
}

async function fullPass(db: Database): Promise<Set<string>> {
  const ids = new Set<string>();
  const statement = db.prepare<{ id: string; json: string }, []>(ALL_SQL);
  try {
    for (const { id, json } of statement.iterate()) {
      if (isUnwritable(id, json)) ids.add(id);
      await takeTurns();
    }
  } finally {
    statement.finalize();
  }
  return ids;
}

/** The ids of properties changed after `sequence`, or null when there are more than RECHECK_LIMIT. */
async function changedSince(db: Database, sequence: number): Promise<string[] | null> {
  const ids: string[] = [];
  const statement = db.prepare<{ id: string }, [number]>(CHANGED_SQL);
  try {
    for (const { id } of statement.iterate(sequence)) {
      if (ids.push(id) > RECHECK_LIMIT) return null;
      await takeTurns();
    }
  } finally {
    statement.finalize();
  }
  return ids;
}

async function recheck(db: Database, before: ReadonlySet<string>, changed: readonly string[]): Promise<Set<string>> {
  const ids = new Set(before);
  const statement = db.prepare<{ json: string }, [string]>(ONE_SQL);
  try {
    for (const id of changed) {
      ids.delete(id);
      const row = statement.get(id); // null: unpublished or deleted since
      if (row !== null && isUnwritable(id, row.json)) ids.add(id);
      await takeTurns();
    }
  } finally {
    statement.finalize();
  }
  return ids;
}

export class UnwritableListings {
  private known: { head: ChangeHead; ids: ReadonlySet<string> } | null = null;
  /** One pass at a time: a second feed starting meanwhile waits, then reuses or extends the answer. */
  private queue: Promise<unknown> = Promise.resolve();

  /** The ids of the published listings that cannot be written, in the snapshot `db` whose change head is `head`. */
  at(db: Database, head: ChangeHead): Promise<ReadonlySet<string>> {
    const answer = this.queue.then(() => this.bringTo(db, head));
    this.queue = answer.catch(() => undefined);
    return answer;
  }

  private async bringTo(db: Database, head: ChangeHead): Promise<ReadonlySet<string>> {
    const known = this.known;
    if (known !== null && sameHead(known.head, head)) return known.ids;
    let ids: Set<string> | null = null;
    if (known !== null && known.head.sequence < head.sequence) {
      const changed = await changedSince(db, known.head.sequence);
      if (changed !== null) ids = await recheck(db, known.ids, changed);
    }
    ids ??= await fullPass(db);
    // Only forward: a snapshot older than the answer kept (a feed that began before the last
    // commit, asking after one that began after it) gets its own answer without replacing it.
    if (known === null || known.head.sequence < head.sequence) this.known = { head, ids };
    return ids;
  }
}

const byTenant = new WeakMap<Tenant, UnwritableListings>();

export function unwritableListingsOf(tenant: Tenant): UnwritableListings {
  let found = byTenant.get(tenant);
  if (found === undefined) {
    found = new UnwritableListings();
    byTenant.set(tenant, found);
  }
  return found;
}
