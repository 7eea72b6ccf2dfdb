-- Schema 1: properties (grouped fields as columns), photos, leads, idempotency keys,
-- the change log and the counters behind list totals.
-- Dates are ISO 8601 UTC strings with milliseconds ("2025-01-31T12:00:00.000Z"), so text order is time order.
-- Booleans are 0/1 integers. Money, areas and coordinates are NUMERIC so whole values come back as integers (350000, not 350000.0).

CREATE TABLE properties (
  id                TEXT    NOT NULL UNIQUE,
  code              TEXT,
  title             TEXT    NOT NULL,
  description       TEXT    NOT NULL,
  operation_type    TEXT    NOT NULL CHECK (operation_type IN ('SALE','RENT','SEASONAL')),
  status            TEXT    NOT NULL CHECK (status IN ('AVAILABLE','RENTED','RESERVED','SOLD','UNAVAILABLE')),
  property_type     TEXT,
  highlight         TEXT    NOT NULL,
  exclusive         INTEGER NOT NULL CHECK (exclusive IN (0,1)),
  is_published      INTEGER NOT NULL CHECK (is_published IN (0,1)),
  created_at        TEXT    NOT NULL,
  updated_at        TEXT    NOT NULL,
  street            TEXT,
  number            TEXT,
  complement        TEXT,
  neighborhood      TEXT,
  city              TEXT,
  state             TEXT,
  uf                TEXT,
  cep               TEXT,
  latitude          NUMERIC,
  longitude         NUMERIC,
  total_area        NUMERIC,
  built_area        NUMERIC,
  bedrooms          INTEGER,
  bathrooms         INTEGER,
  suites            INTEGER,
  parking_spaces    INTEGER,
  floor             INTEGER,
  total_floors      INTEGER,
  is_furnished      INTEGER NOT NULL DEFAULT 0 CHECK (is_furnished IN (0,1)),
  sale_price        NUMERIC,
  rental_price      NUMERIC,
  condominium_fee   NUMERIC,
  iptu              NUMERIC,
  accepts_financing INTEGER NOT NULL DEFAULT 0 CHECK (accepts_financing IN (0,1))
);

-- A code identifies a listing at the agency: unique when present (imports match on it).
CREATE UNIQUE INDEX properties_code ON properties(code) WHERE code IS NOT NULL;
-- List orders over the published set; (key, id) makes every order total.
CREATE INDEX properties_published_created ON properties(created_at, id) WHERE is_published = 1;
CREATE INDEX properties_published_updated ON properties(updated_at, id) WHERE is_published = 1;
CREATE INDEX properties_published_status_created ON properties(status, created_at, id) WHERE is_published = 1;
CREATE INDEX properties_published_status_updated ON properties(status, updated_at, id) WHERE is_published = 1;
CREATE INDEX properties_published_type ON properties(property_type, created_at, id) WHERE is_published = 1;

CREATE TABLE photos (
  property_id TEXT    NOT NULL REFERENCES properties(id) ON DELETE CASCADE,
  id          TEXT    NOT NULL,
  url         TEXT    NOT NULL,
  alt         TEXT,
  position    INTEGER NOT NULL,
  is_main     INTEGER NOT NULL CHECK (is_main IN (0,1)),
  PRIMARY KEY (property_id, position, id)
) WITHOUT ROWID;

CREATE TABLE leads (
  id                        TEXT NOT NULL UNIQUE,
  name                      TEXT NOT NULL,
  email                     TEXT NOT NULL,
  phone                     TEXT NOT NULL,
  message                   TEXT NOT NULL,
  source                    TEXT NOT NULL,
  status                    TEXT NOT NULL,
  priority                  TEXT NOT NULL,
  property_id               TEXT,
  interested_property_title TEXT,
  interested_property_link  TEXT,
  traffic_origin            TEXT,
  created_at                TEXT NOT NULL,
  updated_at                TEXT NOT NULL
);

CREATE INDEX leads_created ON leads(created_at, id);
CREATE INDEX leads_updated ON leads(updated_at, id);
CREATE INDEX leads_status_created ON leads(status, created_at, id);
CREATE INDEX leads_status_updated ON leads(status, updated_at, id);

