-- Schema 6: the run state of the CRM feeds `serve` pulls (docs/reference/behaviour-extensions.md §14), one row per feed id
-- of a database, kept in the database the feed writes into, so every process on the file (serve
-- --workers, several hosts, `partner-api feeds status` and `feeds run`) sees the same state, and
-- the lease that makes one process, and only one, run each feed at a time. Instants are Unix
-- milliseconds.
CREATE TABLE feed_runs (
  feed_id          TEXT    NOT NULL PRIMARY KEY,
  -- Who runs the feed now, until when (renewed while the run lasts; past it, another process
  -- may take the run over: its holder died).
  lease_owner      TEXT,
  lease_until      INTEGER,
  -- A run was asked for now (a process started, the feed's URL or mode changed).
  run_requested    INTEGER NOT NULL DEFAULT 0 CHECK (run_requested IN (0,1)),
  last_started_at  INTEGER,
  last_started_for TEXT,             -- the URL and mode that run was for
  last_finished_at INTEGER,
  -- success: applied; not_modified: the server answered 304; guarded: refused by a guard
  -- (too much would be unpublished); failed: the download, the feed or the run failed.
  last_outcome     TEXT CHECK (last_outcome IN ('success','not_modified','guarded','failed')),
  last_error       TEXT,
  -- The import summary of the last run that applied (JSON: counts and warnings by kind).
  last_summary     TEXT CHECK (last_summary IS NULL OR json_valid(last_summary)),
  last_success_at  INTEGER,
  -- The validators of the last success, and what they belong to (the URL and mode then): a
  -- changed URL or mode is never sent a conditional request meant for the old one.
  validators_for   TEXT,
  etag             TEXT,
  last_modified    TEXT
) WITHOUT ROWID;
