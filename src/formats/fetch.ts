// Downloading a feed over HTTP, bounded: a time limit for the whole download, a stall limit
// (no byte for a while, headers included), a size limit (announced or counted), at most
// MAX_REDIRECTS redirects under the rules below, and conditional requests (ETag /
// Last-Modified) that a 304 answers. The body is a stream: never whole in memory. Every way a
// download can fail is a FeedError whose message names the feed's URL without its secrets.
import { FeedError } from "./listing.ts";

export interface FetchLimits {
  /** The whole download, from the first request to the last byte. */
  timeoutMs: number;
  /** The longest wait for any byte (the answer's headers, then each piece of the body). */
  stallMs: number;
  /** The most bytes of body, counted as the stream yields them (inflated when the server compressed them). */
  maxBytes: number;
}

export const DEFAULT_FETCH_LIMITS: FetchLimits = {
  timeoutMs: 30 * 60_000,
  stallMs: 60_000,
  maxBytes: 1024 * 1024 * 1024,
};

/** Redirects followed before giving up (curl and browsers allow more; a feed has no reason to chain them). */
export const MAX_REDIRECTS = 5;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** What identifies the version of a feed the last successful run applied. */
export interface Validators {
  etag: string | null;
  lastModified: string | null;
}

export interface FetchRequest {
  /** Sent to the feed's own origin only (secrets: never logged, never sent elsewhere). */
  headers?: Readonly<Record<string, string>>;
  /** From the last success: If-None-Match / If-Modified-Since. */
  validators?: Validators | null;
  limits?: FetchLimits;
  /** Stops the download (a shutdown); the stream then fails with a FeedError. */
  signal?: AbortSignal;
}

export type Fetched =
  | { status: "not-modified" }
  | { status: "ok"; body: ReadableStream<Uint8Array>; totalBytes: number | null; validators: Validators };

/** A URL as logs, errors and `feeds status` show it: no user or password, no query values (tokens often hide there). */
export function displayUrl(url: string): string {
  try {
    const parsed = new URL(url);
    const query = parsed.search === "" ? "" : "?…";
    return `${parsed.protocol}//${parsed.host}${parsed.pathname}${query}`;
  } catch {
    return "(not a URL)";
  }
}

