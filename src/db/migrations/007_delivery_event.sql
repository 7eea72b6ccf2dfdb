-- Schema 7: what a delivery's body is made from, so the body need not be stored while its
-- first attempt is under way (src/modules/webhooks/repo.ts, the deliveries). A delivery sent
-- at once keeps its body in memory; the row keeps the event's record id and time, from which a process that
-- takes over a lease its holder left behind (killed mid-attempt) makes the body again. Rows
-- from before this schema always kept their body, so they never need either.
ALTER TABLE webhook_deliveries ADD COLUMN record_id TEXT;
ALTER TABLE webhook_deliveries ADD COLUMN event_at TEXT;
