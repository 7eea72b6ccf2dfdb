// One delivery attempt: check the target again, sign, POST, and read at most 64 KiB of the
// answer, all within 10 s. Never throws: every way it can end is an Outcome.
import type { WebhookTargetPolicy } from "../../config/model.ts";
import { signatureHeader } from "./signing.ts";
import { type Resolve, resolveTarget } from "./targets.ts";

export const ATTEMPT_TIMEOUT_MS = 10_000;
export const MAX_RESPONSE_BYTES = 64 * 1024;
/** How much of a receiver's answer is kept in `lastError`. */
const ERROR_EXCERPT_CHARS = 200;

export interface Message {
  /** The webhook-id: the same on every attempt of one delivery. */
  id: string;
  payload: string;
  /** Every secret in force; each adds a `v1,` signature. */
  secrets: readonly string[];
}

export interface Outcome {
  ok: boolean;
  /** The receiver's HTTP status, or null when none arrived. */
  status: number | null;
  /** Why it failed, in words for the delivery log; null on success. */
  error: string | null;
  durationMs: number;
  /** The first KiB of the answer's body, for the agency's delivery log; null when none came. */
  answer: string | null;
}

/** How much of an answer the agency's delivery log keeps. */
export const ANSWER_KEPT_BYTES = 1024;

function answerHead(body: string): string {
  const bytes = Buffer.from(body);
  return bytes.length <= ANSWER_KEPT_BYTES
    ? body
    : bytes
        .subarray(0, ANSWER_KEPT_BYTES)
        .toString()
        .replace(/\uFFFD$/, "");
}

export interface SendOptions {
  resolve: Resolve;
  userAgent: string;
  /** Extra certificate authorities to trust (tests' own); the system's are trusted either way. */
  ca?: string;
  timeoutMs?: number;
}

/** The URL with its host replaced by the checked address, so fetch connects nowhere else. */
function pinnedUrl(url: URL, address: string): string {
  const pinned = new URL(url.href);
  pinned.hostname = address.includes(":") ? `[${address}]` : address;
  return pinned.href;
}

/** Up to `limit` bytes of a body as text; the rest is never read (the connection is dropped). */
async function readBounded(response: Response, limit: number): Promise<string> {
  if (response.body === null) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < limit) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value.byteLength > limit - size ? value.subarray(0, limit - size) : value);
      size += value.byteLength;
    }
  } finally {
    if (size >= limit) await reader.cancel().catch(() => {});
  }
  return Buffer.concat(chunks).toString("utf8");
}

function excerpt(text: string): string {
  const clean = text.replace(/[\u0000-\u001f\u007f]+/g, " ").trim();
  return clean.length > ERROR_EXCERPT_CHARS ? `${clean.slice(0, ERROR_EXCERPT_CHARS)}…` : clean;
}

function describeStatus(response: Response, body: string): string {
  const status = response.status;
  if (status >= 300 && status < 400) {
    const location = response.headers.get("location");
    return `HTTP ${status}: redirects are not followed${location ? ` (Location: ${excerpt(location)})` : ""}`;
  }
  const text = excerpt(body);
  return text === "" ? `HTTP ${status}` : `HTTP ${status}: ${text}`;
}

/** OpenSSL's codes for a certificate chain that leads to no trusted authority. */
const UNTRUSTED_CHAIN = new Set([
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "UNABLE_TO_GET_ISSUER_CERT",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "CERT_UNTRUSTED",
]);

/** A failed connection in words for the delivery log; a refused certificate says why, since the partner must fix it. */
function describeFailure(error: unknown, host: string): string {
  const code = (error as { code?: unknown } | null)?.code;
  const message = (error as Error | null)?.message ?? String(error);
  if (typeof code !== "string") return `connection failed: ${excerpt(message)}`;
  if (code === "ERR_TLS_CERT_ALTNAME_INVALID")
    return `connection failed: the certificate is not valid for ${host} (${code})`;
  if (UNTRUSTED_CHAIN.has(code)) return `connection failed: the certificate is not from a trusted authority (${code})`;
  if (code === "CERT_HAS_EXPIRED") return `connection failed: the certificate has expired (${code})`;
  if (code === "CERT_NOT_YET_VALID") return `connection failed: the certificate is not valid yet (${code})`;
  return `connection failed: ${code}`;
}

/** POSTs one signed message to `url`; `timestampSeconds` is this attempt's webhook-timestamp. */
export async function sendMessage(
  url: string,
  policy: WebhookTargetPolicy,
  message: Message,
  timestampSeconds: number,
  options: SendOptions,
): Promise<Outcome> {
  const started = performance.now();
  const timeoutMs = options.timeoutMs ?? ATTEMPT_TIMEOUT_MS;
  const done = (ok: boolean, status: number | null, error: string | null, answer: string | null = null): Outcome => ({
    ok,
    status,
    error,
    durationMs: performance.now() - started,
    answer,
  });
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new Error("timeout"));
    }, timeoutMs);
  });
  try {
    const target = new URL(url);
    // The resolver takes no signal: the race keeps a hanging DNS answer inside the 10 s too.
    const resolved = await Promise.race([resolveTarget(target, policy, options.resolve), timedOut]);
    if (!resolved.ok) return done(false, null, `target refused: ${resolved.problem}`);
    const headers: Record<string, string> = {
      "content-type": "application/json",
      "user-agent": options.userAgent,
      "webhook-id": message.id,
      "webhook-timestamp": String(timestampSeconds),
      "webhook-signature": signatureHeader(message.secrets, message.id, timestampSeconds, message.payload),
    };
    const fetchUrl = pinnedUrl(target, resolved.address);
    headers.host = target.host;
    // The certificate is still checked against the URL's host name, not the address.
    const tls =
      target.protocol === "https:"
        ? { serverName: target.hostname, ...(options.ca ? { ca: options.ca } : {}) }
        : undefined;
    const response = await Promise.race([
      fetch(fetchUrl, {
        method: "POST",
        headers,
        body: message.payload,
        redirect: "manual",
        signal: controller.signal,
        // A proxy would resolve the host itself, after the check: deliveries connect directly.
        proxy: false,
        ...(tls ? { tls } : {}),
      }),
      timedOut,
    ]);
    const ok = response.status >= 200 && response.status < 300;
    // A 2xx is the receiver's acknowledgement: what it says beside it cannot undo that.
    const body = await Promise.race([readBounded(response, MAX_RESPONSE_BYTES), timedOut]).catch(() => "");
    return done(ok, response.status, ok ? null : describeStatus(response, body), answerHead(body));
  } catch (error) {
    if (controller.signal.aborted) return done(false, null, `no answer within ${Math.round(timeoutMs / 1000)} s`);
    return done(false, null, describeFailure(error, URL.canParse(url) ? new URL(url).hostname : url));
  } finally {
    clearTimeout(timer);
  }
}
