-- Schema 3: how many records were last updated before they were created. A record normally
-- never is, and while none is, a filter on one date says something about the other
-- (updated_at < X means created_at < X): lists filtered on one date and ordered by the other
-- use that to start their index scan at X and to locate deep pages from the per-day counters
-- (src/modules/listing/date-order.ts). A feed may still carry such records; the count tells
-- the reader when to stop relying on the order. Counted over every row, published or not:
-- the count only has to be 0 when the order holds for every visible one. Filled by
-- rebuild-date-order.sql, which migrate.ts runs right after this file (the seed runs it too).

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
