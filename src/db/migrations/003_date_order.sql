-- Schema 3: what lists filtered on one date and ordered by the other need
-- (src/modules/lists/date-order.ts, date-pairs.ts). Both are kept by triggers, so every
-- writer keeps them right, and filled from the tables by rebuild-date-order.sql, which
-- migrate.ts runs right after this file (the seed runs it too).
--
-- 1. How many records were last updated before they were created. A record normally never
--    is, and while none is, a filter on one date says something about the other
--    (updated_at < X means created_at < X): such lists start their index scan at X. A feed
--    may still carry such records; the count tells the reader when to stop relying on the
--    order. Counted over every row, published or not: it only has to be 0 when the order
--    holds for every visible one.
--
-- 2. Visible records per day of one date and per third of a month of the other
--    (the first 9 characters, 'YYYY-MM-D'). A list filtered on one date and ordered by the
--    other counts its rows per day of the order from these (whole thirds on the matching side
--    of the bound) plus the bound's own third, counted in the index: the day a deep page
--    starts on, without walking every row before it. A prefix of the stored text, so a
--    bucket is before or after a bound exactly as its dates are, whatever they hold.

CREATE TABLE date_order_exceptions (
  entity TEXT    NOT NULL PRIMARY KEY,
  n      INTEGER NOT NULL
) WITHOUT ROWID;
INSERT INTO date_order_exceptions (entity, n) VALUES ('properties', 0), ('leads', 0);

CREATE TRIGGER properties_date_order_insert AFTER INSERT ON properties WHEN new.created_at > new.updated_at
BEGIN
  UPDATE date_order_exceptions SET n = n + 1 WHERE entity = 'properties';
END;

CREATE TRIGGER properties_date_order_delete AFTER DELETE ON properties WHEN old.created_at > old.updated_at
BEGIN
  UPDATE date_order_exceptions SET n = n - 1 WHERE entity = 'properties';
END;

CREATE TRIGGER properties_date_order_update AFTER UPDATE OF created_at, updated_at ON properties
WHEN (old.created_at > old.updated_at) <> (new.created_at > new.updated_at)
BEGIN
  UPDATE date_order_exceptions SET n = n + (new.created_at > new.updated_at) - (old.created_at > old.updated_at)
   WHERE entity = 'properties';
END;

CREATE TRIGGER leads_date_order_insert AFTER INSERT ON leads WHEN new.created_at > new.updated_at
BEGIN
  UPDATE date_order_exceptions SET n = n + 1 WHERE entity = 'leads';
END;

CREATE TRIGGER leads_date_order_delete AFTER DELETE ON leads WHEN old.created_at > old.updated_at
BEGIN
  UPDATE date_order_exceptions SET n = n - 1 WHERE entity = 'leads';
END;

CREATE TRIGGER leads_date_order_update AFTER UPDATE OF created_at, updated_at ON leads
WHEN (old.created_at > old.updated_at) <> (new.created_at > new.updated_at)
BEGIN
  UPDATE date_order_exceptions SET n = n + (new.created_at > new.updated_at) - (old.created_at > old.updated_at)
   WHERE entity = 'leads';
END;

CREATE TABLE property_date_pairs (
  kind  TEXT    NOT NULL,  -- the date the days are of: 'created' or 'updated'
  day   TEXT    NOT NULL,
  other TEXT    NOT NULL,  -- first 9 characters of the other date
  n     INTEGER NOT NULL,
  PRIMARY KEY (kind, day, other)
) WITHOUT ROWID;

CREATE TABLE lead_date_pairs (
  kind  TEXT    NOT NULL,
  day   TEXT    NOT NULL,
  other TEXT    NOT NULL,
  n     INTEGER NOT NULL,
  PRIMARY KEY (kind, day, other)
) WITHOUT ROWID;

CREATE TRIGGER properties_date_pairs_insert AFTER INSERT ON properties WHEN new.is_published = 1
BEGIN
  INSERT INTO property_date_pairs (kind, day, other, n) VALUES
    ('created', substr(new.created_at, 1, 10), substr(new.updated_at, 1, 9), 1),
    ('updated', substr(new.updated_at, 1, 10), substr(new.created_at, 1, 9), 1)
  ON CONFLICT DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER properties_date_pairs_delete AFTER DELETE ON properties WHEN old.is_published = 1
BEGIN
  UPDATE property_date_pairs SET n = n - 1
   WHERE (kind, day, other) IN (VALUES
     ('created', substr(old.created_at, 1, 10), substr(old.updated_at, 1, 9)),
     ('updated', substr(old.updated_at, 1, 10), substr(old.created_at, 1, 9)));
END;

CREATE TRIGGER properties_date_pairs_update AFTER UPDATE OF is_published, created_at, updated_at ON properties
BEGIN
  UPDATE property_date_pairs SET n = n - 1
   WHERE old.is_published = 1 AND (kind, day, other) IN (VALUES
     ('created', substr(old.created_at, 1, 10), substr(old.updated_at, 1, 9)),
     ('updated', substr(old.updated_at, 1, 10), substr(old.created_at, 1, 9)));
  INSERT INTO property_date_pairs (kind, day, other, n)
    SELECT column1, column2, column3, 1 FROM (VALUES
      ('created', substr(new.created_at, 1, 10), substr(new.updated_at, 1, 9)),
      ('updated', substr(new.updated_at, 1, 10), substr(new.created_at, 1, 9)))
     WHERE new.is_published = 1
  ON CONFLICT DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER leads_date_pairs_insert AFTER INSERT ON leads
BEGIN
  INSERT INTO lead_date_pairs (kind, day, other, n) VALUES
    ('created', substr(new.created_at, 1, 10), substr(new.updated_at, 1, 9), 1),
    ('updated', substr(new.updated_at, 1, 10), substr(new.created_at, 1, 9), 1)
  ON CONFLICT DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER leads_date_pairs_delete AFTER DELETE ON leads
BEGIN
  UPDATE lead_date_pairs SET n = n - 1
   WHERE (kind, day, other) IN (VALUES
     ('created', substr(old.created_at, 1, 10), substr(old.updated_at, 1, 9)),
     ('updated', substr(old.updated_at, 1, 10), substr(old.created_at, 1, 9)));
END;

CREATE TRIGGER leads_date_pairs_update AFTER UPDATE OF created_at, updated_at ON leads
BEGIN
  UPDATE lead_date_pairs SET n = n - 1
   WHERE (kind, day, other) IN (VALUES
     ('created', substr(old.created_at, 1, 10), substr(old.updated_at, 1, 9)),
     ('updated', substr(old.updated_at, 1, 10), substr(old.created_at, 1, 9)));
  INSERT INTO lead_date_pairs (kind, day, other, n) VALUES
    ('created', substr(new.created_at, 1, 10), substr(new.updated_at, 1, 9), 1),
    ('updated', substr(new.updated_at, 1, 10), substr(new.created_at, 1, 9), 1)
  ON CONFLICT DO UPDATE SET n = n + 1;
END;
