-- The request log's batches packed (src/db/control/request-log.ts) instead of lines of text: the
-- writer thread builds no text per request, and the file takes about two fifths of the bytes.
-- `requests` holds a batch written before as its lines (TEXT) and one written since as its
-- packed bytes (BLOB); the rows already there are copied as they are.
CREATE TABLE request_log_any (
  id INTEGER PRIMARY KEY,
  first_at INTEGER NOT NULL,
  last_at INTEGER NOT NULL,
  n INTEGER NOT NULL,
  upto INTEGER NOT NULL,
  requests ANY NOT NULL
) STRICT;
INSERT INTO request_log_any (id, first_at, last_at, n, upto, requests)
  SELECT id, first_at, last_at, n, upto, requests FROM request_log;
DROP TABLE request_log;
ALTER TABLE request_log_any RENAME TO request_log;
CREATE INDEX request_log_upto ON request_log (upto);
