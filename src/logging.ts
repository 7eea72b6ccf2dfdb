// The process logger: pino JSON lines to stdout, buffered off the hot path; pretty lines
// through an in-process stream on a terminal (pino transports do not work in a compiled binary).
import pino, { type Logger } from "pino";
import pretty from "pino-pretty";

export type { Logger };

/** Paths that could ever carry secrets; we never log them, and redact them if one slips in. */
const REDACT = [
  "authorization",
  "headers.authorization",
  'headers["x-api-secret"]',
  "x-api-secret",
  "secret",
  "jwtSecret",
  "token",
  "config.jwtSecret",
  "config.metrics.token",
];

export function createLogger(options: { level?: string; pretty?: boolean } = {}): Logger {
  const base = { level: options.level ?? "info", redact: { paths: REDACT, censor: "[redacted]" }, base: undefined };
  const usePretty = options.pretty ?? process.stdout.isTTY === true;
  if (usePretty) return pino(base, pretty({ colorize: true, sync: true, translateTime: "SYS:HH:MM:ss.l" }));
  // Lines are gathered into 8 KiB writes (a write per line costs a share of a cached request;
  // sonic-boom measures its whole pending buffer on every line, so bigger buffers cost more),
  // and flushed at least every second so a quiet server's lines still show promptly.
  const destination = pino.destination({ dest: 1, sync: false, minLength: 8 * 1024 });
  setInterval(() => destination.flush(), 1000).unref();
  return pino(base, destination);
}

/** A logger that drops everything, for tests. */
export function silentLogger(): Logger {
  return pino({ level: "silent" });
}