const megabytes = (bytes: number) => `${Math.round(bytes / 1_048_576).toLocaleString("en-US")} MiB`;
const seconds = (ms: number) => (ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`);

type StopReason = "timeout" | "stall" | "stopped";

/** The timers of one download, which abort its requests and its body. */
class Watch {
  readonly controller = new AbortController();
  reason: StopReason | null = null;
  private stallTimer: ReturnType<typeof setTimeout> | null = null;
  private readonly totalTimer: ReturnType<typeof setTimeout>;
  private readonly onOuterAbort = () => this.stop("stopped");

  constructor(
    private readonly limits: FetchLimits,
    private readonly outer: AbortSignal | undefined,
  ) {
    this.totalTimer = setTimeout(() => this.stop("timeout"), limits.timeoutMs);
    outer?.addEventListener("abort", this.onOuterAbort);
    if (outer?.aborted) this.stop("stopped");
    this.alive();
  }

  /** A byte arrived (or a request started): the stall clock starts again. */
  alive(): void {
    if (this.stallTimer !== null) clearTimeout(this.stallTimer);
    this.stallTimer = setTimeout(() => this.stop("stall"), Math.min(this.limits.stallMs, this.limits.timeoutMs));
  }

  private stop(reason: StopReason): void {
    this.reason ??= reason;
    this.controller.abort(new Error(reason));
  }

  done(): void {
    clearTimeout(this.totalTimer);
    if (this.stallTimer !== null) clearTimeout(this.stallTimer);
    this.outer?.removeEventListener("abort", this.onOuterAbort);
  }

  /** The failure in words, from why the download was stopped, else from the error itself. */
  failure(where: string, error: unknown, bytes: number): FeedError {
    const after = bytes > 0 ? ` after ${bytes.toLocaleString("en-US")} bytes` : "";
    if (this.reason === "timeout")
      return new FeedError(
        `${where}: the download took longer than its time limit (${seconds(this.limits.timeoutMs)})${after}`,
      );
    if (this.reason === "stall")
      return new FeedError(
        `${where}: no data for ${seconds(Math.min(this.limits.stallMs, this.limits.timeoutMs))}${after}: the download stalled`,
      );
    if (this.reason === "stopped") return new FeedError(`${where}: the download was stopped (the process is stopping)`);
    if (error instanceof FeedError) return error;
    const message = (error as Error | null)?.message ?? String(error);
    return new FeedError(
      bytes > 0 ? `${where}: the download was cut short${after}: ${message}` : `${where}: ${message}`,
    );
  }
}

/**
 * The next hop of a redirect, or a FeedError saying why it is not followed. Rules: http(s)
 * only; never from https down to http (the request, and what it carries, would travel in clear).
 */
function redirectTarget(from: URL, response: Response, where: string): URL {
  const location = response.headers.get("location");
  if (location === null) throw new FeedError(`${where}: HTTP ${response.status} without a Location header`);
  let next: URL;
  try {
    next = new URL(location, from);
  } catch {
    throw new FeedError(`${where}: HTTP ${response.status} to an invalid Location`);
  }
  if (next.protocol !== "http:" && next.protocol !== "https:")
    throw new FeedError(`${where}: redirected to a ${next.protocol.slice(0, -1)} URL; only http(s) is followed`);
  if (from.protocol === "https:" && next.protocol === "http:")
    throw new FeedError(`${where}: redirected from https to plain http (${displayUrl(next.href)}); not followed`);
  return next;
}

function requestHeaders(target: URL, origin: string, request: FetchRequest): Headers {
  // The configured headers (an Authorization, a token) go to the feed's own origin only, as
  // browsers and curl do with credentials: a redirect elsewhere does not receive them.
  const headers = new Headers(target.origin === origin ? { ...request.headers } : {});
  const validators = request.validators;
  if (validators?.etag) headers.set("if-none-match", validators.etag);
  if (validators?.lastModified) headers.set("if-modified-since", validators.lastModified);
  if (!headers.has("user-agent")) headers.set("user-agent", "partner-api feed reader");
  return headers;
}

/** The body as a stream that enforces the limits as it is read; its errors are FeedErrors. */
function boundedBody(
  body: ReadableStream<Uint8Array>,
  watch: Watch,
  maxBytes: number,
  where: string,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let bytes = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch (error) {
        watch.done();
        controller.error(watch.failure(where, error, bytes));
        return;
      }
      if (chunk.done) {
        watch.done();
        controller.close();
        return;
      }
      bytes += chunk.value.byteLength;
      if (bytes > maxBytes) {
        watch.done();
        await reader.cancel().catch(() => {});
        controller.error(
          new FeedError(
            `${where}: the feed is larger than its size limit (${megabytes(maxBytes)}; maxBytes in the config)`,
          ),
        );
        return;
      }
      watch.alive();
      controller.enqueue(chunk.value);
    },
    cancel(reason) {
      watch.done();
      return reader.cancel(reason);
    },
  });
}

/** GETs a feed within the limits, following redirects by the rules above. */
export async function fetchFeed(url: string, request: FetchRequest = {}): Promise<Fetched> {
  const limits = request.limits ?? DEFAULT_FETCH_LIMITS;
  const where = `cannot fetch ${displayUrl(url)}`;
  const watch = new Watch(limits, request.signal);
  let target = new URL(url);
  const origin = target.origin;
  try {
    for (let hop = 0; ; hop++) {
      watch.alive();
      const response = await fetch(target, {
        headers: requestHeaders(target, origin, request),
        redirect: "manual",
        signal: watch.controller.signal,
      });
      if (REDIRECT_STATUSES.has(response.status)) {
        await response.body?.cancel().catch(() => {});
        if (hop === MAX_REDIRECTS) throw new FeedError(`${where}: more than ${MAX_REDIRECTS} redirects`);
        target = redirectTarget(target, response, where);
        continue;
      }
      if (response.status === 304) {
        await response.body?.cancel().catch(() => {});
        watch.done();
        return { status: "not-modified" };
      }
      if (!response.ok || response.body === null) {
        await response.body?.cancel().catch(() => {});
        throw new FeedError(`${where}: HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ""}`);
      }
      const announced = Number(response.headers.get("content-length"));
      // fetch() inflates a Content-Encoding itself: then the announced length is not what is counted.
      const totalBytes =
        response.headers.has("content-encoding") || !Number.isFinite(announced) || announced <= 0 ? null : announced;
      if (totalBytes !== null && totalBytes > limits.maxBytes) {
        await response.body.cancel().catch(() => {});
        throw new FeedError(
          `${where}: the feed announces ${megabytes(totalBytes)}, more than its size limit (${megabytes(limits.maxBytes)}; maxBytes in the config)`,
        );
      }
      return {
        status: "ok",
        body: boundedBody(response.body, watch, limits.maxBytes, where),
        totalBytes,
        validators: { etag: response.headers.get("etag"), lastModified: response.headers.get("last-modified") },
      };
    }
  } catch (error) {
    watch.done();
    throw watch.failure(where, error, 0);
  }
}
