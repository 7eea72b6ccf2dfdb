// A request as plain data (method, raw path, headers, body), so a generated case can be printed,
// kept as a regression literal, and sent either to app.handle or over TCP to the binary.

/** Who the Authorization header speaks for; resolved to a real value when the request is sent. */
export type AuthSpec =
  | { kind: "none" }
  | { kind: "valid" }
  | { kind: "otherTenant" }
  /** A valid token with one character of the given part (0 header, 1 claims, 2 signature) changed. */
  | { kind: "tampered"; part: 0 | 1 | 2; at: number }
  | { kind: "raw"; value: string };

export type BodySpec =
  | { kind: "none" }
  | { kind: "text"; text: string }
  /** Raw bytes, e.g. invalid UTF-8 or UTF-16. */
  | { kind: "bytes"; bytes: number[] }
  /** A body sent as a stream of chunks: no Content-Length, Transfer-Encoding: chunked on the wire. */
  | { kind: "chunked"; chunks: string[] }
  /** `size` bytes of filler, declared (Content-Length) or streamed. */
  | { kind: "huge"; size: number; streamed: boolean };

export interface RequestSpec {
  method: string;
  /** Path with its query string, as written on the request line. Placeholders: see harness. */
  path: string;
  headers: [string, string][];
  auth: AuthSpec;
  body: BodySpec;
  /** TCP peer address (app.handle only: the test helper's peer header). */
  peer?: string;
}

const encoder = new TextEncoder();

/** The body's bytes (a stream for chunked and streamed bodies), or null for none. */
export function bodyInit(body: BodySpec): string | Uint8Array | ReadableStream<Uint8Array> | null {
  switch (body.kind) {
    case "none":
      return null;
    case "text":
      return body.text;
    case "bytes":
      return new Uint8Array(body.bytes);
    case "chunked":
      return streamOf(body.chunks.map((c) => encoder.encode(c)));
    case "huge": {
      const filler = new Uint8Array(body.size).fill(0x61);
      if (!body.streamed) return filler;
      const chunks: Uint8Array[] = [];
      for (let i = 0; i < filler.length; i += 16 * 1024) chunks.push(filler.subarray(i, i + 16 * 1024));
      return streamOf(chunks);
    }
  }
}

function streamOf(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (i < chunks.length) controller.enqueue(chunks[i++]!);
      else controller.close();
    },
  });
}

/** GET and HEAD cannot carry a body through fetch's Request. */
export function canHaveBody(method: string): boolean {
  const m = method.toUpperCase();
  return m !== "GET" && m !== "HEAD";
}

/** A short, printable description of a spec for failure messages (bodies abbreviated). */
export function describeSpec(spec: RequestSpec): string {
  const body =
    spec.body.kind === "huge"
      ? { kind: "huge", size: spec.body.size, streamed: spec.body.streamed }
      : JSON.stringify(spec.body).length > 400
        ? { kind: spec.body.kind, abbreviated: JSON.stringify(spec.body).slice(0, 400) }
        : spec.body;
  return JSON.stringify({ ...spec, path: spec.path.slice(0, 400), body });
}