-- Idempotency-Key records, per client; only successful creations are remembered.
CREATE TABLE idempotency_keys (
  client_id    TEXT NOT NULL,
  key          TEXT NOT NULL,
  request_hash TEXT NOT NULL,
  lead_id      TEXT NOT NULL,
  response     TEXT NOT NULL,
  created_at   TEXT NOT NULL,
  PRIMARY KEY (client_id, key)
) WITHOUT ROWID;
CREATE INDEX idempotency_keys_created ON idempotency_keys(created_at);

-- The change feed. AUTOINCREMENT: a sequence is never reused, even after compaction deletes rows.
CREATE TABLE changes (
  sequence  INTEGER PRIMARY KEY AUTOINCREMENT,
  entity    TEXT NOT NULL CHECK (entity IN ('properties','leads')),
  record_id TEXT NOT NULL,
  change    TEXT NOT NULL CHECK (change IN ('upsert','remove')),
  at        TEXT NOT NULL
);
CREATE INDEX changes_entity_sequence ON changes(entity, sequence);
CREATE INDEX changes_record ON changes(entity, record_id, sequence);

-- Exact totals without COUNT(*) over big tables: one row per combination of the equality
-- filters, kept by triggers, so every writer (server, import, seed, another process) keeps them right.
CREATE TABLE property_counts (
  status         TEXT NOT NULL,
  operation_type TEXT NOT NULL,
  property_type  TEXT NOT NULL,  -- '' stands for NULL
  highlight      TEXT NOT NULL,
  n              INTEGER NOT NULL,
  PRIMARY KEY (status, operation_type, property_type, highlight)
) WITHOUT ROWID;

CREATE TABLE lead_counts (
  status   TEXT NOT NULL,
  source   TEXT NOT NULL,
  priority TEXT NOT NULL,
  n        INTEGER NOT NULL,
  PRIMARY KEY (status, source, priority)
) WITHOUT ROWID;

-- ---- counters ----

CREATE TRIGGER properties_count_insert AFTER INSERT ON properties WHEN new.is_published = 1
BEGIN
  INSERT INTO property_counts VALUES (new.status, new.operation_type, coalesce(new.property_type, ''), new.highlight, 1)
    ON CONFLICT DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER properties_count_delete AFTER DELETE ON properties WHEN old.is_published = 1
BEGIN
  UPDATE property_counts SET n = n - 1
   WHERE status = old.status AND operation_type = old.operation_type
     AND property_type = coalesce(old.property_type, '') AND highlight = old.highlight;
END;

CREATE TRIGGER properties_count_update AFTER UPDATE OF is_published, status, operation_type, property_type, highlight ON properties
BEGIN
  UPDATE property_counts SET n = n - 1
   WHERE old.is_published = 1 AND status = old.status AND operation_type = old.operation_type
     AND property_type = coalesce(old.property_type, '') AND highlight = old.highlight;
  INSERT INTO property_counts
    SELECT new.status, new.operation_type, coalesce(new.property_type, ''), new.highlight, 1 WHERE new.is_published = 1
    ON CONFLICT DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER leads_count_insert AFTER INSERT ON leads
BEGIN
  INSERT INTO lead_counts VALUES (new.status, new.source, new.priority, 1)
    ON CONFLICT DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER leads_count_delete AFTER DELETE ON leads
BEGIN
  UPDATE lead_counts SET n = n - 1
   WHERE status = old.status AND source = old.source AND priority = old.priority;
END;

CREATE TRIGGER leads_count_update AFTER UPDATE OF status, source, priority ON leads
BEGIN
  UPDATE lead_counts SET n = n - 1
   WHERE status = old.status AND source = old.source AND priority = old.priority;
  INSERT INTO lead_counts VALUES (new.status, new.source, new.priority, 1)
    ON CONFLICT DO UPDATE SET n = n + 1;
END;

-- ---- change feed ----

