-- Schema 4: webhooks (docs/reference/behaviour-extensions.md §13). Events are read from the change log the triggers write,
-- so every writer produces them; subscriptions, the dispatch cursor and the deliveries live
-- here too, so pending work survives kill -9 and is shared by every process on the file.

-- lead.created or lead.updated: the change log's `upsert` alone cannot tell. The update
-- trigger marks its events; inserts (and loads that write the log in their place, as the
-- seed does) keep the default.
ALTER TABLE changes ADD COLUMN lead_update INTEGER NOT NULL DEFAULT 0 CHECK (lead_update IN (0,1));

DROP TRIGGER leads_feed_update;
CREATE TRIGGER leads_feed_update AFTER UPDATE ON leads
BEGIN
  INSERT INTO changes (entity, record_id, change, at, lead_update)
  VALUES ('leads', new.id, 'upsert', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), 1);
END;

-- A partner's subscription. Times the API shows are ISO text; times the delivery machinery
-- compares are integer milliseconds.
CREATE TABLE webhook_subscriptions (
  id                      TEXT    NOT NULL PRIMARY KEY,
  client_id               TEXT    NOT NULL,
  url                     TEXT    NOT NULL,
  events                  TEXT    NOT NULL,  -- JSON array of event types
  description             TEXT,
  enabled                 INTEGER NOT NULL CHECK (enabled IN (0,1)),
  disabled_reason         TEXT,
  secret                  TEXT    NOT NULL,  -- whsec_…: the server must sign with it, so it cannot be hashed
  previous_secret         TEXT,              -- the secret before the last rotation, signing too until…
  previous_secret_until   INTEGER,           -- …this instant (ms)
  after_sequence          INTEGER NOT NULL,  -- events after this sequence are dispatched to it
  replay_after            INTEGER,           -- a replay under way: events in (replay_after, replay_until]
  replay_until            INTEGER,
  failing_since           INTEGER,           -- first failed attempt since the last success (ms)
  created_at              TEXT    NOT NULL,
  updated_at              TEXT    NOT NULL
) WITHOUT ROWID;
CREATE INDEX webhook_subscriptions_client ON webhook_subscriptions(client_id, created_at, id);

-- How far the change log has been turned into deliveries, for every subscription at once.
-- Compaction (src/db/compaction.ts) leaves the events after it alone while any subscription exists.
CREATE TABLE webhook_cursor (
  id       INTEGER NOT NULL PRIMARY KEY CHECK (id = 1),
  sequence INTEGER NOT NULL
);
INSERT INTO webhook_cursor (id, sequence) VALUES (1, (SELECT coalesce(max(sequence), 0) FROM changes));

-- One event for one subscription. `id` is the webhook-id, the same on every attempt. A pending
-- delivery is due at next_attempt_at; claiming it moves next_attempt_at to the end of a lease
-- and names the claiming process, so a process killed mid-attempt leaves it due again later.
CREATE TABLE webhook_deliveries (
  n               INTEGER PRIMARY KEY,
  id              TEXT    NOT NULL UNIQUE,
  subscription_id TEXT    NOT NULL REFERENCES webhook_subscriptions(id) ON DELETE CASCADE,
  type            TEXT    NOT NULL,
  sequence        INTEGER NOT NULL,
  payload         TEXT,               -- the signed body; dropped once the delivery is finished
  state           TEXT    NOT NULL CHECK (state IN ('pending','succeeded','failed')),
  attempts        INTEGER NOT NULL DEFAULT 0,
  last_status     INTEGER,
  last_error      TEXT,
  last_attempt_at INTEGER,
  next_attempt_at INTEGER,            -- ms; null once finished
  lease_owner     TEXT,
  created_at      INTEGER NOT NULL
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries(subscription_id, next_attempt_at) WHERE state = 'pending';
CREATE INDEX webhook_deliveries_log ON webhook_deliveries(subscription_id, n);
CREATE INDEX webhook_deliveries_log_state ON webhook_deliveries(subscription_id, state, n);
CREATE INDEX webhook_deliveries_finished ON webhook_deliveries(created_at) WHERE state <> 'pending';
