-- Schema 8: every lead keeps the client that created it (docs/partners/scopes.md), and a
-- portal's own id of a lead it pushed (docs/operators/portal-leads.md). Leads already stored
-- have no owner (NULL): they were loaded by the agency, and only clients with `leads:read`
-- read them.
--
-- A client that reads only its own leads lists them as fast as a client that reads all: the
-- owner is a counted column (lead_counts), a dimension of the per-day counters (lead_days)
-- and the head of two indexes, so its totals and deep pages take the same paths as the
-- status filter's. The change log marks each lead row with its owner, so its lead entries
-- are one index range too.

ALTER TABLE leads ADD COLUMN created_by TEXT;
ALTER TABLE leads ADD COLUMN origin_lead_id TEXT;

-- A portal's retry or resend of a lead is found by its own id, for that client, at any later time.
CREATE UNIQUE INDEX leads_origin ON leads(created_by, origin_lead_id) WHERE origin_lead_id IS NOT NULL;
CREATE INDEX leads_owner_created ON leads(created_by, created_at, id) WHERE created_by IS NOT NULL;
CREATE INDEX leads_owner_updated ON leads(created_by, updated_at, id) WHERE created_by IS NOT NULL;

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

-- ---- per-day counters: the owner as a dimension ----
-- (rebuild-day-counts.sql belongs to schema 2, before this dimension: it is not run again.)

INSERT INTO day_dimensions (entity, kind, dim) VALUES ('leads', 'created', 'created_by'), ('leads', 'updated', 'created_by');
-- Every lead stored so far has no owner: its owner's counts are the overall counts.
INSERT INTO lead_days (kind, dim, value, day, n) SELECT kind, 'created_by', '', day, n FROM lead_days WHERE dim = '';

DROP TRIGGER leads_days_insert;
DROP TRIGGER leads_days_delete;
DROP TRIGGER leads_days_update;

CREATE TRIGGER leads_days_insert AFTER INSERT ON leads
BEGIN
  INSERT INTO lead_days (kind, dim, value, day, n)
    SELECT kind, dim, CASE dim WHEN '' THEN '' WHEN 'status' THEN new.status ELSE coalesce(new.created_by, '') END,
           substr(CASE kind WHEN 'created' THEN new.created_at ELSE new.updated_at END, 1, 10), 1
      FROM day_dimensions WHERE entity = 'leads'
    ON CONFLICT DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER leads_days_delete AFTER DELETE ON leads
BEGIN
  UPDATE lead_days SET n = n - 1
   WHERE (kind, dim, value, day) IN (
     SELECT kind, dim, CASE dim WHEN '' THEN '' WHEN 'status' THEN old.status ELSE coalesce(old.created_by, '') END,
            substr(CASE kind WHEN 'created' THEN old.created_at ELSE old.updated_at END, 1, 10)
       FROM day_dimensions WHERE entity = 'leads');
END;

CREATE TRIGGER leads_days_update AFTER UPDATE OF created_at, updated_at, status, created_by ON leads
BEGIN
  UPDATE lead_days SET n = n - 1
   WHERE (kind, dim, value, day) IN (
     SELECT kind, dim, CASE dim WHEN '' THEN '' WHEN 'status' THEN old.status ELSE coalesce(old.created_by, '') END,
            substr(CASE kind WHEN 'created' THEN old.created_at ELSE old.updated_at END, 1, 10)
       FROM day_dimensions WHERE entity = 'leads');
  INSERT INTO lead_days (kind, dim, value, day, n)
    SELECT kind, dim, CASE dim WHEN '' THEN '' WHEN 'status' THEN new.status ELSE coalesce(new.created_by, '') END,
           substr(CASE kind WHEN 'created' THEN new.created_at ELSE new.updated_at END, 1, 10), 1
      FROM day_dimensions WHERE entity = 'leads'
    ON CONFLICT DO UPDATE SET n = n + 1;
END;

-- ---- the change log: each lead entry carries its owner ----

ALTER TABLE changes ADD COLUMN owner TEXT;
CREATE INDEX changes_owner ON changes(owner, sequence) WHERE owner IS NOT NULL;

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
