// Sending JSON bodies that are already serialised (the hot path never re-serialises).

export const JSON_CONTENT_TYPE = "application/json; charset=utf-8";

/**
 * A JSON body through Elysia's own response: the headers already set for this request (id,
 * rate limits…) go into the one Response Elysia builds, instead of being merged into a second
 * one (a measured third of a cached list request's time).
 */
export function sendJson(
  set: { headers: Record<string, unknown>; status?: unknown },
  body: string,
  status = 200,
): string {
  set.headers["content-type"] = JSON_CONTENT_TYPE;
  if (status !== 200) set.status = status;
  return body;
}

/**
 * Whether the client takes gzip (RFC 9110 §12.5.3): `gzip` (or its old alias `x-gzip`) or `*`
 * with a weight above 0, and gzip not refused by name with `q=0`.
 */
export function acceptsGzip(acceptEncoding: string | null): boolean {
  if (acceptEncoding === null) return false;
  let named: number | null = null;
  let any: number | null = null;
  for (const entry of acceptEncoding.split(",")) {
    const [coding, ...parameters] = entry.split(";").map((part) => part.trim().toLowerCase());
    const q = parameters.find((p) => p.startsWith("q="));
    const weight = q === undefined ? 1 : Number(q.slice(2));
    if (Number.isNaN(weight)) continue;
    if (coding === "gzip" || coding === "x-gzip") named = Math.max(named ?? 0, weight);
    else if (coding === "*") any = weight;
  }
  return (named ?? any ?? 0) > 0;
}
