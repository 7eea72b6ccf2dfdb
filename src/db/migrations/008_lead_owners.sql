-- Schema 8: every lead keeps the client that created it (docs/partners/scopes.md), and a
-- portal's own id of a lead it pushed (docs/operators/portal-leads.md). Leads already stored
-- have no owner (NULL): they were loaded by the agency, and only clients with `leads:read`
-- read them.
--
-- A client that reads only its own leads lists them from one index that leads with the owner
-- and carries both dates and the status, so its page 1, its deep pages and its filters on a date
-- or the status walk index entries only, never rows; its totals come from the counters, where
-- the owner is a counted column. Nothing more is kept per owner: every lead a client creates
-- pays for each index and counter row, and this is the least that keeps an owner's list fast
-- (docs/performance.md#lead-owners).
--
-- Each index a group commit appends to costs it about five pages of WAL, however small the
-- entries, so the owner's index is paid for with the two status indexes of schema 1: the status
-- goes into the entries of the two date indexes instead, and the priority with it (a few bytes
-- an entry, no page more a commit). A list of one status walks the date index of its order,
-- testing the status in the entries, from where its per-day counters place the page
-- (src/modules/lists/repo.ts), so it passes no row of another status day after day; beside a
-- priority, both are tested in the entries, and no row is read before the page.
--
-- The change log marks each lead row with its owner, inside the index the change feed already
-- reads, so one client's lead entries are told apart from the index alone.

ALTER TABLE leads ADD COLUMN created_by TEXT;
ALTER TABLE leads ADD COLUMN origin_lead_id TEXT;

-- A portal's retry or resend of a lead is found by its own id, for that client, at any later time.
CREATE UNIQUE INDEX leads_origin ON leads(created_by, origin_lead_id) WHERE origin_lead_id IS NOT NULL;
CREATE INDEX leads_owner_created ON leads(created_by, created_at, id, updated_at, status) WHERE created_by IS NOT NULL;

DROP INDEX leads_status_created;
DROP INDEX leads_status_updated;
DROP INDEX leads_created;
CREATE INDEX leads_created ON leads(created_at, id, updated_at, status, priority);
DROP INDEX leads_updated;
CREATE INDEX leads_updated ON leads(updated_at, id, created_at, status, priority);

-- ---- counters: the owner as a counted column ('' stands for NULL) ----

DROP TRIGGER leads_count_insert;
DROP TRIGGER leads_count_delete;
DROP TRIGGER leads_count_update;

CREATE TABLE lead_counts_by_owner (
  status     TEXT    NOT NULL,
  source     TEXT    NOT NULL,
  priority   TEXT    NOT NULL,
  created_by TEXT    NOT NULL,
  n          INTEGER NOT NULL,
  PRIMARY KEY (status, source, priority, created_by)
) WITHOUT ROWID;
INSERT INTO lead_counts_by_owner (status, source, priority, created_by, n)
  SELECT status, source, priority, '', n FROM lead_counts;
DROP TABLE lead_counts;
ALTER TABLE lead_counts_by_owner RENAME TO lead_counts;

CREATE TRIGGER leads_count_insert AFTER INSERT ON leads
BEGIN
  INSERT INTO lead_counts VALUES (new.status, new.source, new.priority, coalesce(new.created_by, ''), 1)
    ON CONFLICT DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER leads_count_delete AFTER DELETE ON leads
BEGIN
  UPDATE lead_counts SET n = n - 1
   WHERE status = old.status AND source = old.source AND priority = old.priority
     AND created_by = coalesce(old.created_by, '');
END;

CREATE TRIGGER leads_count_update AFTER UPDATE OF status, source, priority, created_by ON leads
BEGIN
  UPDATE lead_counts SET n = n - 1
   WHERE status = old.status AND source = old.source AND priority = old.priority
     AND created_by = coalesce(old.created_by, '');
  INSERT INTO lead_counts VALUES (new.status, new.source, new.priority, coalesce(new.created_by, ''), 1)
    ON CONFLICT DO UPDATE SET n = n + 1;
END;

-- ---- the change log: each lead entry carries its owner ----

ALTER TABLE changes ADD COLUMN owner TEXT;
DROP INDEX changes_entity_sequence;
CREATE INDEX changes_entity_sequence ON changes(entity, sequence, owner);

DROP TRIGGER leads_feed_insert;
CREATE TRIGGER leads_feed_insert AFTER INSERT ON leads
BEGIN
  INSERT INTO changes (entity, record_id, change, at, owner)
  VALUES ('leads', new.id, 'upsert', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), new.created_by);
END;

DROP TRIGGER leads_feed_update;
CREATE TRIGGER leads_feed_update AFTER UPDATE ON leads
BEGIN
  INSERT INTO changes (entity, record_id, change, at, lead_update, owner)
  VALUES ('leads', new.id, 'upsert', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), 1, new.created_by);
END;

DROP TRIGGER leads_feed_delete;
CREATE TRIGGER leads_feed_delete AFTER DELETE ON leads
BEGIN
  INSERT INTO changes (entity, record_id, change, at, owner)
  VALUES ('leads', old.id, 'remove', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), old.created_by);
END;
