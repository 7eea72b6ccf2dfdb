// How a batch of the request log is kept in its row (docs/operators/console.md#the-request-log):
// packed, the columns the recorder filled (src/usage/columns.ts) copied nearly as they are. The
// writer thread then builds no text per request, and the file takes about two thirds of the
// bytes lines of text took. Rows written before the packed form hold lines of fields, still read.
//
// The packed form, little-endian, each part starting where the one before it ends:
//   4 × u32   version (1), n, bytes of the values, bytes of the request ids
//   n × f64   arrival, ms since the epoch
//   n × u32   latency, hundredths of a millisecond
//   5n × u32  per request, the positions of its client, method, route, code and address in the values
//   n × u16   status
//   the values, a JSON array of the batch's distinct strings (null included)
//   the request ids, UTF-8 (ASCII but for a caller's own), each followed by "\n"

/** A request as the log shows it. */
export interface RequestLogRow {
  at: number;
  client: string | null;
  method: string;
  route: string | null;
  status: number;
  code: string | null;
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
  /** The latency as measured; the log's line rounds it. */
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

const VERSION = 1;
const HEADER_BYTES = 16;
/** The largest latency a u32 of hundredths holds (about 11 hours). */
const MAX_HUNDREDTHS = 0xffff_ffff;

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

/** The first `data.n` requests of the columns, packed. */
export function packRequests(data: RequestColumnsData): PackedRequests {
  const n = data.n;
  const values = encoder.encode(JSON.stringify(data.values));
  const ids = data.requestIds.subarray(0, data.idBytes);
  const atOffset = HEADER_BYTES;
  const msOffset = atOffset + 8 * n;
  const refsOffset = msOffset + 4 * n;
  const statusOffset = refsOffset + 4 * REFS * n;
  const valuesOffset = statusOffset + 2 * n;
  const idsOffset = valuesOffset + values.length;
  const buffer = new ArrayBuffer(idsOffset + ids.length);
  new Uint32Array(buffer, 0, 4).set([VERSION, n, values.length, ids.length]);
  new Float64Array(buffer, atOffset, n).set(data.at.subarray(0, n));
  const ms = new Uint32Array(buffer, msOffset, n);
  let firstAt = Number.POSITIVE_INFINITY;
  let lastAt = 0;
  for (let i = 0; i < n; i++) {
    ms[i] = Math.min(Math.round(data.ms[i]! * 100), MAX_HUNDREDTHS);
    const at = data.at[i]!;
    if (at < firstAt) firstAt = at;
    if (at > lastAt) lastAt = at;
  }
  new Uint32Array(buffer, refsOffset, REFS * n).set(data.refs.subarray(0, REFS * n));
  new Uint16Array(buffer, statusOffset, n).set(data.status.subarray(0, n));
  const bytes = new Uint8Array(buffer);
  bytes.set(values, valuesOffset);
  bytes.set(ids, idsOffset);
  return n === 0 ? { bytes, n, firstAt: 0, lastAt: 0 } : { bytes, n, firstAt, lastAt };
}

/** The requests of a packed batch, in the order they were added. */
function unpackRequests(packed: Uint8Array): RequestLogRow[] {
  // A copy of its own: SQLite's bytes may start anywhere, the arrays below need their alignment.
  const buffer = packed.slice().buffer;
  const [version, n, valuesBytes, idsBytes] = new Uint32Array(buffer, 0, 4) as unknown as [
    number,
    number,
    number,
    number,
  ];
  if (version !== VERSION) throw new Error(`a request log batch of an unknown form (${version})`);
  const atOffset = HEADER_BYTES;
  const msOffset = atOffset + 8 * n;
  const refsOffset = msOffset + 4 * n;
  const statusOffset = refsOffset + 4 * REFS * n;
  const valuesOffset = statusOffset + 2 * n;
  const idsOffset = valuesOffset + valuesBytes;
  const at = new Float64Array(buffer, atOffset, n);
  const ms = new Uint32Array(buffer, msOffset, n);
  const refs = new Uint32Array(buffer, refsOffset, REFS * n);
  const status = new Uint16Array(buffer, statusOffset, n);
  const values = JSON.parse(decoder.decode(new Uint8Array(buffer, valuesOffset, valuesBytes))) as (string | null)[];
  const ids = decoder.decode(new Uint8Array(buffer, idsOffset, idsBytes)).split("\n");
  const rows = new Array<RequestLogRow>(n);
  for (let i = 0; i < n; i++) {
    const r = i * REFS;
    rows[i] = {
      at: at[i]!,
      client: values[refs[r]!] ?? null,
      method: values[refs[r + 1]!] as string,
      route: values[refs[r + 2]!] ?? null,
      status: status[i]!,
      code: values[refs[r + 3]!] ?? null,
      ms: ms[i]! / 100,
      ip: values[refs[r + 4]!] ?? null,
      requestId: ids[i]!,
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
