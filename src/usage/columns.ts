// The requests of one batch of the request log, held in columns until the writer thread turns
// them into the log's lines (encodeRequest, db/control/usage.ts). Numbers go to typed arrays; the
// strings that repeat from request to request (client, method, route template, code, address)
// to a list of the batch's distinct values, each request keeping their positions; request ids
// as they are. A request then costs a few stores and map lookups and allocates nothing: building
// its line on the event loop, and keeping half a second of such lines alive, cost every request
// several times what the line itself takes (measured: bench/results, "recording's cost").
import { encodeRequest, type RequestLines } from "../db/control/usage.ts";

/** A batch's requests as the writer thread receives them. */
export interface RequestColumnsData {
  n: number;
  at: Float64Array;
  status: Uint16Array;
  ms: Float64Array;
  /** The batch's distinct client ids, methods, routes, codes and addresses. */
  values: (string | null)[];
  /** Per request, five positions in `values`: client, method, route, code, address. */
  refs: Uint32Array;
  /** The requests' ids, joined by "\n" (a request id never holds one: plugins/context.ts). */
  requestIds: string;
}

/** A finished request, as the log keeps it. */
export interface LoggedRequest {
  /** When it arrived (ms since the epoch). */
  at: number;
  /** The client it was answered for, or the one whose key (or token) it claimed at a refusal. */
  clientId: string | null;
  method: string;
  route: string | null;
  status: number;
  code: string | null;
  /** Its latency; the log keeps hundredths of a millisecond. */
  ms: number;
  ip: string | null;
  requestId: string;
}

const REFS = 5;
const FIRST_CAPACITY = 1024;

export class RequestColumns {
  private capacity = FIRST_CAPACITY;
  private at = new Float64Array(FIRST_CAPACITY);
  private status = new Uint16Array(FIRST_CAPACITY);
  private ms = new Float64Array(FIRST_CAPACITY);
  private refs = new Uint32Array(FIRST_CAPACITY * REFS);
  private values: (string | null)[] = [];
  private positions = new Map<string | null, number>();
  private requestIds: string[] = [];
  /** Requests held. */
  n = 0;

  /** Takes the request's fields as they are: the request's own object, nothing allocated here. */
  add(r: LoggedRequest): void {
    if (this.n === this.capacity) this.grow();
    const i = this.n++;
    this.at[i] = r.at;
    this.status[i] = r.status;
    this.ms[i] = Math.round(r.ms * 100) / 100;
    const refs = i * REFS;
    this.refs[refs] = this.position(r.clientId);
    this.refs[refs + 1] = this.position(r.method);
    this.refs[refs + 2] = this.position(r.route);
    this.refs[refs + 3] = this.position(r.code);
    this.refs[refs + 4] = this.position(r.ip);
    this.requestIds.push(r.requestId);
  }

  /** The requests held, in copies sized to them; the columns start empty again. */
  take(): RequestColumnsData {
    const n = this.n;
    const data: RequestColumnsData = {
      n,
      at: this.at.slice(0, n),
      status: this.status.slice(0, n),
      ms: this.ms.slice(0, n),
      values: this.values,
      refs: this.refs.slice(0, n * REFS),
      requestIds: this.requestIds.join("\n"),
    };
    this.n = 0;
    this.values = [];
    this.positions = new Map();
    this.requestIds = [];
    return data;
  }

  private position(value: string | null): number {
    let at = this.positions.get(value);
    if (at === undefined) {
      at = this.values.length;
      this.values.push(value);
      this.positions.set(value, at);
    }
    return at;
  }

  private grow(): void {
    this.capacity *= 2;
    const at = new Float64Array(this.capacity);
    at.set(this.at);
    this.at = at;
    const status = new Uint16Array(this.capacity);
    status.set(this.status);
    this.status = status;
    const ms = new Float64Array(this.capacity);
    ms.set(this.ms);
    this.ms = ms;
    const refs = new Uint32Array(this.capacity * REFS);
    refs.set(this.refs);
    this.refs = refs;
  }
}

/** The log's lines of a batch's requests, with their count and time span. */
export function linesOf(data: RequestColumnsData): RequestLines {
  if (data.n === 0) return { text: "", n: 0, firstAt: 0, lastAt: 0 };
  const ids = data.requestIds.split("\n");
  const value = (ref: number) => data.values[data.refs[ref]!] ?? null;
  const lines = new Array<string>(data.n);
  let firstAt = Number.POSITIVE_INFINITY;
  let lastAt = 0;
  for (let i = 0; i < data.n; i++) {
    const refs = i * REFS;
    const at = data.at[i]!;
    if (at < firstAt) firstAt = at;
    if (at > lastAt) lastAt = at;
    lines[i] = encodeRequest({
      at,
      client: value(refs),
      method: value(refs + 1) as string,
      route: value(refs + 2),
      status: data.status[i]!,
      code: value(refs + 3),
      ms: data.ms[i]!,
      ip: value(refs + 4),
      requestId: ids[i]!,
    });
  }
  return { text: lines.join("\n"), n: data.n, firstAt, lastAt };
}
