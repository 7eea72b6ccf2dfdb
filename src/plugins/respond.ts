// Sending JSON bodies that are already serialised (the hot path never re-serialises).

export const JSON_CONTENT_TYPE = "application/json; charset=utf-8";

/**
 * A JSON body through Elysia's own response: the headers already set for this request (id,
 * rate limits…) go into the one Response Elysia builds, instead of being merged into a second
 * one (a measured third of a cached list request's time).
 */
export function sendJson(set: { headers: Record<string, unknown>; status?: unknown }, body: string, status = 200): string {
  set.headers["content-type"] = JSON_CONTENT_TYPE;
  if (status !== 200) set.status = status;
  return body;
}
