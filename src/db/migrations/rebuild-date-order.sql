-- Recounts the records updated before they were created (migration 3) from what the tables
-- hold. Run once by the migration that created the count, and by loads that set the triggers aside.
UPDATE date_order_exceptions SET n = (SELECT count(*) FROM properties WHERE created_at > updated_at) WHERE entity = 'properties';
UPDATE date_order_exceptions SET n = (SELECT count(*) FROM leads WHERE created_at > updated_at) WHERE entity = 'leads';
