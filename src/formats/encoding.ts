// Bytes → text the way real feeds need (docs/reference/behaviour-extensions.md §16): a byte order mark decides the encoding
// over the XML declaration; ISO-8859-1 and windows-1252 are honoured when declared; and in a feed
// that is undeclared or declared UTF-8, bytes that are not valid UTF-8 are read as windows-1252
// (what a CRM that glued Latin-1 data into a UTF-8 template meant) with one warning.
import { FeedError } from "./listing.ts";
import type { FeedWarning } from "./warnings.ts";

export type FeedEncoding = { name: string; lenientUtf8: boolean };

type Label = ConstructorParameters<typeof TextDecoder>[0];

/** The encoding a byte order mark names, and its length; null without one. */
export function bomOf(head: Uint8Array): { encoding: string; length: number } | null {
  if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) return { encoding: "utf-8", length: 3 };
  if (head[0] === 0xff && head[1] === 0xfe) return { encoding: "utf-16le", length: 2 };
  if (head[0] === 0xfe && head[1] === 0xff) return { encoding: "utf-16be", length: 2 };
  return null;
}

/** UTF-16 without a mark still shows itself by the zero byte beside `<` (XML 1.0 Appendix F). */
function utf16ByPattern(head: Uint8Array): string | null {
  if (head[0] === 0x3c && head[1] === 0x00 && head[2] !== 0x00) return "utf-16le";
  if (head[0] === 0x00 && head[1] === 0x3c) return "utf-16be";
  return null;
}

