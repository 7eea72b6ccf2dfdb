// Gives the leads of a seeded dataset owners, as if each had been created by one of the given
// clients (round robin over the leads' rowids), and checks the result against the leads
// themselves. Used by the own-leads scenario on its working copy of the 1M dataset.
//
// An UPDATE of leads.created_by fires two triggers: the counters (lead_counts) and the change
// feed (a new change row per lead). A million change rows would make the copy unlike a database
// whose leads were created by those clients, and the per-row trigger work would take minutes, so
// the two are set aside for the UPDATE and what they maintain for the owner is rebuilt in the
// same transaction, exactly as they would have left it: the owner-less counter rows drop by the
// leads that got an owner, each owner's rows gain them; the lead rows of the change feed carry
// their lead's owner, as the insert trigger writes it. The per-day counters have no owner
// dimension (migration 8), so they do not change.
import { Database } from "bun:sqlite";

/** Triggers on leads that fire when created_by changes: set aside, their work rebuilt below. */
const REBUILT = ["leads_count_update", "leads_feed_update"] as const;

export interface OwnerAssignment {
  leads: number;
  owners: number;
  /** Leads per owner: fewest and most. */
  perOwner: { min: number; max: number };
  seconds: number;
  /** What was verified, one line each. */
  checks: string[];
}

/** Whether a trigger's SQL fires on an UPDATE that sets created_by. */
function firesOnOwnerUpdate(sql: string): boolean {
  const match = /AFTER\s+UPDATE(?:\s+OF\s+([\w\s,]+?))?\s+ON\s+leads\b/i.exec(sql);
  if (match === null) return false;
  return match[1] === undefined || match[1].split(",").some((column) => column.trim() === "created_by");
}

export function assignOwners(file: string, owners: readonly string[]): OwnerAssignment {
  const started = performance.now();
  const db = new Database(file);
  try {
    db.run("PRAGMA cache_size = -1000000"); // 1 GB for this connection: the UPDATE touches every leads page
    const triggers = db
      .query<{ name: string; sql: string }, []>(
        "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'leads' ORDER BY name",
      )
      .all();
    const firing = triggers
      .filter((t) => firesOnOwnerUpdate(t.sql))
      .map((t) => t.name)
      .sort();
    if (firing.join(",") !== [...REBUILT].sort().join(",")) {
      throw new Error(
        `triggers firing on an owner update are ${firing.join(", ")}; this bench rebuilds only ${REBUILT.join(", ")}`,
      );
    }
    const owned = db.query<{ n: number }, []>("SELECT count(*) AS n FROM leads WHERE created_by IS NOT NULL").get()!.n;
    if (owned !== 0) throw new Error(`the dataset already has ${owned} leads with an owner`);
    const lastChange = db.query<{ s: number }, []>("SELECT max(sequence) AS s FROM changes").get()!.s;

    db.transaction(() => {
      for (const name of REBUILT) db.run(`DROP TRIGGER ${name}`);
      db.run("CREATE TEMP TABLE owner_names (i INTEGER PRIMARY KEY, id TEXT NOT NULL)");
      const insert = db.prepare("INSERT INTO owner_names (i, id) VALUES (?, ?)");
      owners.forEach((id, i) => insert.run(i, id));
      insert.finalize();
      db.run(
        `UPDATE leads SET created_by = (SELECT id FROM owner_names WHERE i = (leads.rowid - 1) % ${owners.length})`,
      );

      // lead_counts, as leads_count_update leaves it: -1 on the owner-less row, +1 on the owner's.
      db.run(
        "CREATE TEMP TABLE moved_counts AS SELECT status, source, priority, created_by, count(*) AS n FROM leads GROUP BY 1, 2, 3, 4",
      );
      db.run(`UPDATE lead_counts SET n = n - (SELECT sum(m.n) FROM moved_counts m
                WHERE m.status = lead_counts.status AND m.source = lead_counts.source AND m.priority = lead_counts.priority)
              WHERE created_by = '' AND EXISTS (SELECT 1 FROM moved_counts m
                WHERE m.status = lead_counts.status AND m.source = lead_counts.source AND m.priority = lead_counts.priority)`);
      db.run(`INSERT INTO lead_counts (status, source, priority, created_by, n)
              SELECT status, source, priority, created_by, n FROM moved_counts WHERE true
              ON CONFLICT DO UPDATE SET n = n + excluded.n`);

      // The change feed: each lead row carries its lead's owner, as leads_feed_insert writes it.
      db.run(
        "UPDATE changes SET owner = (SELECT l.created_by FROM leads l WHERE l.id = changes.record_id) WHERE entity = 'leads'",
      );

      for (const t of triggers) if ((REBUILT as readonly string[]).includes(t.name)) db.run(t.sql);
      db.run("DROP TABLE owner_names");
      db.run("DROP TABLE moved_counts");
    })();
    db.run("PRAGMA wal_checkpoint(TRUNCATE)");

    const checks = verifyOwners(db, triggers, lastChange);
    const counts = db
      .query<{ n: number }, []>("SELECT count(*) AS n FROM leads GROUP BY created_by")
      .all()
      .map((r) => r.n);
    return {
      leads: counts.reduce((a, b) => a + b, 0),
      owners: counts.length,
      perOwner: { min: Math.min(...counts), max: Math.max(...counts) },
      seconds: (performance.now() - started) / 1000,
      checks,
    };
  } finally {
    db.close();
  }
}

