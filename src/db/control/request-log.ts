// How a batch of the request log is kept in its row (docs/operators/console.md#the-request-log):
// packed, the columns the recorder filled (src/usage/columns.ts) copied nearly as they are, in as
// few bytes as they fit: the writer thread then builds no text per request, and writing the row
// costs SQLite in proportion to its bytes (about 5 ns of CPU a byte, WAL and checkpoint). Rows
// written before the packed form hold lines of fields, still read.
//
// The packed form, little-endian, each part starting where the one before it ends:
//   6 × u32   version (2), WIDE_* flags, n, bytes of the values, bytes of the text ids, UUIDs
//   f64       the earliest arrival, ms since the epoch
//   n × u32   arrival, ms after the earliest (f64 since the epoch when WIDE_AT)
//   n × u32   latency, hundredths of a millisecond
//   5n × u16  per request, the positions of its client, method, route, code and address in the
//             values (u32 when WIDE_REFS)
//   n × u16   status
//   n × u8    1 when the request id is a UUID as the server makes them (lower case), kept in 16
//             bytes; 0 when it is kept as text
//   16 bytes  per UUID, in the requests' order
//   the values, a JSON array of the batch's distinct strings (null included)
//   the other request ids, UTF-8 (ASCII but for a caller's own), each followed by "\n"

/** A request as the log shows it. */
export interface RequestLogRow {
  /** When it arrived (ms since the epoch). */
  at: number;
  client: string | null;
  method: string;
  route: string | null;
  status: number;
  code: string | null;
  /** Its latency in ms, to the hundredth. */
  ms: number;
  ip: string | null;
  requestId: string;
}

/** Positions per request in `refs`. */
export const REFS = 5;

/** A batch's requests in columns, as the recorder fills them (src/usage/columns.ts) and its writer thread receives them. */
export interface RequestColumnsData {
  n: number;
  at: Float64Array;
  status: Uint16Array;
  /** The latency as measured; the packed row keeps hundredths. */
  ms: Float64Array;
  /** REPLAYED, or 0. */
  flags: Uint8Array;
  /** Body bytes of a portal feed sent (0 for any other request). */
  feedBytes: Float64Array;
  /** The batch's distinct client ids, methods, routes, codes and addresses. */
  values: (string | null)[];
  /** Per request, five positions in `values`: client, method, route, code, address. */
  refs: Uint32Array;
  /** The requests' ids in UTF-8 (ASCII but for a caller's own), each followed by "\n" (no id holds one). */
  requestIds: Uint8Array;
  /** The bytes of `requestIds` in use. */
  idBytes: number;
}

const VERSION = 2;
/** Arrivals spread wider than a u32 of ms (49 days: only a test's clock does that). */
const WIDE_AT = 1;
/** More distinct values than a u16 position reaches. */
const WIDE_REFS = 2;
const HEADER_BYTES = 32;
/** The largest latency a u32 of hundredths holds (about 11 hours). */
const MAX_HUNDREDTHS = 0xffff_ffff;
const NEWLINE = 10;
const DASH = 45;
const UUID_LENGTH = 36;
const UUID_BYTES = 16;

/** A batch's requests as the log stores them, and what its row says of them. */
export interface PackedRequests {
  bytes: Uint8Array;
  n: number;
  /** The earliest and latest arrival among them (ms since the epoch). */
  firstAt: number;
  lastAt: number;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Each ASCII code's value as a lower-case hex digit, or -1. */
const HEX_VALUE = new Int8Array(128).fill(-1);
for (let d = 0; d < 16; d++) HEX_VALUE["0123456789abcdef".charCodeAt(d)] = d;
/** Each byte as two lower-case hex digits. */
const HEX_PAIR = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, "0"));

/**
 * Writes the 16 bytes of the UUID spelt by `text[start, start + 36)` (lower case, dashes where
 * a UUID has them) to `out` at `at`; false, and nothing meaningful written, for anything else.
 */
