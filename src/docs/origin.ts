// The address a partner reached this server at, for the document's `servers`: the request's
// own URL (its Host), or, behind a proxy the config trusts, what that proxy says in
// X-Forwarded-Proto/-Host or Forwarded (RFC 7239). Values that are not a plain scheme or
// host[:port] are ignored, so the document never carries a header's text verbatim.

const HOST =
  /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,62})(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}))*|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;
const PROTO = /^https?$/i;

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

/** The origin (`scheme://host[:port]`) the request was addressed to, as the partner saw it. */
export function requestOrigin(request: Request, viaTrustedProxy: boolean): string {
  const own = new URL(request.url);
  let proto = own.protocol.slice(0, -1);
  // Bun builds the URL from the Host header; read the header itself, as a proxy's would be.
  const hostHeader = request.headers.get("host");
  let host = hostHeader !== null && HOST.test(hostHeader) ? hostHeader : own.host;
  if (viaTrustedProxy) {
    const standard = forwarded(request.headers.get("forwarded"));
    const xProto = first(request.headers.get("x-forwarded-proto")) ?? standard.proto;
    const xHost = first(request.headers.get("x-forwarded-host")) ?? standard.host;
    if (xProto !== undefined && xProto !== null && PROTO.test(xProto)) proto = xProto.toLowerCase();
    if (xHost !== undefined && xHost !== null && HOST.test(xHost)) host = xHost;
  }
  return `${proto}://${host}`;
}
