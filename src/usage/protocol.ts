// What the recorder (recorder.ts) sends its writer thread (writer-thread.ts), and what comes back.
// A batch's requests travel in columns (columns.ts): typed arrays, transferred rather than
// copied, a few distinct strings and the request ids as bytes, instead of thousands of cloned
// objects; the thread tallies the counters from them and packs them into one row of the log
// (request-log.ts).
import type { RequestColumnsData, RequestLogRow } from "../db/control/request-log.ts";
import type { AttemptRow, FeedRunRow, RequestLogFilter } from "../db/control/usage.ts";

export type WriterMessage =
  | { open: { path: string; busyTimeoutMs: number } }
  /** A page of the request log, read here: decoding its batches would hold the event loop. */
  | { page: { id: number; filter: RequestLogFilter; limit: number; offset: number; kept: number } }
  /** The server stops: the thread closes its connection, and answers `closed`. */
  | { close: true }
  | {
      batch: {
        seq: number;
        /** The requests, for the counters (tallied by the thread) and the log. */
        requests: RequestColumnsData;
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
  | { page: number; error: string }
  | { closed: true };
