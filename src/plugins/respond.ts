// Building JSON responses from already-serialised bodies (the hot path never re-serialises).

export const JSON_CONTENT_TYPE = "application/json; charset=utf-8";

export function jsonResponse(body: string, status = 200, headers?: Record<string, string>): Response {
  return new Response(body, {
    status,
    headers: headers ? { "content-type": JSON_CONTENT_TYPE, ...headers } : { "content-type": JSON_CONTENT_TYPE },
  });
}

/** `{ data: … }` around a value. */
export function dataResponse(data: unknown, status = 200): Response {
  return jsonResponse(`{"data":${JSON.stringify(data)}}`, status);
}
