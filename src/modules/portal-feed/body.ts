// A feed body as a pull-based byte stream: text from a producer (the export writer) goes out in
// 64 KiB pieces, gzipped when asked. The producer works only while the reader reads (at most
// HIGH_WATER bytes wait in the stream, so a slow reader holds memory flat), in slices that take
// turns with the rest of the server (turns.ts). A reader that hangs up cancels the stream: the
// producer's next write throws BodyCancelled and it releases what it holds.
import type { Sink } from "../../agency/export.ts";
import { GzipPieces } from "./gzip.ts";
import { feedTurns } from "./turns.ts";

/** Text gathered before it is encoded (and compressed) and handed to the stream. */
const PIECE_CHARS = 64 * 1024;
/** Bytes the stream holds for its reader before the producer waits. */
const HIGH_WATER = 256 * 1024;

/** How a body ended: sent whole, its reader gone, cut for taking too long, or failed on our side. */
export type BodyEnd =
  | { outcome: "complete" | "hung-up" | "too-slow"; bytes: number }
  | { outcome: "failed"; bytes: number; error: unknown };

export class BodyCancelled extends Error {
  constructor() {
    super("the reader of the feed body went away");
  }
}

export interface BodyOptions {
  gzip: boolean;
  /** The request's signal: a client gone before the body was first read cancels it too. */
  signal?: AbortSignal;
  /** The whole body must be read within this long (a reader slower than that holds the snapshot, and the WAL, for ever). */
  timeLimitMs: number;
  /** Called once, when the body has ended one way or another (even unread): the place to release what the producer reads. */
  onEnd: (end: BodyEnd) => void;
}

export function feedBody(produce: (sink: Sink) => Promise<void>, options: BodyOptions): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const gzip = options.gzip ? new GzipPieces() : null;
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let pending = "";
  let bytes = 0;
  let started = false;
  let stopped: "hung-up" | "too-slow" | null = null;
  /** The producer, waiting for the reader to want more. */
  let wake: (() => void) | null = null;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const emit = (piece: Uint8Array) => {
    if (piece.byteLength === 0) return;
    bytes += piece.byteLength;
    controller.enqueue(piece);
  };
  const flush = () => {
    if (pending === "") return;
    const piece = encoder.encode(pending);
    pending = "";
    emit(gzip === null ? piece : gzip.push(piece));
  };
  const readerWants = () =>
    new Promise<void>((resolve) => {
      wake = resolve;
    });

  const sink: Sink = {
    write(text) {
      if (stopped !== null) throw new BodyCancelled();
      pending += text;
      if (pending.length < PIECE_CHARS) return feedTurns.sliceOver() ? feedTurns.next() : undefined;
      flush();
      if ((controller.desiredSize ?? 0) > 0) return feedTurns.sliceOver() ? feedTurns.next() : undefined;
      return readerWants().then(() => {
        if (stopped !== null) throw new BodyCancelled();
        return feedTurns.next();
      });
    },
  };

  let ended = false;
  const end = (how: BodyEnd) => {
    if (ended) return;
    ended = true;
    clearTimeout(timer);
    options.onEnd(how);
  };

  const run = async () => {
    try {
      await feedTurns.next();
      await produce(sink);
      if (stopped !== null) throw new BodyCancelled();
      flush();
      if (gzip !== null) emit(gzip.end());
      controller.close();
      end({ outcome: "complete", bytes });
    } catch (error) {
      if (stopped !== null) {
        end({ outcome: stopped, bytes });
      } else {
        // Never end a cut body cleanly: a portal must see a broken download, not a shorter feed
        // (it would take down every listing missing from it).
        controller.error(error);
        end({ outcome: "failed", bytes, error });
      }
    }
  };

  const stop = (why: "hung-up" | "too-slow") => {
    if (stopped !== null || ended) return;
    stopped = why;
    if (why === "too-slow") {
      try {
        controller.error(new BodyCancelled());
      } catch {
        // already closed
      }
    }
    if (!started) {
      // Never read: no producer to stop, only what it would have read to release.
      started = true;
      end({ outcome: why, bytes });
      return;
    }
    const waiting = wake;
    wake = null;
    waiting?.();
  };

  timer = setTimeout(() => stop("too-slow"), options.timeLimitMs);
  timer.unref?.();
  // A client gone before the body exists (during the first pass, say) is told by the signal alone.
  if (options.signal?.aborted) queueMicrotask(() => stop("hung-up"));
  else options.signal?.addEventListener("abort", () => stop("hung-up"), { once: true });
  return new ReadableStream<Uint8Array>(
    {
      start(c) {
        controller = c;
      },
      pull() {
        if (!started) {
          started = true;
          void run();
          return;
        }
        const waiting = wake;
        wake = null;
        waiting?.();
      },
      cancel() {
        stop("hung-up");
      },
    },
    { highWaterMark: HIGH_WATER, size: (chunk) => chunk?.byteLength ?? 0 },
  );
}
