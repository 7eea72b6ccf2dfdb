-- Schema 2: per-day counters, so that list totals under a date filter and the position of a
-- deep page are found from a few hundred counter rows instead of walking a million index
-- entries (docs/reference/behaviour.md §8 lists stay fast at 1,000,000 rows). Kept by triggers like the other
-- counters, so every writer keeps them right. Also the indexes the operationType and
-- highlight filters lacked. The counters of rows already there are filled by
-- rebuild-day-counts.sql, which migrate.ts runs right after this file (the seed runs it too).
--
-- A row counts the visible records whose created_at (kind 'created') or updated_at (kind
-- 'updated') falls on one UTC day, either all of them (dim '') or those with one value of a
-- filterable column (dim = the column). Dates are stored as ISO 8601 UTC text, so a day's
-- records are exactly those whose date starts with 'YYYY-MM-DD'.

CREATE TABLE property_days (
  kind  TEXT    NOT NULL,
  dim   TEXT    NOT NULL,
  value TEXT    NOT NULL,  -- '' when dim is '' (and for a NULL property_type)
  day   TEXT    NOT NULL,
  n     INTEGER NOT NULL,
  PRIMARY KEY (kind, dim, value, day)
) WITHOUT ROWID;

CREATE TABLE lead_days (
  kind  TEXT    NOT NULL,
  dim   TEXT    NOT NULL,
  value TEXT    NOT NULL,
  day   TEXT    NOT NULL,
  n     INTEGER NOT NULL,
  PRIMARY KEY (kind, dim, value, day)
) WITHOUT ROWID;

-- The (kind, dim) pairs each entity keeps: both dates, overall and per counted column.
-- Leads keep only `status` beside the overall count: every lead creation pays for each pair.
CREATE TABLE day_dimensions (
  entity TEXT NOT NULL,
  kind   TEXT NOT NULL,
  dim    TEXT NOT NULL,
  PRIMARY KEY (entity, kind, dim)
) WITHOUT ROWID;
INSERT INTO day_dimensions (entity, kind, dim) VALUES
  ('properties', 'created', ''), ('properties', 'created', 'status'), ('properties', 'created', 'operation_type'),
  ('properties', 'created', 'property_type'), ('properties', 'created', 'highlight'),
  ('properties', 'updated', ''), ('properties', 'updated', 'status'), ('properties', 'updated', 'operation_type'),
  ('properties', 'updated', 'property_type'), ('properties', 'updated', 'highlight'),
  ('leads', 'created', ''), ('leads', 'created', 'status'),
  ('leads', 'updated', ''), ('leads', 'updated', 'status');

-- ---- properties ----

CREATE TRIGGER properties_days_insert AFTER INSERT ON properties WHEN new.is_published = 1
BEGIN
  INSERT INTO property_days (kind, dim, value, day, n)
    SELECT kind, dim,
           CASE dim WHEN '' THEN '' WHEN 'status' THEN new.status WHEN 'operation_type' THEN new.operation_type
                    WHEN 'property_type' THEN coalesce(new.property_type, '') ELSE new.highlight END,
           substr(CASE kind WHEN 'created' THEN new.created_at ELSE new.updated_at END, 1, 10), 1
      FROM day_dimensions WHERE entity = 'properties'
    ON CONFLICT DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER properties_days_delete AFTER DELETE ON properties WHEN old.is_published = 1
BEGIN
  UPDATE property_days SET n = n - 1
   WHERE (kind, dim, value, day) IN (
     SELECT kind, dim,
            CASE dim WHEN '' THEN '' WHEN 'status' THEN old.status WHEN 'operation_type' THEN old.operation_type
                     WHEN 'property_type' THEN coalesce(old.property_type, '') ELSE old.highlight END,
            substr(CASE kind WHEN 'created' THEN old.created_at ELSE old.updated_at END, 1, 10)
       FROM day_dimensions WHERE entity = 'properties');
END;

