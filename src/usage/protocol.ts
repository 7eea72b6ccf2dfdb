// What the recorder (recorder.ts) sends its writer thread (writer-thread.ts), and what comes back.
// The request log's rows travel in columns (columns.ts): typed arrays, a few distinct strings and
// one string of request ids, so that handing a batch to the thread copies a few arrays instead of
// cloning thousands of objects; the thread turns them into the log's lines.
import type { AttemptRow, FeedRunRow, LastSeen, RequestLogFilter, RequestLogRow } from "../db/control/usage.ts";
import type { RequestColumnsData } from "./columns.ts";

export type WriterMessage =
  | { open: { path: string; busyTimeoutMs: number } }
  /** A page of the request log, read here: decoding its batches would hold the event loop. */
  | { page: { id: number; filter: RequestLogFilter; limit: number; offset: number; kept: number } }
  | {
      batch: {
        seq: number;
        counts: [string, number][];
        lastSeen: [string, LastSeen][];
        /** The requests for the log. */
        log: RequestColumnsData;
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
