// Photo URLs as CRMs write them (docs/reference/behaviour-extensions.md §16): protocol-relative and `www.` addresses made
// https, spaces percent-encoded; anything that is still no absolute http(s) URL is dropped.
import { type Read, readFailed, readOk } from "../warnings.ts";

export const MAX_URL_LENGTH = 2048;

/** What nearly every photo URL looks like: checked by this alone, without building a URL object. */
const PLAIN_HTTP_URL = /^https?:\/\/[a-z0-9.-]+(?::\d{1,5})?\/[!#-;=?-[\]_a-z~]*$/i;

/** An absolute http(s) URL with a host, of at most MAX_URL_LENGTH characters. */
export function isHttpUrl(text: string): boolean {
  if (text.length > MAX_URL_LENGTH) return false;
  if (PLAIN_HTTP_URL.test(text)) return true;
  const parsed = URL.canParse(text) ? new URL(text) : null;
  return parsed !== null && (parsed.protocol === "http:" || parsed.protocol === "https:") && parsed.hostname !== "";
}

/** The usable URL of a photo, or null with the reason it was dropped. */
export function readPhotoUrl(raw: string): Read<string | null> {
  const trimmed = raw.trim();
  if (trimmed.length <= MAX_URL_LENGTH && PLAIN_HTTP_URL.test(trimmed)) return readOk(trimmed);
  let url = trimmed.replace(/ /g, "%20");
  if (url === "") return readFailed(null, "PHOTO_DROPPED", "an empty media item: photo dropped");
  if (url.startsWith("//")) url = `https:${url}`;
  else if (/^www\./i.test(url)) url = `https://${url}`;
  if (url.length > MAX_URL_LENGTH)
    return readFailed(null, "PHOTO_DROPPED", `a URL longer than ${MAX_URL_LENGTH} characters: photo dropped`);
  return isHttpUrl(url) ? readOk(url) : readFailed(null, "PHOTO_DROPPED", "not an absolute http(s) URL: photo dropped");
}
