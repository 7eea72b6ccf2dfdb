// What the recorder (recorder.ts) sends its writer thread (writer-thread.ts), and what comes back.
// The request log's rows travel as one string, a row a line of fields apart by \x1f (their values
// hold no control character: route templates, ids, addresses, codes), so that handing a batch to
// the thread copies one string instead of cloning thousands of objects.
import type { AttemptRow, FeedRunRow, LastSeen, RequestLogRow } from "../db/control/usage.ts";

export type WriterMessage =
  | { open: { path: string; busyTimeoutMs: number } }
  | {
      batch: {
        seq: number;
        counts: [string, number][];
        lastSeen: [string, LastSeen][];
        /** Rows of the request log, encodeRow's lines joined by "\n". */
        log: string;
        attempts: AttemptRow[];
        feedRuns: FeedRunRow[];
        logRows: number;
        /** Counters of days before this one are dropped (once a day). */
        forgetBefore: string | null;
      };
    };

export type WriterReport = { written: number } | { failed: number; error: string };

const FIELD = "\x1f";
const NULL = "\x00";

const value = (text: string) => (text === NULL ? null : text);

export function encodeRow(r: RequestLogRow): string {
  // One template, no array: this runs for every request.
  return `${r.at}\x1f${r.client ?? NULL}\x1f${r.method}\x1f${r.route ?? NULL}\x1f${r.status}\x1f${r.code ?? NULL}\x1f${r.ms}\x1f${r.ip ?? NULL}\x1f${r.requestId}`;
}

export function decodeRows(text: string): RequestLogRow[] {
  if (text === "") return [];
  return text.split("\n").map((line) => {
    const f = line.split(FIELD);
    return {
      at: Number(f[0]),
      client: value(f[1]!),
      method: f[2]!,
      route: value(f[3]!),
      status: Number(f[4]),
      code: value(f[5]!),
      ms: Number(f[6]),
      ip: value(f[7]!),
      requestId: f[8]!,
    };
  });
}
