-- Schema 11: the anonymizations of leads (docs/operators/personal-data.md). An anonymization is
-- an update of the lead like any other, so the change log numbers it and the change feed shows it
-- through the lead update trigger; this table says which of those updates was one, so the
-- webhook dispatch sends `lead.anonymized` for it instead of `lead.updated`, and to whom beyond
-- the clients that may read the lead now: every client that was sent it (its creator and the
-- clients of the subscriptions it was delivered to), found when it was anonymized, since the
-- delivery log is pruned. Nothing here identifies the person.
CREATE TABLE lead_anonymizations (
  sequence INTEGER NOT NULL PRIMARY KEY,  -- the change-log entry the anonymization's update wrote
  lead_id  TEXT    NOT NULL,
  notify   TEXT    NOT NULL,              -- JSON array of the client ids that were sent the lead
  at       TEXT    NOT NULL
);
-- A mark whose change-log entry compaction removed (a newer change of the lead superseded it) is
-- dropped by the daily pass of src/modules/admin/privacy/retention.ts.

