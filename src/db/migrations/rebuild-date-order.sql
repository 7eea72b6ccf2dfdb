-- Refills what migration 3 keeps from what the tables hold: the count of records updated
-- before they were created, and the date pairs. Run once by the migration that created them,
-- and by loads that set the triggers aside.
UPDATE date_order_exceptions SET n = (SELECT count(*) FROM properties WHERE created_at > updated_at) WHERE entity = 'properties';
UPDATE date_order_exceptions SET n = (SELECT count(*) FROM leads WHERE created_at > updated_at) WHERE entity = 'leads';

DELETE FROM property_date_pairs;
INSERT INTO property_date_pairs (kind, day, other, n)
  SELECT 'created', substr(created_at, 1, 10), substr(updated_at, 1, 9), count(*) FROM properties WHERE is_published = 1 GROUP BY 2, 3;
INSERT INTO property_date_pairs (kind, day, other, n)
  SELECT 'updated', substr(updated_at, 1, 10), substr(created_at, 1, 9), count(*) FROM properties WHERE is_published = 1 GROUP BY 2, 3;

DELETE FROM lead_date_pairs;
INSERT INTO lead_date_pairs (kind, day, other, n)
  SELECT 'created', substr(created_at, 1, 10), substr(updated_at, 1, 9), count(*) FROM leads GROUP BY 2, 3;
INSERT INTO lead_date_pairs (kind, day, other, n)
  SELECT 'updated', substr(updated_at, 1, 10), substr(created_at, 1, 9), count(*) FROM leads GROUP BY 2, 3;
