// Stand-in for `k6/http`: synchronous requests with k6's Response shape, recorded for the summary.
import { recordRequest } from "./recorder.ts";
import { fetchSync } from "./sync-fetch.ts";

export interface Params {
  headers?: Record<string, string>;
  tags?: Record<string, string>;
  timeout?: string | number;
  responseType?: "text" | "none" | "binary";
}

type Body = string | Record<string, string> | null | undefined;

/** k6's default request timeout. */
const DEFAULT_TIMEOUT_MS = 60_000;

/** Go's canonical header form (`x-ratelimit-limit` → `X-Ratelimit-Limit`), as k6 exposes them. */
function canonicalHeader(name: string): string {
  return name.toLowerCase().replace(/(^|-)([a-z])/g, (_, dash: string, letter: string) => dash + letter.toUpperCase());
}

function timeoutMs(timeout: string | number | undefined): number {
  if (timeout === undefined) return DEFAULT_TIMEOUT_MS;
  if (typeof timeout === "number") return timeout;
  const match = /^(\d+(?:\.\d+)?)(ms|s|m)$/.exec(timeout);
  if (!match) throw new Error(`shim: unsupported timeout ${timeout}`);
  return Number(match[1]) * { ms: 1, s: 1000, m: 60_000 }[match[2] as "ms" | "s" | "m"];
}

/** k6 sends an object body form-encoded; a string as it is. */
function encodeBody(body: Body, headers: Record<string, string>): string | null {
  if (body === null || body === undefined) return null;
  if (typeof body === "string") return body;
  if (!Object.keys(headers).some((h) => h.toLowerCase() === "content-type")) {
    headers["Content-Type"] = "application/x-www-form-urlencoded";
  }
  return new URLSearchParams(body).toString();
}

export function request(method: string, url: string, body?: Body, params: Params = {}) {
  const headers: Record<string, string> = { "User-Agent": "k6-shim (partner-api loadtest)", ...params.headers };
  const payload = encodeBody(body, headers);
  if (params.responseType === "binary") throw new Error("shim: responseType binary is not supported");
  const wire = fetchSync({ method, url, headers, body: payload, timeoutMs: timeoutMs(params.timeout) });
  const durationMs = wire.waitingMs + wire.receivingMs;
  const responseHeaders: Record<string, string> = {};
  for (const [name, value] of wire.headers) responseHeaders[canonicalHeader(name)] = value;
  const tags = { method, url, ...params.tags };
  recordRequest({ method, url, status: wire.status, failed: wire.status === 0 || wire.status >= 400, tags, durationMs });
  const text = wire.error === null ? wire.body : null;
  return {
    status: wire.status,
    status_text: wire.statusText,
    url,
    body: params.responseType === "none" ? null : text,
    headers: responseHeaders,
    error: wire.error ?? "",
    error_code: wire.error === null ? 0 : 1000,
    request: { method, url, headers, body: payload ?? "" },
    timings: {
      blocked: 0,
      connecting: 0,
      tls_handshaking: 0,
      sending: 0,
      waiting: wire.waitingMs,
      receiving: wire.receivingMs,
      duration: durationMs,
    },
    /** Like k6, throws when the body is not JSON. Selectors (gjson) are not supported. */
    json(selector?: string): unknown {
      if (selector !== undefined) throw new Error("shim: json(selector) is not supported");
      if (text === null) throw new Error("shim: no body to parse as JSON");
      return JSON.parse(text);
    },
  };
}

export type Response = ReturnType<typeof request>;

export const get = (url: string, params?: Params) => request("GET", url, null, params);
export const head = (url: string, params?: Params) => request("HEAD", url, null, params);
export const post = (url: string, body?: Body, params?: Params) => request("POST", url, body, params);
export const put = (url: string, body?: Body, params?: Params) => request("PUT", url, body, params);
export const patch = (url: string, body?: Body, params?: Params) => request("PATCH", url, body, params);
export const del = (url: string, body?: Body, params?: Params) => request("DELETE", url, body, params);

export default { request, get, head, post, put, patch, del };
