// Photo URLs as CRMs write them (CONTRACT §16): protocol-relative and `www.` addresses made
// https, spaces percent-encoded; anything that is still no absolute http(s) URL is dropped.
import { type Read, readFailed, readOk } from "../warnings.ts";

export const MAX_URL_LENGTH = 2048;

/** The usable URL of a photo, or null with the reason it was dropped. */
export function readPhotoUrl(raw: string): Read<string | null> {
  let url = raw.trim().replace(/ /g, "%20");
  if (url === "") return readFailed(null, "PHOTO_DROPPED", "an empty media item: photo dropped");
  if (url.startsWith("//")) url = `https:${url}`;
  else if (/^www\./i.test(url)) url = `https://${url}`;
  if (url.length > MAX_URL_LENGTH) return readFailed(null, "PHOTO_DROPPED", `a URL longer than ${MAX_URL_LENGTH} characters: photo dropped`);
  const parsed = URL.canParse(url) ? new URL(url) : null;
  if (parsed === null || (parsed.protocol !== "http:" && parsed.protocol !== "https:") || parsed.hostname === "") {
    return readFailed(null, "PHOTO_DROPPED", "not an absolute http(s) URL: photo dropped");
  }
  return readOk(url);
}
