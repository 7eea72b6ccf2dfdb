// Opening a feed: a file or an http(s) URL read as a stream (never whole into memory; a URL
// through the bounded fetch of fetch.ts), gunzipped when compressed, its format told from its
// first characters, decoded to text.
import { existsSync, statSync } from "node:fs";
import { bomOf, decodeStream, xmlEncoding } from "./encoding.ts";
import { DEFAULT_FETCH_LIMITS, displayUrl, type FetchRequest, fetchFeed, type Validators } from "./fetch.ts";
import { FeedError } from "./listing.ts";
import type { FeedWarning } from "./warnings.ts";

export type FeedFormat = "vrsync" | "ndjson";

export interface FeedProgress {
  /** Bytes read from the file or the network so far (compressed bytes for a gzip feed). */
  bytesRead: number;
  /** Size of the file or the announced Content-Length; null when unknown. */
  totalBytes: number | null;
}

export interface FeedSource {
  format: FeedFormat;
  text: AsyncIterable<string>;
  progress: FeedProgress;
  /** Warnings about the feed as a whole (its encoding, its XML), filled in as it is read. */
  notices: FeedWarning[];
}

const HEAD_BYTES = 1024; // enough for a BOM, blank lines and an XML declaration

/** A byte stream whose first bytes were read ahead; `stream` still yields them. */
async function peek(
  stream: ReadableStream<Uint8Array>,
  wanted: number,
): Promise<{ head: Uint8Array; stream: ReadableStream<Uint8Array> }> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let length = 0;
  while (length < wanted) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    length += value.length;
  }
  const head = Buffer.concat(chunks);
  const replay = new ReadableStream<Uint8Array>({
    start(controller) {
      if (head.length > 0) controller.enqueue(head);
    },
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
  return { head, stream: replay };
}

function counted(stream: ReadableStream<Uint8Array>, progress: FeedProgress): ReadableStream<Uint8Array> {
  return stream.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        progress.bytesRead += chunk.length;
        controller.enqueue(chunk);
      },
    }),
  );
}

/** A file's bytes, or an http(s) URL's through the bounded fetch; null when the server said 304. */
async function openBytes(
  location: string,
  progress: FeedProgress,
  request: FetchRequest,
): Promise<{ bytes: ReadableStream<Uint8Array>; remote: boolean; validators: Validators | null } | null> {
  if (/^https?:\/\//i.test(location)) {
    const fetched = await fetchFeed(location, request);
    if (fetched.status === "not-modified") return null;
    progress.totalBytes = fetched.totalBytes;
    return { bytes: fetched.body, remote: true, validators: fetched.validators };
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(location))
    throw new FeedError(`unsupported feed address ${displayUrl(location)}: use a file path or an http(s) URL`);
  if (!existsSync(location) || !statSync(location).isFile()) throw new FeedError(`feed file not found: ${location}`);
  progress.totalBytes = statSync(location).size;
  return { bytes: Bun.file(location).stream(), remote: false, validators: null };
}

/** The inflated stream; damaged gzip data fails it with a FeedError (the download's own errors pass as they are). */
function gunzipped(stream: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  const reader = stream
    .pipeThrough(new DecompressionStream("gzip") as unknown as TransformStream<Uint8Array, Uint8Array>)
    .getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value);
      } catch (error) {
        controller.error(
          error instanceof FeedError
            ? error
            : new FeedError(`the feed's gzip data is damaged or cut short: ${(error as Error).message}`),
        );
      }
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}

/** Fails the stream once it has yielded more than `maxBytes` (an inflated gzip bomb). */
function inflatedAtMost(stream: ReadableStream<Uint8Array>, maxBytes: number): ReadableStream<Uint8Array> {
  let bytes = 0;
  return stream.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        bytes += chunk.length;
        if (bytes > maxBytes)
          controller.error(
            new FeedError(`the feed inflates to more than its size limit (${Math.round(maxBytes / 1_048_576)} MiB)`),
          );
        else controller.enqueue(chunk);
      },
    }),
  );
}

/** The format, told from the first character after any byte order mark and blank space. */
function formatOf(head: Uint8Array): FeedFormat {
  const bom = bomOf(head);
  const encoding = bom?.encoding.startsWith("utf-16") ? bom.encoding : "latin1";
  const text = new TextDecoder(encoding as ConstructorParameters<typeof TextDecoder>[0])
    .decode(head.subarray(bom?.length ?? 0))
    .replace(/^[\s\u0000]+/, "");
  if (text === "") throw new FeedError("the feed is empty");
  if (text.startsWith("<")) return "vrsync";
  if (text.startsWith("{")) return "ndjson";
  throw new FeedError(
    "unrecognised feed: expected VRSync XML (starting with '<') or NDJSON (one JSON object per line)",
  );
}

/** NDJSON is this API's own shape: UTF-8, exactly. */
async function* strictUtf8(stream: ReadableStream<Uint8Array>, progress: FeedProgress): AsyncGenerator<string> {
  const decoder = new TextDecoder("utf-8", { fatal: true });
  try {
    for await (const chunk of stream) yield decoder.decode(chunk, { stream: true });
    yield decoder.decode();
  } catch (error) {
    if (error instanceof TypeError) throw new FeedError(`the feed is not valid UTF-8 near byte ${progress.bytesRead}`);
    throw error;
  }
}

/** A feed opened for reading, or the server's word that it has not changed since `validators`. */
export type OpenedFeed = ({ status: "ok"; validators: Validators | null } & FeedSource) | { status: "not-modified" };

/**
 * Opens FEED (a path or an http(s) URL) for streaming; FeedError when it cannot be read at all.
 * A URL is fetched within `request.limits` (a gzip feed's inflated size too), conditionally
 * when `request.validators` are given.
 */
export async function openFeedSource(location: string, request: FetchRequest = {}): Promise<OpenedFeed> {
  const progress: FeedProgress = { bytesRead: 0, totalBytes: null };
  const opened = await openBytes(location, progress, request);
  if (opened === null) return { status: "not-modified" };
  let { head, stream } = await peek(counted(opened.bytes, progress), 2);
  if (head[0] === 0x1f && head[1] === 0x8b) {
    stream = gunzipped(stream);
    // A local file is the operator's own; what a server sends is bounded once inflated too.
    if (opened.remote) stream = inflatedAtMost(stream, (request.limits ?? DEFAULT_FETCH_LIMITS).maxBytes);
  }
  ({ head, stream } = await peek(stream, HEAD_BYTES));
  const format = formatOf(head);
  const notices: FeedWarning[] = [];
  const text = format === "vrsync" ? decodeStream(stream, xmlEncoding(head), notices) : strictUtf8(stream, progress);
  return { status: "ok", format, text, progress, notices, validators: opened.validators };
}

/** Opens FEED unconditionally (the `import` command). */
export async function openFeed(location: string, request: Omit<FetchRequest, "validators"> = {}): Promise<FeedSource> {
  const opened = await openFeedSource(location, request);
  if (opened.status === "not-modified")
    throw new FeedError("the server answered 304 Not Modified to a request that was not conditional");
  return opened;
}
