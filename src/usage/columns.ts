// The requests of one batch, held in columns until the writer thread tallies them (tally.ts) and
// packs them into the log's row (db/control/request-log.ts). Numbers go to typed arrays; the
// strings that repeat from request to request (client, method, route template, code, address)
// to a list of the batch's distinct values, each request keeping their positions; request ids
// as their bytes. A request then costs a few stores and map lookups and allocates nothing: building
// a line of text per request on the event loop, and keeping half a second of such lines alive,
// cost every request several times what the line itself takes (measured: bench/results,
// "recording's cost"). The arrays are handed to the thread as they are (transferred, not
// copied) and new ones take over.
import { REFS, type RequestColumnsData, type RequestLogRow } from "../db/control/request-log.ts";

/** A finished request, as the recorder is given it: what the log shows of it, and what it counts. */
export interface FinishedRequest extends Omit<RequestLogRow, "client" | "ms"> {
  /** The client it was answered for, or the one whose key (or token) it claimed at a refusal. */
  clientId: string | null;
  /** Its latency as measured; the log keeps hundredths of a millisecond. */
  ms: number;
  /** An Idempotency-Key replay: no new lead. */
  replayed: boolean;
  /** Body bytes of a portal feed sent. */
  feedBytes?: number;
}

/** The flag of an Idempotency-Key replay. */
export const REPLAYED = 1;
const FIRST_CAPACITY = 1024;
/** Room for a request id of the usual size (a UUID and its "\n"). */
const ID_BYTES = 37;
const NEWLINE = 10;
const encoder = new TextEncoder();

export class RequestColumns {
  private capacity = FIRST_CAPACITY;
  private at = new Float64Array(FIRST_CAPACITY);
  private status = new Uint16Array(FIRST_CAPACITY);
  private ms = new Float64Array(FIRST_CAPACITY);
  private flags = new Uint8Array(FIRST_CAPACITY);
  private feedBytes = new Float64Array(FIRST_CAPACITY);
  private refs = new Uint32Array(FIRST_CAPACITY * REFS);
  private requestIds = new Uint8Array(FIRST_CAPACITY * ID_BYTES);
  private idBytes = 0;
  private values: (string | null)[] = [];
  private positions = new Map<string | null, number>();
  /** Per column of `refs`, the last value looked up and its position: requests in a row mostly share them. */
  private readonly lastValue: (string | null | undefined)[] = new Array(REFS).fill(undefined);
  private readonly lastPosition = new Uint32Array(REFS);
  /** Requests held. */
  n = 0;

  /** Takes the request's fields as they are: the request's own object, nothing allocated here. */
  add(r: FinishedRequest): void {
    if (this.n === this.capacity) this.grow();
    const i = this.n++;
    this.at[i] = r.at;
    this.status[i] = r.status;
    this.ms[i] = r.ms;
    this.flags[i] = r.replayed ? REPLAYED : 0;
    this.feedBytes[i] = r.feedBytes !== undefined && r.feedBytes > 0 ? r.feedBytes : 0;
    const refs = i * REFS;
    this.refs[refs] = this.position(0, r.clientId);
    this.refs[refs + 1] = this.position(1, r.method);
    this.refs[refs + 2] = this.position(2, r.route);
    this.refs[refs + 3] = this.position(3, r.code);
    this.refs[refs + 4] = this.position(4, r.ip);
    this.addId(r.requestId);
  }

  /** The id's bytes and its "\n": a loop over its characters, cheaper than a string per batch. */
  private addId(id: string): void {
    // UTF-8 takes at most 3 bytes per UTF-16 unit.
    if (this.idBytes + 3 * id.length + 1 > this.requestIds.length) this.growIds(3 * id.length + 1);
    let at = this.idBytes;
    for (let c = 0; c < id.length; c++) {
      const code = id.charCodeAt(c);
      if (code >= 0x80) {
        // Never a request id the server made or took (plugins/context.ts): a caller's own.
        at = this.idBytes + encoder.encodeInto(id, this.requestIds.subarray(this.idBytes)).written;
        break;
      }
      this.requestIds[at++] = code;
    }
    this.requestIds[at++] = NEWLINE;
    this.idBytes = at;
  }

  /**
   * The requests held, in the arrays themselves (the first `n` entries count), with the buffers to
   * transfer; the columns start empty again, in new arrays of the same capacity.
   */
  take(): { data: RequestColumnsData; transfer: ArrayBuffer[] } {
    const data: RequestColumnsData = {
      n: this.n,
      at: this.at,
      status: this.status,
      ms: this.ms,
      flags: this.flags,
      feedBytes: this.feedBytes,
      values: this.values,
      refs: this.refs,
      requestIds: this.requestIds,
      idBytes: this.idBytes,
    };
    const transfer = [data.at, data.status, data.ms, data.flags, data.feedBytes, data.refs, data.requestIds].map(
      (array) => array.buffer as ArrayBuffer,
    );
    this.n = 0;
    this.values = [];
    this.positions = new Map();
    this.lastValue.fill(undefined);
    this.requestIds = new Uint8Array(this.requestIds.length);
    this.idBytes = 0;
    this.allocate(this.capacity);
    return { data, transfer };
  }

  private position(column: number, value: string | null): number {
    if (this.lastValue[column] === value) return this.lastPosition[column]!;
    let at = this.positions.get(value);
    if (at === undefined) {
      at = this.values.length;
      this.values.push(value);
      this.positions.set(value, at);
    }
    this.lastValue[column] = value;
    this.lastPosition[column] = at;
    return at;
  }

  private growIds(needed: number): void {
    const ids = new Uint8Array(Math.max(2 * this.requestIds.length, this.idBytes + needed));
    ids.set(this.requestIds.subarray(0, this.idBytes));
    this.requestIds = ids;
  }

  private allocate(capacity: number): void {
    this.capacity = capacity;
    this.at = new Float64Array(capacity);
    this.status = new Uint16Array(capacity);
    this.ms = new Float64Array(capacity);
    this.flags = new Uint8Array(capacity);
    this.feedBytes = new Float64Array(capacity);
    this.refs = new Uint32Array(capacity * REFS);
  }

  private grow(): void {
    const { at, status, ms, flags, feedBytes, refs } = this;
    this.allocate(this.capacity * 2);
    this.at.set(at);
    this.status.set(status);
    this.ms.set(ms);
    this.flags.set(flags);
    this.feedBytes.set(feedBytes);
    this.refs.set(refs);
  }
}
