// Opening a feed: a file or an http(s) URL read as a stream (never whole into memory),
// gunzipped when compressed, its format told from its first characters, decoded to text.
import { existsSync, statSync } from "node:fs";
import { FeedError } from "./listing.ts";

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

/** The encoding an XML declaration names (ISO-8859-1 is common in older CRM feeds); UTF-8 otherwise. */
function declaredEncoding(head: Uint8Array): string {
  const prefix = new TextDecoder("latin1").decode(head.subarray(0, 200));
  const declaration = /^\s*<\?xml[^>]*?encoding\s*=\s*["']([A-Za-z0-9._-]+)["']/.exec(prefix.replace(/^\uFEFF|^ï»¿/, ""));
  return declaration?.[1] ?? "utf-8";
}

function formatOf(head: Uint8Array): FeedFormat {
  const text = new TextDecoder("latin1").decode(head).replace(/^ï»¿/, "").trimStart();
  if (text === "") throw new FeedError("the feed is empty");
  if (text.startsWith("<")) return "vrsync";
  if (text.startsWith("{")) return "ndjson";
  throw new FeedError("unrecognised feed: expected VRSync XML (starting with '<') or NDJSON (one JSON object per line)");
}

async function* decode(stream: ReadableStream<Uint8Array>, encoding: string, progress: FeedProgress): AsyncGenerator<string> {
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(encoding as ConstructorParameters<typeof TextDecoder>[0], { fatal: true });
  } catch {
    throw new FeedError(`unsupported encoding "${encoding}" in the XML declaration`);
  }
  try {
    for await (const chunk of stream) yield decoder.decode(chunk, { stream: true });
    yield decoder.decode();
  } catch (error) {
    if (error instanceof TypeError && /decode|encoding/i.test(error.message)) {
      throw new FeedError(
        `the feed is not valid ${decoder.encoding} near byte ${progress.bytesRead}` +
          (decoder.encoding === "utf-8" ? ' (a Latin-1 feed must say encoding="ISO-8859-1" in its XML declaration)' : ""),
      );
    }
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
  const encoding = format === "vrsync" ? declaredEncoding(head) : "utf-8";
  return { format, text: decode(stream, encoding, progress), progress };
}
