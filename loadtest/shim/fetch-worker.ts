// Worker half of sync-fetch: performs one fetch per message and wakes the blocked main thread.

export interface WireRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string | null;
  timeoutMs: number;
}

export interface WireResponse {
  status: number;
  statusText: string;
  headers: Array<[string, string]>;
  body: string;
  /** Set when no HTTP response arrived (refused, reset, timed out): k6 then reports status 0. */
  error: string | null;
  /** Milliseconds: until the response headers, then reading the body. */
  waitingMs: number;
  receivingMs: number;
}

export interface InitMessage {
  port: MessagePort;
  /** Int32Array[0] is bumped after every reply, so the main thread can Atomics.wait on it. */
  signal: SharedArrayBuffer;
}

export interface RequestMessage {
  id: number;
  request: WireRequest;
}

declare var self: Worker;

let port: MessagePort | null = null;
let signal: Int32Array | null = null;

async function perform(request: WireRequest): Promise<WireResponse> {
  const started = performance.now();
  try {
    const res = await fetch(request.url, {
      method: request.method,
      headers: request.headers,
      body: request.body,
      redirect: "follow",
      signal: AbortSignal.timeout(request.timeoutMs),
    });
    const headersAt = performance.now();
    const body = await res.text();
    return {
      status: res.status,
      statusText: res.statusText,
      headers: [...res.headers],
      body,
      error: null,
      waitingMs: headersAt - started,
      receivingMs: performance.now() - headersAt,
    };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { status: 0, statusText: "", headers: [], body: "", error: message, waitingMs: performance.now() - started, receivingMs: 0 };
  }
}

self.onmessage = async (event: MessageEvent<InitMessage | RequestMessage>) => {
  const data = event.data;
  if ("port" in data) {
    port = data.port;
    signal = new Int32Array(data.signal);
    self.postMessage("ready");
    return;
  }
  const response = await perform(data.request);
  // Post first, bump second: once the counter moves, the reply is already on the port.
  port!.postMessage({ id: data.id, response });
  Atomics.add(signal!, 0, 1);
  Atomics.notify(signal!, 0);
};
