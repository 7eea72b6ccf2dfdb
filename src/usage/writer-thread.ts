// The figures' writer thread (docs/operators/console.md#how-it-is-recorded): a connection of its
// own to the control database, where each batch the recorder sends is written in one
// transaction, so that neither the insert nor a wait for another process's batch holds up the
// event loop. A batch the file refuses (locked past the wait, disk full) is kept and tried again,
// in order, before the next one, and once a second meanwhile.
import { lowerThisThread } from "../background-priority.ts";
import { openUsageConnection } from "../db/control/open.ts";
import { packRequests } from "../db/control/request-log.ts";
import { UsageStore } from "../db/control/usage.ts";
import type { WriterMessage, WriterReport } from "./protocol.ts";
import { tallyOf } from "./tally.ts";

declare const self: Worker;

type Batch = Extract<WriterMessage, { batch: unknown }>["batch"];

/** Batches kept for another try at most: past it, the oldest are dropped. */
const KEPT_AT_MOST = 120;
const RETRY_MS = 1000;

/** Nice steps below the event loop's: a request in flight on a busy core comes first. */
const WRITER_NICE_STEPS = 10;

let store: UsageStore | null = null;
const waiting: Batch[] = [];
let timer: ReturnType<typeof setTimeout> | null = null;

function writeWaiting(): void {
  if (timer !== null) clearTimeout(timer);
  timer = null;
  while (waiting.length > 0 && store !== null) {
    const batch = waiting[0]!;
    try {
      const { counts, lastSeen } = tallyOf(batch.requests);
      store.write(
        {
          counts,
          lastSeen,
          requests: packRequests(batch.requests),
          attempts: batch.attempts,
          feedRuns: batch.feedRuns,
        },
        batch.logRows,
      );
      if (batch.forgetBefore !== null) store.forgetBefore(batch.forgetBefore);
      waiting.shift();
      self.postMessage({ written: batch.seq } satisfies WriterReport);
    } catch (error) {
      self.postMessage({ failed: batch.seq, error: (error as Error).message } satisfies WriterReport);
      timer = setTimeout(writeWaiting, RETRY_MS);
      return;
    }
  }
}

self.onmessage = (event: MessageEvent<WriterMessage>) => {
  const message = event.data;
  if ("open" in message) {
    // Nothing is lost if it does not take (no /proc): the batches are written at the same nice as requests.
    lowerThisThread(WRITER_NICE_STEPS);
    const db = openUsageConnection(message.open.path);
    db.run(`PRAGMA busy_timeout = ${message.open.busyTimeoutMs}`);
    store = new UsageStore(db);
    return;
  }
  if ("close" in message) {
    // Closed here, before the thread ends: a connection left to the thread's end may still be
    // open when the server's own closes, which then is not the file's last and leaves the WAL.
    if (timer !== null) clearTimeout(timer);
    store?.db.close();
    store = null;
    self.postMessage({ closed: true } satisfies WriterReport);
    return;
  }
  if ("page" in message) {
    const { id, filter, limit, offset, kept } = message.page;
    try {
      if (store === null) throw new Error("the control database is not open");
      self.postMessage({ page: id, ...store.requestPage(filter, limit, offset, kept) } satisfies WriterReport);
    } catch (error) {
      self.postMessage({ page: id, error: (error as Error).message } satisfies WriterReport);
    }
    return;
  }
  waiting.push(message.batch);
  if (waiting.length > KEPT_AT_MOST) waiting.splice(0, waiting.length - KEPT_AT_MOST);
  writeWaiting();
};