CREATE TRIGGER properties_feed_insert AFTER INSERT ON properties WHEN new.is_published = 1
BEGIN
  INSERT INTO changes (entity, record_id, change, at)
  VALUES ('properties', new.id, 'upsert', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
END;

-- Visible and readable content changed (or it just became visible): upsert.
CREATE TRIGGER properties_feed_update_visible AFTER UPDATE ON properties
WHEN new.is_published = 1 AND (
     old.is_published = 0 OR old.id IS NOT new.id OR old.code IS NOT new.code
  OR old.title IS NOT new.title OR old.description IS NOT new.description
  OR old.operation_type IS NOT new.operation_type OR old.status IS NOT new.status
  OR old.property_type IS NOT new.property_type OR old.highlight IS NOT new.highlight
  OR old.exclusive IS NOT new.exclusive OR old.created_at IS NOT new.created_at
  OR old.updated_at IS NOT new.updated_at
  OR old.street IS NOT new.street OR old.number IS NOT new.number OR old.complement IS NOT new.complement
  OR old.neighborhood IS NOT new.neighborhood OR old.city IS NOT new.city OR old.state IS NOT new.state
  OR old.uf IS NOT new.uf OR old.cep IS NOT new.cep
  OR old.latitude IS NOT new.latitude OR old.longitude IS NOT new.longitude
  OR old.total_area IS NOT new.total_area OR old.built_area IS NOT new.built_area
  OR old.bedrooms IS NOT new.bedrooms OR old.bathrooms IS NOT new.bathrooms OR old.suites IS NOT new.suites
  OR old.parking_spaces IS NOT new.parking_spaces OR old.floor IS NOT new.floor
  OR old.total_floors IS NOT new.total_floors OR old.is_furnished IS NOT new.is_furnished
  OR old.sale_price IS NOT new.sale_price OR old.rental_price IS NOT new.rental_price
  OR old.condominium_fee IS NOT new.condominium_fee OR old.iptu IS NOT new.iptu
  OR old.accepts_financing IS NOT new.accepts_financing)
BEGIN
  INSERT INTO changes (entity, record_id, change, at)
  VALUES ('properties', new.id, 'upsert', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
END;

CREATE TRIGGER properties_feed_unpublish AFTER UPDATE OF is_published ON properties
WHEN old.is_published = 1 AND new.is_published = 0
BEGIN
  INSERT INTO changes (entity, record_id, change, at)
  VALUES ('properties', old.id, 'remove', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
END;

CREATE TRIGGER properties_feed_delete AFTER DELETE ON properties WHEN old.is_published = 1
BEGIN
  INSERT INTO changes (entity, record_id, change, at)
  VALUES ('properties', old.id, 'remove', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
END;

-- Photos are part of a property's readable content.
CREATE TRIGGER photos_feed_insert AFTER INSERT ON photos
WHEN (SELECT is_published FROM properties WHERE id = new.property_id) = 1
BEGIN
  INSERT INTO changes (entity, record_id, change, at)
  VALUES ('properties', new.property_id, 'upsert', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
END;

CREATE TRIGGER photos_feed_update AFTER UPDATE ON photos
WHEN (SELECT is_published FROM properties WHERE id = new.property_id) = 1
BEGIN
  INSERT INTO changes (entity, record_id, change, at)
  VALUES ('properties', new.property_id, 'upsert', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
END;

CREATE TRIGGER photos_feed_delete AFTER DELETE ON photos
WHEN (SELECT is_published FROM properties WHERE id = old.property_id) = 1
BEGIN
  INSERT INTO changes (entity, record_id, change, at)
  VALUES ('properties', old.property_id, 'upsert', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
END;

CREATE TRIGGER leads_feed_insert AFTER INSERT ON leads
BEGIN
  INSERT INTO changes (entity, record_id, change, at)
  VALUES ('leads', new.id, 'upsert', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
END;

CREATE TRIGGER leads_feed_update AFTER UPDATE ON leads
BEGIN
  INSERT INTO changes (entity, record_id, change, at)
  VALUES ('leads', new.id, 'upsert', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
END;

CREATE TRIGGER leads_feed_delete AFTER DELETE ON leads
BEGIN
  INSERT INTO changes (entity, record_id, change, at)
  VALUES ('leads', old.id, 'remove', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
END;