/** Rows of `a` not in `b` and of `b` not in `a`: 0 when the two queries give the same rows. */
function difference(db: Database, a: string, b: string): number {
  return db
    .query<{ n: number }, []>(
      `SELECT (SELECT count(*) FROM (${a} EXCEPT ${b})) + (SELECT count(*) FROM (${b} EXCEPT ${a})) AS n`,
    )
    .get()!.n;
}

/** Checks the counters, change feed and triggers against the leads; throws on any mismatch. */
function verifyOwners(db: Database, triggers: { name: string; sql: string }[], lastChange: number): string[] {
  const checks: string[] = [];
  const expect = (what: string, found: number, wanted: number) => {
    if (found !== wanted) throw new Error(`owner assignment: ${what}: ${found}, expected ${wanted}`);
    checks.push(`${what}: ${found.toLocaleString("en-US")}`);
  };
  expect(
    "leads without an owner",
    db.query<{ n: number }, []>("SELECT count(*) AS n FROM leads WHERE created_by IS NULL").get()!.n,
    0,
  );
  expect(
    "owners whose lead count differs from their lead_counts sum",
    difference(
      db,
      "SELECT created_by, count(*) FROM leads GROUP BY 1",
      "SELECT created_by, sum(n) FROM lead_counts WHERE created_by <> '' GROUP BY 1",
    ),
    0,
  );
  expect(
    "lead_counts rows (status, source, priority, owner) differing from a GROUP BY of leads",
    difference(
      db,
      "SELECT status, source, priority, created_by, count(*) FROM leads GROUP BY 1, 2, 3, 4",
      "SELECT status, source, priority, created_by, n FROM lead_counts WHERE n <> 0",
    ),
    0,
  );
  expect(
    "lead change rows whose owner is not their lead's",
    db
      .query<{ n: number }, []>(
        "SELECT count(*) AS n FROM changes c JOIN leads l ON l.id = c.record_id WHERE c.entity = 'leads' AND c.owner IS NOT l.created_by",
      )
      .get()!.n,
    0,
  );
  expect(
    "change rows added",
    db.query<{ n: number }, [number]>("SELECT count(*) AS n FROM changes WHERE sequence > ?").get(lastChange)!.n,
    0,
  );
  const after = db
    .query<{ name: string; sql: string }, []>(
      "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'leads' ORDER BY name",
    )
    .all();
  expect(
    "triggers on leads not as before",
    triggers.filter((t, i) => after[i]?.name !== t.name || after[i]?.sql !== t.sql).length +
      Math.abs(after.length - triggers.length),
    0,
  );
  return checks;
}
