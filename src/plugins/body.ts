// Reading a JSON request body by hand, so every failure has the contract's code: 413 past
// 64 KiB (declared or chunked), MISSING_BODY when empty, 415 for other media types, and
// VALIDATION_ERROR for malformed JSON or JSON that is not an object.
import { ApiError } from "../errors.ts";

export const MAX_BODY_BYTES = 64 * 1024;

/**
 * The client hung up before its body arrived whole. Nobody is left to answer and nothing is
 * wrong with the server: plugins/errors.ts records it as a client disconnect, never as a 5xx.
 */
export class ClientDisconnected extends Error {
  constructor() {
    super("the client closed the connection before its request body arrived");
    this.name = "ClientDisconnected";
  }
}

/** The request's body, at most `limit` bytes (413 past it; a hang-up is a ClientDisconnected). */
export async function readLimited(request: Request, limit: number): Promise<Uint8Array> {
  try {
    return await readBody(request, limit);
  } catch (error) {
    // Bun rejects the read with an AbortError and aborts the request's signal when the socket closes.
    if (request.signal.aborted && !(error instanceof ApiError)) throw new ClientDisconnected();
    throw error;
  }
}

async function readBody(request: Request, limit: number): Promise<Uint8Array> {
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > limit) throw new ApiError("PAYLOAD_TOO_LARGE");
  if (request.body === null) return new Uint8Array(0);
  // A declared length within the limit bounds what HTTP/1.1 will deliver: read it in one go,
  // without the stream machinery (a measurable share of a lead creation's CPU).
  if (declared !== null && /^\d+$/.test(declared)) {
    const bytes = new Uint8Array(await request.arrayBuffer());
    if (bytes.byteLength > limit) throw new ApiError("PAYLOAD_TOO_LARGE"); // a header that lied
    return bytes;
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw new ApiError("PAYLOAD_TOO_LARGE");
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return chunks[0]!;
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

function isJsonMediaType(contentType: string | null): boolean {
  if (contentType === null) return false;
  const type = contentType.split(";")[0]!.trim().toLowerCase();
  return type === "application/json" || (type.startsWith("application/") && type.endsWith("+json"));
}

const decoder = new TextDecoder("utf-8", { fatal: true });

/**
 * JSON.parse's reviver with the source text of each value (the TC39 "JSON.parse source text
 * access" proposal, which Bun's JavaScriptCore implements): a number whose JavaScript value
 * would be written otherwise than the sender wrote it (past 2^53, trailing zeros, an exponent)
 * is kept as that text. 9007199254740993 stays "9007199254740993" instead of becoming
 * 9007199254740992, the same number as the next id down.
 */
function keepNumberText(this: unknown, _key: string, value: unknown, context?: { source?: string }): unknown {
  if (typeof value !== "number") return value;
  const source = context?.source;
  return source !== undefined && source !== String(value) ? source : value;
}

/**
 * The request's JSON object body, or an ApiError naming what is wrong with it. `anyMediaType`:
 * the Content-Type is not looked at (a portal's post is JSON whatever it says it is).
 * `exactNumbers`: a number JavaScript cannot hold as written comes as its text (keepNumberText).
 */
export async function readJsonObject(
  request: Request,
  options: { anyMediaType?: boolean; exactNumbers?: boolean } = {},
): Promise<Record<string, unknown>> {
  const bytes = await readLimited(request, MAX_BODY_BYTES);
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    throw ApiError.validation([{ field: "body", message: "must be UTF-8 encoded JSON" }]);
  }
  if (text.trim() === "") throw new ApiError("MISSING_BODY");
  if (options.anyMediaType !== true && !isJsonMediaType(request.headers.get("content-type")))
    throw new ApiError("UNSUPPORTED_MEDIA_TYPE");
  let value: unknown;
  try {
    value = options.exactNumbers === true ? JSON.parse(text, keepNumberText as never) : JSON.parse(text);
  } catch {
    throw ApiError.validation([{ field: "body", message: "must be valid JSON" }]);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw ApiError.validation([{ field: "body", message: "must be a JSON object" }]);
  }
  return value as Record<string, unknown>;
}
