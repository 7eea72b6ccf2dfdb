// The address a partner reached this server at, for the document's `servers`: the request's
// own URL (its Host), or, behind a proxy the config trusts, what that proxy says in
// X-Forwarded-Proto/-Host or Forwarded (RFC 7239). Values that are not a plain scheme or
// host[:port] (a port of 1 to 65535) are ignored, so the document never carries a header's
// text verbatim; with no usable host at all the origin is null: the document then names its
// server as "/", the address it was fetched from (docs/reference/behaviour-partners.md §21).
import { schemeOfUrl } from "../lib/request-url.ts";

const HOST =
  /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,62})(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}))*|\[[0-9A-Fa-f:.]+\])(?::(\d{1,5}))?$/;

/** A plain host[:port] with a port a TCP connection can have. */
function isHost(text: string): boolean {
  const match = HOST.exec(text);
  if (match === null) return false;
  const port = match[1];
  return port === undefined || (Number(port) >= 1 && Number(port) <= 65_535);
}
const PROTO = /^https?$/i;

/** The host of an absolute request URL (one made in-process has no Host header), when it is a plain host. */
function hostOfUrl(url: string): string | null {
  if (!URL.canParse(url)) return null;
  const { host } = new URL(url);
  return isHost(host) ? host : null;
}

/** The first value of a comma-separated header: the one the proxy nearest the partner wrote. */
function first(value: string | null): string | null {
  if (value === null) return null;
  const one = value.split(",")[0]!.trim();
  return one === "" ? null : one;
}

/** `proto` and `host` of the first element of a Forwarded header. */
function forwarded(value: string | null): { proto?: string; host?: string } {
  const element = first(value);
  if (element === null) return {};
  const out: { proto?: string; host?: string } = {};
  for (const pair of element.split(";")) {
    const at = pair.indexOf("=");
    if (at < 0) continue;
    const name = pair.slice(0, at).trim().toLowerCase();
    const raw = pair.slice(at + 1).trim();
    const text = raw.startsWith('"') && raw.endsWith('"') ? raw.slice(1, -1) : raw;
    if (name === "proto") out.proto = text;
    if (name === "host") out.host = text;
  }
  return out;
}

/**
 * The origin (`scheme://host[:port]`) the request was addressed to, as the partner saw it; null
 * when nothing names a usable host (a malformed or missing Host header is ignored, never an error).
 */
export function requestOrigin(request: Request, viaTrustedProxy: boolean): string | null {
  let proto: string = schemeOfUrl(request.url);
  // Bun builds the URL from the Host header; read the header itself, as a proxy's would be.
  const hostHeader = request.headers.get("host");
  let host = hostHeader !== null && isHost(hostHeader) ? hostHeader : hostOfUrl(request.url);
  if (viaTrustedProxy) {
    const standard = forwarded(request.headers.get("forwarded"));
    const xProto = first(request.headers.get("x-forwarded-proto")) ?? standard.proto;
    const xHost = first(request.headers.get("x-forwarded-host")) ?? standard.host;
    if (xProto !== undefined && xProto !== null && PROTO.test(xProto)) proto = xProto.toLowerCase();
    if (xHost !== undefined && xHost !== null && isHost(xHost)) host = xHost;
  }
  return host === null ? null : `${proto}://${host}`;
}
