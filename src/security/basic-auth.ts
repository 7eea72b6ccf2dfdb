// HTTP Basic credentials (RFC 7617) as portals send them: user = API key, password = API secret.
// Read strictly: anything that is not base64 of UTF-8 `key:secret` with both parts present is
// "malformed", never a guess.

/** The challenge a 401 of a route that takes Basic auth carries. */
export const BASIC_CHALLENGE = 'Basic realm="partner-api"';

/** Longer credentials than this are refused unread (a key is at most 200 characters). */
const MAX_ENCODED_LENGTH = 4096;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const utf8 = new TextDecoder("utf-8", { fatal: true });

export type BasicCredentials = { apiKey: string; apiSecret: string } | "malformed";

/** Whether an Authorization header uses the Basic scheme (any case). */
export function isBasicAuthorization(authorization: string | null): authorization is string {
  return authorization !== null && /^basic(?:\s|$)/i.test(authorization);
}

/** The key and secret of a `Basic …` Authorization header, or "malformed". */
export function basicCredentials(authorization: string): BasicCredentials {
  const encoded = authorization.slice(5).trim();
  // Padding may be missing (some clients drop it); a length of 4n+1 is never base64.
  if (encoded.length > MAX_ENCODED_LENGTH || !BASE64.test(encoded) || encoded.length % 4 === 1) return "malformed";
  if (encoded.endsWith("=") && encoded.length % 4 !== 0) return "malformed";
  let decoded: string;
  try {
    decoded = utf8.decode(Buffer.from(encoded, "base64"));
  } catch {
    return "malformed";
  }
  const colon = decoded.indexOf(":");
  if (colon <= 0 || colon === decoded.length - 1) return "malformed";
  return { apiKey: decoded.slice(0, colon), apiSecret: decoded.slice(colon + 1) };
}
