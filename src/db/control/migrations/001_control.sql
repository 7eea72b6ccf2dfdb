-- The control database (docs/operators/console.md): the agency's people, their sessions, the
-- partners made in the console, admin API tokens and the audit log. One file per server.

CREATE TABLE admins (
  id INTEGER PRIMARY KEY,
  email TEXT NOT NULL UNIQUE COLLATE NOCASE,
  role TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'viewer')),
  -- JSON array of database names this admin works on; [] = every database.
  databases TEXT NOT NULL DEFAULT '[]',
  status TEXT NOT NULL CHECK (status IN ('pending', 'active', 'disabled')),
  password_hash TEXT,
  -- Base32 TOTP secret (RFC 6238); null only for the sandbox's demo owner.
  totp_secret TEXT,
  -- The last TOTP time step accepted: a code is never accepted twice.
  totp_last_step INTEGER NOT NULL DEFAULT 0,
  -- SHA-256 of the one-time set-up link's token; null once spent.
  setup_token_hash TEXT UNIQUE,
  setup_expires_at INTEGER,
  created_at INTEGER NOT NULL
) STRICT;

CREATE TABLE admin_sessions (
  -- SHA-256 of the cookie's value: a stolen database file opens no session.
  id_hash TEXT PRIMARY KEY,
  admin_id INTEGER NOT NULL REFERENCES admins (id) ON DELETE CASCADE,
  csrf_token TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  last_seen_at INTEGER NOT NULL,
  ip TEXT
) STRICT;
CREATE INDEX admin_sessions_admin ON admin_sessions (admin_id);

-- Failed sign-ins per e-mail address ('email:<address>') and per source address ('ip:<address>').
CREATE TABLE sign_in_failures (
  subject TEXT PRIMARY KEY,
  failures INTEGER NOT NULL,
  locked_until INTEGER NOT NULL DEFAULT 0
) STRICT;

CREATE TABLE api_tokens (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  token_hash TEXT NOT NULL UNIQUE,
  role TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'viewer')),
  databases TEXT NOT NULL DEFAULT '[]',
  created_by TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  last_used_at INTEGER,
  revoked_at INTEGER
) STRICT;

CREATE TABLE partners (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  contact_email TEXT NOT NULL,
  use_case TEXT NOT NULL,
  database TEXT NOT NULL,
  scopes TEXT NOT NULL,
  rate_limit_per_minute INTEGER NOT NULL,
  allowed_ips TEXT NOT NULL DEFAULT '[]',
  enabled INTEGER NOT NULL DEFAULT 1,
  api_key TEXT NOT NULL UNIQUE,
  secret_hash TEXT NOT NULL,
  -- The secret replaced by the last rotation, valid until previous_valid_until (ms).
  previous_secret_hash TEXT,
  previous_valid_until INTEGER,
  inbound_format TEXT,
  inbound_username TEXT,
  inbound_password_hash TEXT,
  -- The inbound password the last rotation replaced, valid until previous_valid_until too.
  previous_inbound_password_hash TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
) STRICT;

CREATE TABLE audit_log (
  id INTEGER PRIMARY KEY,
  at INTEGER NOT NULL,
  -- The admin's e-mail, "token:<id>" for an API token, or the e-mail tried at a failed sign-in.
  actor TEXT NOT NULL,
  ip TEXT,
  action TEXT NOT NULL,
  target TEXT,
  -- JSON of what changed; never a secret or a password.
  changes TEXT
) STRICT;
CREATE INDEX audit_log_at ON audit_log (at);
CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log
BEGIN
  SELECT RAISE(ABORT, 'the audit log is append-only');
END;
CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log
BEGIN
  SELECT RAISE(ABORT, 'the audit log is append-only');
END;