function uuidBytes(text: Uint8Array, start: number, out: Uint8Array, at: number): boolean {
  let o = at;
  for (let c = start; c < start + UUID_LENGTH; ) {
    const offset = c - start;
    if (offset === 8 || offset === 13 || offset === 18 || offset === 23) {
      if (text[c] !== DASH) return false;
      c++;
      continue;
    }
    const high = HEX_VALUE[text[c]!] ?? -1;
    const low = HEX_VALUE[text[c + 1]!] ?? -1;
    if (high < 0 || low < 0) return false;
    out[o++] = high * 16 + low;
    c += 2;
  }
  return true;
}

function uuidText(bytes: Uint8Array, at: number): string {
  const h = (i: number) => HEX_PAIR[bytes[at + i]!]!;
  return `${h(0)}${h(1)}${h(2)}${h(3)}-${h(4)}${h(5)}-${h(6)}${h(7)}-${h(8)}${h(9)}-${h(10)}${h(11)}${h(12)}${h(13)}${h(14)}${h(15)}`;
}

/** Where each part of a packed batch starts, from what its header says. */
function layout(flags: number, n: number, uuids: number, valuesBytes: number) {
  const base = HEADER_BYTES;
  const at = base + 8;
  const ms = at + ((flags & WIDE_AT) !== 0 ? 8 : 4) * n;
  const refs = ms + 4 * n;
  const status = refs + ((flags & WIDE_REFS) !== 0 ? 4 : 2) * REFS * n;
  const kinds = status + 2 * n;
  const uuid = kinds + n;
  const values = uuid + UUID_BYTES * uuids;
  const ids = values + valuesBytes;
  return { base, at, ms, refs, status, kinds, uuid, values, ids };
}

/** The first `data.n` requests of the columns, packed. */
export function packRequests(data: RequestColumnsData): PackedRequests {
  const n = data.n;
  if (n === 0) return { bytes: new Uint8Array(0), n, firstAt: 0, lastAt: 0 };
  let firstAt = Number.POSITIVE_INFINITY;
  let lastAt = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < n; i++) {
    const at = data.at[i]!;
    if (at < firstAt) firstAt = at;
    if (at > lastAt) lastAt = at;
  }
  const flags = (lastAt - firstAt > 0xffff_ffff ? WIDE_AT : 0) | (data.values.length > 0x1_0000 ? WIDE_REFS : 0);
  // The ids: UUIDs into 16 bytes each, the others copied as text, in one pass over the columns' bytes.
  const kinds = new Uint8Array(n);
  const uuids = new Uint8Array(UUID_BYTES * n);
  const texts = new Uint8Array(data.idBytes);
  let uuidCount = 0;
  let textBytes = 0;
  for (let i = 0, start = 0; i < n; i++) {
    const end = data.requestIds.indexOf(NEWLINE, start);
    if (end - start === UUID_LENGTH && uuidBytes(data.requestIds, start, uuids, UUID_BYTES * uuidCount)) {
      kinds[i] = 1;
      uuidCount++;
    } else {
      texts.set(data.requestIds.subarray(start, end + 1), textBytes);
      textBytes += end + 1 - start;
    }
    start = end + 1;
  }
  const values = encoder.encode(JSON.stringify(data.values));
  const at = layout(flags, n, uuidCount, values.length);
  const buffer = new ArrayBuffer(at.ids + textBytes);
  new Uint32Array(buffer, 0, 6).set([VERSION, flags, n, values.length, textBytes, uuidCount]);
  new Float64Array(buffer, at.base, 1)[0] = firstAt;
  if ((flags & WIDE_AT) !== 0) new Float64Array(buffer, at.at, n).set(data.at.subarray(0, n));
  else {
    const arrivals = new Uint32Array(buffer, at.at, n);
    for (let i = 0; i < n; i++) arrivals[i] = data.at[i]! - firstAt;
  }
  const ms = new Uint32Array(buffer, at.ms, n);
  for (let i = 0; i < n; i++) ms[i] = Math.min(Math.round(data.ms[i]! * 100), MAX_HUNDREDTHS);
  const refs = data.refs.subarray(0, REFS * n);
  if ((flags & WIDE_REFS) !== 0) new Uint32Array(buffer, at.refs, REFS * n).set(refs);
  else new Uint16Array(buffer, at.refs, REFS * n).set(refs);
  new Uint16Array(buffer, at.status, n).set(data.status.subarray(0, n));
  const bytes = new Uint8Array(buffer);
  bytes.set(kinds, at.kinds);
  bytes.set(uuids.subarray(0, UUID_BYTES * uuidCount), at.uuid);
  bytes.set(values, at.values);
  bytes.set(texts.subarray(0, textBytes), at.ids);
  return { bytes, n, firstAt, lastAt };
}

