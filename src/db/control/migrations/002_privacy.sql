-- Control schema 2: the register of personal-data requests (docs/operators/personal-data.md).
-- A request names the person by e-mail or phone while it is open; once completed or refused
-- only a digest of the identifier stays (`subject_hash`), and the identifiers are overwritten
-- (the control database runs with secure_delete, and its WAL is cut after the change).
CREATE TABLE privacy_requests (
  id           INTEGER PRIMARY KEY,
  kind         TEXT    NOT NULL CHECK (kind IN ('confirmation','access','correction','anonymization','portability','sharing')),
  database     TEXT    NOT NULL,
  received_at  INTEGER NOT NULL,
  due_at       INTEGER NOT NULL,
  status       TEXT    NOT NULL CHECK (status IN ('open','completed','refused')),
  handled_by   TEXT,
  completed_at INTEGER,
  email        TEXT,
  phone        TEXT,
  subject_hash TEXT    NOT NULL,
  created_by   TEXT    NOT NULL,
  updated_at   INTEGER NOT NULL
) STRICT;
CREATE INDEX privacy_requests_due ON privacy_requests (status, due_at);
