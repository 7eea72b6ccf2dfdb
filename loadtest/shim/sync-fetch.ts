// k6's HTTP calls are synchronous; Bun's fetch is not. The fetch runs in a worker while this
// thread blocks in Atomics.wait, then the reply is taken off a MessagePort synchronously.
import { MessageChannel, receiveMessageOnPort, type MessagePort } from "node:worker_threads";
import type { WireRequest, WireResponse } from "./fetch-worker.ts";

let worker: Worker | null = null;
let port: MessagePort | null = null;
let signal: Int32Array | null = null;
let nextId = 0;

/** Starts the worker; call (and await) once before the first request. */
export async function startSyncFetch(): Promise<void> {
  const channel = new MessageChannel();
  const shared = new SharedArrayBuffer(4);
  worker = new Worker(new URL("./fetch-worker.ts", import.meta.url).href);
  // The handshake comes on the worker itself; the port is only ever read synchronously.
  const ready = new Promise<void>((resolve, reject) => {
    worker!.onmessage = () => resolve();
    worker!.onerror = (event) => reject(new Error(`fetch worker failed: ${event.message}`));
  });
  worker.postMessage({ port: channel.port2, signal: shared }, [channel.port2 as unknown as Bun.Transferable]);
  await ready;
  port = channel.port1;
  signal = new Int32Array(shared);
}

export function stopSyncFetch(): void {
  worker?.terminate();
  port?.close();
  worker = null;
  port = null;
}

/** Blocks until the worker answers request `id`, or the deadline passes. */
export function fetchSync(request: WireRequest): WireResponse {
  if (!worker || !port || !signal) throw new Error("startSyncFetch() was not awaited");
  const id = ++nextId;
  worker.postMessage({ id, request });
  // The worker enforces timeoutMs itself; the margin only guards against a stuck worker.
  const deadline = Date.now() + request.timeoutMs + 5_000;
  for (;;) {
    const seen = Atomics.load(signal, 0);
    for (let message = receiveMessageOnPort(port); message; message = receiveMessageOnPort(port)) {
      const reply = message.message as { id: number; response: WireResponse };
      // A reply for an earlier, abandoned id is dropped.
      if (reply.id === id) return reply.response;
    }
    const left = deadline - Date.now();
    if (left <= 0) {
      return { status: 0, statusText: "", headers: [], body: "", error: "shim: fetch worker did not answer", waitingMs: 0, receivingMs: 0 };
    }
    Atomics.wait(signal, 0, seen, left);
  }
}