/** The encoding label of an XML declaration, read from the first bytes. */
function declaredLabel(head: Uint8Array): string | null {
  const prefix = new TextDecoder("latin1").decode(head.subarray(0, 300));
  return /^\s*<\?xml[^>]*?encoding\s*=\s*["']([A-Za-z0-9._:-]+)["']/.exec(prefix)?.[1] ?? null;
}

/**
 * How to decode a VRSync document: its BOM, else the zero bytes of UTF-16, else its declaration;
 * UTF-8 (declared or not) is read leniently. An encoding no decoder knows is a FeedError.
 */
export function xmlEncoding(head: Uint8Array): FeedEncoding {
  const marked = bomOf(head)?.encoding ?? utf16ByPattern(head);
  if (marked !== null) return { name: marked, lenientUtf8: marked === "utf-8" };
  const label = declaredLabel(head);
  let name: string;
  try {
    name = new TextDecoder((label ?? "utf-8") as Label).encoding;
  } catch {
    throw new FeedError(`unsupported encoding "${label}" in the XML declaration`);
  }
  // A declaration readable as ASCII cannot be UTF-16 without a mark: the document is 8-bit.
  if (name.startsWith("utf-16")) name = "utf-8";
  return { name, lenientUtf8: name === "utf-8" };
}

/** Bytes each UTF-8 lead byte needs after it, with the allowed range of the first of them. */
function sequenceOf(lead: number): { need: number; low: number; high: number } | null {
  if (lead >= 0xc2 && lead <= 0xdf) return { need: 1, low: 0x80, high: 0xbf };
  if (lead === 0xe0) return { need: 2, low: 0xa0, high: 0xbf };
  if (lead === 0xed) return { need: 2, low: 0x80, high: 0x9f };
  if (lead >= 0xe1 && lead <= 0xef) return { need: 2, low: 0x80, high: 0xbf };
  if (lead === 0xf0) return { need: 3, low: 0x90, high: 0xbf };
  if (lead === 0xf4) return { need: 3, low: 0x80, high: 0x8f };
  if (lead >= 0xf1 && lead <= 0xf3) return { need: 3, low: 0x80, high: 0xbf };
  return null;
}

/** Length of the valid UTF-8 sequence at `i`, 0 when the byte there cannot start one, -1 when cut short by the end. */
function validSequenceAt(bytes: Uint8Array, i: number): number {
  const sequence = sequenceOf(bytes[i]!);
  if (sequence === null) return 0;
  for (let k = 1; k <= sequence.need; k++) {
    if (i + k >= bytes.length) return -1;
    const byte = bytes[i + k]!;
    const [low, high] = k === 1 ? [sequence.low, sequence.high] : [0x80, 0xbf];
    if (byte < low || byte > high) return 0;
  }
  return sequence.need + 1;
}

// ignoreBOM: a U+FEFF that happens to start a chunk is text; the leading mark is dropped above.
const fatalUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const windows1252 = new TextDecoder("windows-1252");

/**
 * Decodes a stream of UTF-8 chunks, reading each byte that is not part of valid UTF-8 as
 * windows-1252. `onInvalid` is told the line of the first such byte, once.
 */
export class LenientUtf8Decoder {
  private pending: Uint8Array = new Uint8Array(0);
  private lines = 1;
  private warned = false;
  private first = true;

  constructor(private readonly onInvalid: (line: number) => void) {}

  decode(chunk: Uint8Array, final = false): string {
    let bytes = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    if (this.first && bytes.length >= 3 && bomOf(bytes)?.encoding === "utf-8") bytes = bytes.subarray(3);
    if (this.first && bytes.length > 0) this.first = false;
    const end = final ? bytes.length : this.completeEnd(bytes);
    this.pending = bytes.slice(end);
    const whole = bytes.subarray(0, end);
    let text: string;
    try {
      text = fatalUtf8.decode(whole);
    } catch {
      text = this.mixed(whole);
    }
    if (!this.warned) this.lines += countNewlines(whole);
    return text;
  }

  /** Where the last complete sequence ends: an unfinished one at the end waits for the next chunk. */
  private completeEnd(bytes: Uint8Array): number {
    for (let back = 1; back <= 3 && back <= bytes.length; back++) {
      const i = bytes.length - back;
      if (bytes[i]! < 0x80) return bytes.length;
      if (bytes[i]! >= 0xc0) return validSequenceAt(bytes, i) === -1 ? i : bytes.length;
    }
    return bytes.length;
  }

  /** Valid runs through the UTF-8 decoder, invalid bytes through windows-1252. */
  private mixed(bytes: Uint8Array): string {
    const parts: string[] = [];
    let runStart = 0;
    let i = 0;
    while (i < bytes.length) {
      if (bytes[i]! < 0x80) {
        i++;
        continue;
      }
      const length = validSequenceAt(bytes, i);
      if (length > 0) {
        i += length;
        continue;
      }
      let j = i + 1;
      while (j < bytes.length && bytes[j]! >= 0x80 && validSequenceAt(bytes, j) <= 0) j++;
      if (!this.warned) {
        this.warned = true;
        this.onInvalid(this.lines + countNewlines(bytes.subarray(0, i)));
      }
      parts.push(fatalUtf8.decode(bytes.subarray(runStart, i)), windows1252.decode(bytes.subarray(i, j)));
      runStart = i = j;
    }
    parts.push(fatalUtf8.decode(bytes.subarray(runStart)));
    return parts.join("");
  }
}

function countNewlines(bytes: Uint8Array): number {
  let count = 0;
  for (let at = bytes.indexOf(10); at !== -1; at = bytes.indexOf(10, at + 1)) count++;
  return count;
}

/** Decodes a byte stream to text chunks; invalid UTF-8 becomes one ENCODING warning in `notices`. */
export async function* decodeStream(
  stream: AsyncIterable<Uint8Array>,
  encoding: FeedEncoding,
  notices: FeedWarning[],
): AsyncGenerator<string> {
  if (encoding.lenientUtf8) {
    const decoder = new LenientUtf8Decoder((line) =>
      notices.push({
        kind: "ENCODING",
        code: null,
        line,
        element: null,
        value: null,
        message:
          'bytes that are not valid UTF-8: read as windows-1252 (declare encoding="ISO-8859-1" if the whole feed is Latin-1)',
      }),
    );
    for await (const chunk of stream) yield decoder.decode(chunk);
    yield decoder.decode(new Uint8Array(0), true);
    return;
  }
  // Other encodings: every byte sequence decodes (windows-1252), or the BOM said what they are.
  const decoder = new TextDecoder(encoding.name as Label, { fatal: true });
  try {
    for await (const chunk of stream) yield decoder.decode(chunk, { stream: true });
    yield decoder.decode();
  } catch (error) {
    if (error instanceof TypeError) throw new FeedError(`the feed is not valid ${decoder.encoding}`);
    throw error;
  }
}
