// The --help text.
export const HELP = `partner-api: the Partner API of a real-estate agency, one executable with its storage.

Usage:
  partner-api sandbox [--port P] [--host H] [--db FILE] [--rate-limit N] [--reset] [--no-metrics]
      Serve fictitious data with the published sandbox credentials
      (pk_sandbox_demo / sk_sandbox_demo). Builds FILE (default data/sandbox.sqlite) if missing.
      Listens on 127.0.0.1 unless --host says otherwise (--host 0.0.0.0 in a container).
  partner-api serve [--config FILE] [--port P] [--host H] [--workers N] [--no-metrics]
      Serve production from a config file (default ./config.json). SIGHUP reloads it.
      Pulls the config's "feeds" at start and then every interval.
      --workers N starts N processes sharing the port; needs "redis" in the config.
      --no-metrics stops recording request metrics (GET /metrics keeps database sizes).
  partner-api seed --out FILE [--properties N] [--leads N] [--seed S] [--as-of ISO] [--force]
      Write a deterministic fictitious dataset (default 1000 properties, 5000 leads, seed 42).
  partner-api hash-secret SECRET
      Print the value to put in a client's "secretHash".
  partner-api client new --id ID [--name NAME] [--portal [--url BASE]]
      Print a fresh API key and secret and the config entry for them. --portal: a portal's client
      (ZAP, VivaReal, OLX), with the feed URL, user and password to paste into its panel.
  partner-api config-schema
      Print the JSON Schema of the config file.
  partner-api import --db FILE FEED [--partial] [--dry-run] [--strict] [--json] [--timeout D] [--max-bytes N]
      Import a VRSync XML or NDJSON feed (a path or an http(s) URL), matched on the listing code.
      A URL's download is bounded: --timeout (default 30m) and --max-bytes (default 1 GiB).
  partner-api feeds status --config FILE [--json]
      Each configured feed's last run (time, outcome, summary or error) and next run, from the database.
  partner-api feeds run --config FILE [--id ID] [--json]
      Run the feeds (or one) now, as serve does; exit 1 when a run was guarded or failed.
  partner-api export --db FILE --format vrsync|ndjson [--entity properties|leads] [--since ISO] [--out FILE] [--json]
      Published properties as VRSync or NDJSON, or leads as NDJSON, on stdout or to FILE.
  partner-api backup --db FILE --out FILE [--json]
      A consistent copy of a database, even while it is being served (the control database too).
  partner-api admin new --config FILE --email E --role owner|admin|viewer [--database NAME]... [--url BASE]
      Make an admin of the agency console and print its one-time set-up link (valid 24 hours),
      where the person sets a password and enrols TOTP. --database (repeatable) limits an admin
      or viewer to those databases; --url is the address the console is reached at.
  partner-api privacy find|export --db FILE (--email E | --phone P) [--config FILE]
  partner-api privacy anonymize --db FILE (--email E | --phone P | --lead ID...) [--json]
      A person's leads under the LGPD: find them (e-mail in any case, phone by its digits), export
      them with whom each was shared (--config adds the clients that may read them), or anonymize
      them so that no byte of the person stays in the file; a server sends lead.anonymized.
  partner-api healthcheck [--port P] [--host H]
      Exit 0 when GET /health on this machine (default 127.0.0.1, port as below) answers 200,
      else 1 saying why: the container image's health check.
  partner-api --version | --help

Port: --port, else the PORT environment variable, else the config's "port", else 8080.
A port already in use is an error (exit 1), never shared with the server already there.
Without "jwtSecret" in the config, the token secret is made at first start and kept in a file:
<config>.jwt-secret, or the file PARTNER_API_JWT_SECRET_FILE names (the container image: /app/data/jwt-secret).
Exit codes: 0 success, 1 failure (import: rejected listings; feeds run: a guarded or failed run), 2 bad flags or config.
`;