/** The requests of a packed batch, in the order they were added. */
function unpackRequests(packed: Uint8Array): RequestLogRow[] {
  if (packed.length === 0) return [];
  // A copy of its own: SQLite's bytes may start anywhere, the arrays below need their alignment.
  const buffer = packed.slice().buffer;
  const [version, flags, n, valuesBytes, textBytes, uuidCount] = new Uint32Array(buffer, 0, 6) as unknown as number[];
  if (version !== VERSION) throw new Error(`a request log batch of an unknown form (${version})`);
  const at = layout(flags!, n!, uuidCount!, valuesBytes!);
  const firstAt = new Float64Array(buffer, at.base, 1)[0]!;
  const wideAt = (flags! & WIDE_AT) !== 0;
  const arrivals = wideAt ? new Float64Array(buffer, at.at, n) : new Uint32Array(buffer, at.at, n);
  const ms = new Uint32Array(buffer, at.ms, n);
  const refs =
    (flags! & WIDE_REFS) !== 0
      ? new Uint32Array(buffer, at.refs, REFS * n!)
      : new Uint16Array(buffer, at.refs, REFS * n!);
  const status = new Uint16Array(buffer, at.status, n);
  const bytes = new Uint8Array(buffer);
  const values = JSON.parse(decoder.decode(bytes.subarray(at.values, at.values + valuesBytes!))) as (string | null)[];
  const texts = decoder.decode(bytes.subarray(at.ids, at.ids + textBytes!)).split("\n");
  const rows = new Array<RequestLogRow>(n!);
  for (let i = 0, uuid = 0, text = 0; i < n!; i++) {
    const r = i * REFS;
    rows[i] = {
      at: wideAt ? arrivals[i]! : firstAt + arrivals[i]!,
      client: values[refs[r]!] ?? null,
      method: values[refs[r + 1]!] as string,
      route: values[refs[r + 2]!] ?? null,
      status: status[i]!,
      code: values[refs[r + 3]!] ?? null,
      ms: ms[i]! / 100,
      ip: values[refs[r + 4]!] ?? null,
      requestId: bytes[at.kinds + i] === 1 ? uuidText(bytes, at.uuid + UUID_BYTES * uuid++) : texts[text++]!,
    };
  }
  return rows;
}

const FIELD = "\x1f";
const NULL = "\x00";
const valueOf = (text: string) => (text === NULL ? null : text);

/** The requests of a batch written as lines of fields, before the packed form. */
function decodeLines(text: string): RequestLogRow[] {
  if (text === "") return [];
  return text.split("\n").map((line) => {
    const f = line.split(FIELD);
    return {
      at: Number(f[0]),
      client: valueOf(f[1]!),
      method: f[2]!,
      route: valueOf(f[3]!),
      status: Number(f[4]),
      code: valueOf(f[5]!),
      ms: Number(f[6]),
      ip: valueOf(f[7]!),
      requestId: f[8]!,
    };
  });
}

/** The requests of a row of the log, whichever form it was written in. */
export function requestsOf(stored: Uint8Array | string): RequestLogRow[] {
  return typeof stored === "string" ? decodeLines(stored) : unpackRequests(stored);
}
