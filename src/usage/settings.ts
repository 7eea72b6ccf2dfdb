// The defaults of recording what the agency sees (docs/operators/console.md#what-the-agency-sees).

/** How many of the last requests the request log keeps, for the whole server. */
export const DEFAULT_REQUEST_LOG_ROWS = 200_000;

/** How many days of counters are kept per client. */
export const USAGE_DAYS_KEPT = 90;

/** How often each process writes what it recorded (figures show within twice this). */
export const USAGE_FLUSH_EVERY_MS = 500;
