-- What the agency sees (docs/operators/console.md#what-the-agency-sees): each partner's use by
-- day, when it was last seen, and the request log. Written in batches by every process of the
-- server; never a request's body or query string.

-- Counters per client and UTC day: outcomes ('2xx', '3xx', '401', '403', '403:<code>', '404',
-- '429', '4xx', '5xx'), 'leads' created, portal feed downloads ('feed', 'feed:304',
-- 'feed:bytes'), and latency buckets ('ms:<b>', b the bucket of docs/operators/console.md).
CREATE TABLE usage_counts (
  client TEXT NOT NULL,
  day TEXT NOT NULL,
  name TEXT NOT NULL,
  n INTEGER NOT NULL,
  PRIMARY KEY (client, day, name)
) STRICT, WITHOUT ROWID;
CREATE INDEX usage_counts_day ON usage_counts (day);

-- The last request of each client (its time in ms, source address and route template).
CREATE TABLE usage_last_seen (
  client TEXT PRIMARY KEY,
  at INTEGER NOT NULL,
  ip TEXT,
  route TEXT
) STRICT;

-- The last requests of the server (usage.requestLogRows of them): never a body or a query value.
-- A row is one batch of a process's requests (written twice a second), its requests as lines of
-- fields (src/db/control/usage.ts, encodeRequest): a row per request cost the read hot path a
-- tenth of its throughput in inserts, index entries and trimming. `upto` counts the requests
-- written before and in this batch, so the oldest batches past the kept number go by one range.
CREATE TABLE request_log (
  id INTEGER PRIMARY KEY,
  first_at INTEGER NOT NULL,
  last_at INTEGER NOT NULL,
  n INTEGER NOT NULL,
  upto INTEGER NOT NULL,
  requests TEXT NOT NULL
) STRICT;
CREATE INDEX request_log_upto ON request_log (upto);

-- Each attempt of a webhook delivery (the tenant database keeps only a delivery's last one):
-- its status (null when no answer came), latency, why it failed, and the first KiB of the answer.
CREATE TABLE webhook_attempts (
  id INTEGER PRIMARY KEY,
  database TEXT NOT NULL,
  subscription_id TEXT NOT NULL,
  delivery_id TEXT NOT NULL,
  at INTEGER NOT NULL,
  status INTEGER,
  ms REAL NOT NULL,
  error TEXT,
  answer TEXT
) STRICT;
CREATE INDEX webhook_attempts_delivery ON webhook_attempts (delivery_id, id);

-- Every run of a CRM feed (the database keeps only the last one): when, how long, how it ended,
-- its counts and first rejections with their reasons (JSON of the run's summary).
CREATE TABLE feed_run_log (
  id INTEGER PRIMARY KEY,
  feed_id TEXT NOT NULL,
  database TEXT,
  started_at INTEGER NOT NULL,
  ms REAL NOT NULL,
  outcome TEXT NOT NULL,
  error TEXT,
  summary TEXT,
  -- A guarded run an admin applied or dropped: 'applied' or 'dropped', by whom, when.
  decision TEXT,
  decided_by TEXT,
  decided_at INTEGER
) STRICT;
CREATE INDEX feed_run_log_feed ON feed_run_log (feed_id, id);

-- Counts each change to the partners table, so that a process follows partners' changes and
-- not every batch of figures another process writes.
CREATE TABLE partners_version (
  one INTEGER PRIMARY KEY CHECK (one = 1),
  version INTEGER NOT NULL
) STRICT;
INSERT INTO partners_version (one, version) VALUES (1, 0);
CREATE TRIGGER partners_version_insert AFTER INSERT ON partners
BEGIN
  UPDATE partners_version SET version = version + 1;
END;
CREATE TRIGGER partners_version_update AFTER UPDATE ON partners
BEGIN
  UPDATE partners_version SET version = version + 1;
END;
CREATE TRIGGER partners_version_delete AFTER DELETE ON partners
BEGIN
  UPDATE partners_version SET version = version + 1;
END;
