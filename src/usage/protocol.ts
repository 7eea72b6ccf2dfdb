// What the recorder (recorder.ts) sends its writer thread (writer-thread.ts), and what comes back.
// The request log's rows travel as one string, a row a line of fields apart by \x1f (their values
// hold no control character: route templates, ids, addresses, codes), so that handing a batch to
// the thread copies one string instead of cloning thousands of objects.
import type { AttemptRow, FeedRunRow, LastSeen, RequestLogFilter, RequestLogRow } from "../db/control/usage.ts";

export type WriterMessage =
  | { open: { path: string; busyTimeoutMs: number } }
  /** A page of the request log, read here: decoding its batches would hold the event loop. */
  | { page: { id: number; filter: RequestLogFilter; limit: number; offset: number; kept: number } }
  | {
      batch: {
        seq: number;
        counts: [string, number][];
        lastSeen: [string, LastSeen][];
        /** The requests for the log, encodeRequest's lines (db/control/usage.ts) joined by "\n". */
        log: string;
        attempts: AttemptRow[];
        feedRuns: FeedRunRow[];
        logRows: number;
        /** Counters of days before this one are dropped (once a day). */
        forgetBefore: string | null;
      };
    };

export type WriterReport =
  | { written: number }
  | { failed: number; error: string }
  | { page: number; rows: RequestLogRow[]; total: number }
  | { page: number; error: string };
