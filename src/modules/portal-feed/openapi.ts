// The documentation of GET and HEAD /v1/feeds/vrsync.xml (docs/reference/behaviour-extensions.md §17), each passed on
// its route as its `detail`: both ways in (a bearer token, or Basic auth with the API key and
// secret), the validators, 304 and the VRSync body; its example is the real writer's output for
// the example property.
import type { SandboxExamples } from "../../docs/examples.ts";
import { type Operation, protectedResponses, route } from "../../docs/operation.ts";
import { responseHeaders } from "../../docs/responses.ts";
import type { Listing } from "../../formats/listing.ts";
import { VRSYNC_FOOTER, vrsyncHeader, vrsyncListing } from "../../formats/vrsync/writer.ts";
import { FEED_PATH, XML_CONTENT_TYPE } from "./service.ts";

type Json = Record<string, unknown>;

const ref = (name: string) => ({ $ref: `#/components/headers/${name}` });

const TAG = "Portal feed";

const FEED_RESPONSE_HEADERS = {
  ...responseHeaders("rateLimited"),
  ETag: ref("ETag"),
  "Last-Modified": ref("LastModified"),
};

/** The VRSync document of the example property, as the writer writes it. */
function exampleFeed(examples: SandboxExamples): string {
  const { id, createdAt: _c, updatedAt: _u, isPublished: _p, ...content } = examples.property.data;
  const listing = { ...(content as unknown as Listing), code: (content.code as string | null) ?? (id as string) };
  return vrsyncHeader("partner-api", "2026-01-01T00:00:00.000Z") + vrsyncListing(listing) + VRSYNC_FOOTER;
}

const CONDITIONAL_PARAMETERS = [
  {
    name: "If-None-Match",
    in: "header" as const,
    required: false,
    description: "The ETag of the copy you hold: 304 while it is current",
    schema: { type: "string" },
    example: 'W/"an-etag-from-an-earlier-answer"',
  },
  {
    name: "If-Modified-Since",
    in: "header" as const,
    required: false,
    description:
      "The Last-Modified of the copy you hold (ignored when If-None-Match is sent): 304 while nothing changed since",
    schema: { type: "string" },
    example: "Thu, 01 Jan 2026 00:00:00 GMT",
  },
  {
    name: "Accept-Encoding",
    in: "header" as const,
    required: false,
    description: "`gzip` for a gzipped body (Content-Encoding: gzip)",
    schema: { type: "string" },
    example: "gzip",
  },
];

/** Responses as a HEAD request gets them: the same statuses and headers, no content. */
function headersOnly(responses: Record<string, Json>): Record<string, Json> {
  return Object.fromEntries(
    Object.entries(responses).map(([status, { content: _content, ...rest }]) => [
      status,
      { ...rest, description: `${rest.description} (headers only)` },
    ]),
  );
}

/** Both operations: they share their errors and answers, a HEAD's without content. */
function feedOperations(examples: SandboxExamples): { get: Operation; head: Operation } {
  const description =
    "Your published listings as one VRSync XML file (the format of ZAP, VivaReal and OLX), for a portal that fetches a URL on its " +
    "own schedule and takes down what the file no longer lists. Authenticate with a bearer token, or with HTTP Basic auth " +
    "(user: your API key, password: your API secret) from a portal's panel that takes only a URL, a user and a password; either " +
    "way the IP list, the enabled flag, the database and your rate limit apply, and a failed Basic auth counts against the " +
    "address's failed-authentication allowance like a failed token request. What the agency's `displayAddress` hides from " +
    "partners is left out unless the agency gave you the full address. The agency's config may restrict the listings your feed " +
    "carries (kinds of deal, states, property types) and cap their number (the most recently updated first). The body is " +
    "streamed from one consistent state of the database; send the ETag back as If-None-Match (or Last-Modified as " +
    "If-Modified-Since) to get 304 while nothing changed. The server sends only a few feeds at once: a request beyond them " +
    "waits its turn, and one that would wait too long is answered 503 with Retry-After (fetch again after it).";
  const errors = protectedResponses(
    {},
    ["MISSING_CREDENTIALS", "INVALID_API_KEY", "INVALID_API_SECRET", "SERVICE_UNAVAILABLE"],
    {},
    "feed:read",
  );
  const unauthorized = errors["401"] as Json;
  errors["401"] = {
    ...unauthorized,
    headers: { ...(unauthorized.headers as Json), "WWW-Authenticate": ref("WWWAuthenticateFeed") },
  };
  const notModified = {
    description: "Not modified: your copy (If-None-Match / If-Modified-Since) is current; no body",
    headers: FEED_RESPONSE_HEADERS,
  };
  // A HEAD answer has headers only: no content is documented for it, so no tool expects a body.
  const ok = (body: boolean): Json => ({
    description: body
      ? "The feed, streamed (gzipped when you accept gzip)"
      : "The headers of the feed, without its body",
    headers: { ...FEED_RESPONSE_HEADERS, "X-Feed-Skipped": ref("XFeedSkipped") },
    ...(body
      ? { content: { [XML_CONTENT_TYPE]: { schema: { type: "string" }, example: exampleFeed(examples) } } }
      : {}),
  });
  return {
    get: {
      operationId: "getPortalFeed",
      summary: "Your listings as a VRSync XML feed",
      description,
      access: "bearerOrBasic",
      parameters: CONDITIONAL_PARAMETERS,
      responses: { "200": ok(true), "304": notModified, ...errors },
    },
    head: {
      operationId: "headPortalFeed",
      summary: "The feed's headers (validators, skipped listings) without its body",
      description:
        "The same answer as GET without a body: the ETag, Last-Modified and X-Feed-Skipped a GET would carry now.",
      access: "bearerOrBasic",
      parameters: CONDITIONAL_PARAMETERS,
      responses: { "200": ok(false), "304": notModified, ...headersOnly(errors) },
    },
  };
}

export const PORTAL_FEED_ROUTES = {
  get: route("get", FEED_PATH, TAG, ({ examples }) => feedOperations(examples).get),
  head: route("head", FEED_PATH, TAG, ({ examples }) => feedOperations(examples).head),
};
