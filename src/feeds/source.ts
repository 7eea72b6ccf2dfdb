// Opening a feed: a file or an http(s) URL read as a stream (never whole into memory),
// gunzipped when compressed, its format told from its first characters, decoded to text.
import { existsSync, statSync } from "node:fs";
import { bomOf, decodeStream, xmlEncoding } from "./encoding.ts";
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
async function peek(stream: ReadableStream<Uint8Array>, wanted: number): Promise<{ head: Uint8Array; stream: ReadableStream<Uint8Array> }> {
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

async function openBytes(location: string, progress: FeedProgress): Promise<ReadableStream<Uint8Array>> {
  if (/^https?:\/\//i.test(location)) {
    let response: Response;
    try {
      response = await fetch(location, { redirect: "follow" });
    } catch (error) {
      throw new FeedError(`cannot fetch ${location}: ${(error as Error).message}`);
    }
    if (!response.ok || response.body === null) {
      await response.body?.cancel();
      throw new FeedError(`cannot fetch ${location}: HTTP ${response.status}`);
    }
    const length = Number(response.headers.get("content-length"));
    // fetch() inflates a Content-Encoding itself; then the announced length is not what we count.
    progress.totalBytes = response.headers.has("content-encoding") || !Number.isFinite(length) || length <= 0 ? null : length;
    return response.body;
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(location)) throw new FeedError(`unsupported feed address ${location}: use a file path or an http(s) URL`);
  if (!existsSync(location) || !statSync(location).isFile()) throw new FeedError(`feed file not found: ${location}`);
  progress.totalBytes = statSync(location).size;
  return Bun.file(location).stream();
}

/** The format, told from the first character after any byte order mark and blank space. */
function formatOf(head: Uint8Array): FeedFormat {
  const bom = bomOf(head);
  const encoding = bom?.encoding.startsWith("utf-16") ? bom.encoding : "latin1";
  const text = new TextDecoder(encoding as ConstructorParameters<typeof TextDecoder>[0]).decode(head.subarray(bom?.length ?? 0)).replace(/^[\s\u0000]+/, "");
  if (text === "") throw new FeedError("the feed is empty");
  if (text.startsWith("<")) return "vrsync";
  if (text.startsWith("{")) return "ndjson";
  throw new FeedError("unrecognised feed: expected VRSync XML (starting with '<') or NDJSON (one JSON object per line)");
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

/** Opens FEED (a path or an http(s) URL) for streaming; FeedError when it cannot be read at all. */
export async function openFeed(location: string): Promise<FeedSource> {
  const progress: FeedProgress = { bytesRead: 0, totalBytes: null };
  let { head, stream } = await peek(counted(await openBytes(location, progress), progress), 2);
  if (head[0] === 0x1f && head[1] === 0x8b) {
    stream = stream.pipeThrough(new DecompressionStream("gzip") as unknown as TransformStream<Uint8Array, Uint8Array>);
  }
  ({ head, stream } = await peek(stream, HEAD_BYTES));
  const format = formatOf(head);
  const notices: FeedWarning[] = [];
  const text = format === "vrsync" ? decodeStream(stream, xmlEncoding(head), notices) : strictUtf8(stream, progress);
  return { format, text, progress, notices };
}