CREATE TRIGGER properties_days_update
AFTER UPDATE OF is_published, created_at, updated_at, status, operation_type, property_type, highlight ON properties
BEGIN
  UPDATE property_days SET n = n - 1
   WHERE old.is_published = 1 AND (kind, dim, value, day) IN (
     SELECT kind, dim,
            CASE dim WHEN '' THEN '' WHEN 'status' THEN old.status WHEN 'operation_type' THEN old.operation_type
                     WHEN 'property_type' THEN coalesce(old.property_type, '') ELSE old.highlight END,
            substr(CASE kind WHEN 'created' THEN old.created_at ELSE old.updated_at END, 1, 10)
       FROM day_dimensions WHERE entity = 'properties');
  INSERT INTO property_days (kind, dim, value, day, n)
    SELECT kind, dim,
           CASE dim WHEN '' THEN '' WHEN 'status' THEN new.status WHEN 'operation_type' THEN new.operation_type
                    WHEN 'property_type' THEN coalesce(new.property_type, '') ELSE new.highlight END,
           substr(CASE kind WHEN 'created' THEN new.created_at ELSE new.updated_at END, 1, 10), 1
      FROM day_dimensions WHERE entity = 'properties' AND new.is_published = 1
    ON CONFLICT DO UPDATE SET n = n + 1;
END;

-- ---- leads ----

CREATE TRIGGER leads_days_insert AFTER INSERT ON leads
BEGIN
  INSERT INTO lead_days (kind, dim, value, day, n)
    SELECT kind, dim, CASE dim WHEN '' THEN '' ELSE new.status END,
           substr(CASE kind WHEN 'created' THEN new.created_at ELSE new.updated_at END, 1, 10), 1
      FROM day_dimensions WHERE entity = 'leads'
    ON CONFLICT DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER leads_days_delete AFTER DELETE ON leads
BEGIN
  UPDATE lead_days SET n = n - 1
   WHERE (kind, dim, value, day) IN (
     SELECT kind, dim, CASE dim WHEN '' THEN '' ELSE old.status END,
            substr(CASE kind WHEN 'created' THEN old.created_at ELSE old.updated_at END, 1, 10)
       FROM day_dimensions WHERE entity = 'leads');
END;

CREATE TRIGGER leads_days_update AFTER UPDATE OF created_at, updated_at, status ON leads
BEGIN
  UPDATE lead_days SET n = n - 1
   WHERE (kind, dim, value, day) IN (
     SELECT kind, dim, CASE dim WHEN '' THEN '' ELSE old.status END,
            substr(CASE kind WHEN 'created' THEN old.created_at ELSE old.updated_at END, 1, 10)
       FROM day_dimensions WHERE entity = 'leads');
  INSERT INTO lead_days (kind, dim, value, day, n)
    SELECT kind, dim, CASE dim WHEN '' THEN '' ELSE new.status END,
           substr(CASE kind WHEN 'created' THEN new.created_at ELSE new.updated_at END, 1, 10), 1
      FROM day_dimensions WHERE entity = 'leads'
    ON CONFLICT DO UPDATE SET n = n + 1;
END;

CREATE INDEX properties_published_operation ON properties(operation_type, created_at, id) WHERE is_published = 1;
CREATE INDEX properties_published_highlight ON properties(highlight, created_at, id) WHERE is_published = 1;

-- The date-order indexes also carry the other date, so that a filter on one date under the
-- order of the other (updatedAfter with the default -createdAt) is checked in the index
-- instead of reading every skipped row from the table (measured at 1M: 225 ms → 17 ms).
DROP INDEX properties_published_created;
CREATE INDEX properties_published_created ON properties(created_at, id, updated_at) WHERE is_published = 1;
DROP INDEX properties_published_updated;
CREATE INDEX properties_published_updated ON properties(updated_at, id, created_at) WHERE is_published = 1;
DROP INDEX leads_created;
CREATE INDEX leads_created ON leads(created_at, id, updated_at);
DROP INDEX leads_updated;
CREATE INDEX leads_updated ON leads(updated_at, id, created_at);
