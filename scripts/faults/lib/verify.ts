// After a run, straight from the database file: every acknowledged lead is there exactly once
// with its id, no marker was stored twice (even for creations whose answer was lost), and
// SQLite's own integrity check passes.
import { Database } from "bun:sqlite";
import type { PendingLead } from "./load.ts";

export interface Verification {
  acknowledged: number;
  found: number;
  missing: string[];
  duplicated: string[];
  /** Creations whose answer was lost: how many landed (each at most once). */
  uncertainLanded: number;
  uncertainTotal: number;
  integrity: string;
}

export function verifyLeads(
  dbPath: string,
  runId: string,
  acknowledged: Map<string, string>,
  uncertain: Map<string, PendingLead> = new Map(),
): Verification {
  // Read-write (only SELECTs run): after a kill -9 the WAL must be recovered, which read-only cannot do.
  const db = new Database(dbPath, { readwrite: true, create: false });
  try {
    const stored = new Map<string, string[]>();
    const rows = db
      .query<{ id: string; message: string }, [string]>("SELECT id, message FROM leads WHERE message LIKE ?")
      .all(`fault-marker:${runId}:%`);
    for (const { id, message } of rows) {
      const marker = message.slice("fault-marker:".length);
      stored.set(marker, [...(stored.get(marker) ?? []), id]);
    }
    const missing: string[] = [];
    let found = 0;
    for (const [marker, id] of acknowledged) {
      const ids = stored.get(marker) ?? [];
      if (ids.length >= 1 && ids.includes(id)) found++;
      else missing.push(`${marker} (${id})`);
    }
    const duplicated = [...stored]
      .filter(([, ids]) => ids.length > 1)
      .map(([marker, ids]) => `${marker}: ${ids.join(", ")}`);
    const uncertainLanded = [...uncertain.keys()].filter((marker) => stored.has(marker)).length;
    const integrity = (db.query("PRAGMA integrity_check").values() as string[][]).map((r) => r[0]).join("; ");
    return {
      acknowledged: acknowledged.size,
      found,
      missing,
      duplicated,
      uncertainLanded,
      uncertainTotal: uncertain.size,
      integrity,
    };
  } finally {
    db.close();
  }
}

/** True when nothing was lost, duplicated or corrupted. */
export function verified(v: Verification): boolean {
  return v.found === v.acknowledged && v.missing.length === 0 && v.duplicated.length === 0 && v.integrity === "ok";
}

/** The verification's figures as every run's result file reports them. */
export function leadFigures(v: Verification) {
  return {
    leadsAcknowledged: v.acknowledged,
    leadsFound: v.found,
    missing: v.missing.slice(0, 10),
    duplicated: v.duplicated.slice(0, 10),
    integrityCheck: v.integrity,
  };
}
