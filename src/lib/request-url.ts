// The parts of a request's URL, read without `new URL()`. Bun builds `request.url` from the Host
// header, and a Host it cannot use leaves a bare path (`a b`, no Host at all) or a URL that
// `new URL()` refuses (`localhost:99999`, `x:y:z`): parsing it threw, and a caller's malformed
// header became a 500. These read the path and the query from the text, whatever the Host said.

/** Where the path starts: the first "/" after the scheme and authority, or 0 for a bare path. */
function pathStart(url: string): number {
  if (url.startsWith("/")) return 0;
  const scheme = url.indexOf("://");
  if (scheme === -1) return 0;
  const slash = url.indexOf("/", scheme + 3);
  return slash === -1 ? url.length : slash;
}

/** The path of a request URL, without its query ("/" when empty). */
export function pathOfUrl(url: string): string {
  const start = pathStart(url);
  const query = url.indexOf("?", start);
  const path = url.slice(start, query === -1 ? undefined : query);
  return path === "" ? "/" : path;
}

/** The scheme of a request URL ("http" for a bare path: this server speaks plain HTTP). */
export function schemeOfUrl(url: string): "http" | "https" {
  return url.startsWith("https://") ? "https" : "http";
}
