// The portal feed's own response headers (docs/reference/behaviour-extensions.md §17), a shared
// component of the document; the feed's operations are declared beside its routes
// (src/modules/portal-feed/openapi.ts).

type Json = Record<string, unknown>;

/** The feed's own headers, beside those of every rate-limited response. */
export const FEED_HEADERS: Record<string, Json> = {
  ETag: {
    required: true,
    description:
      "Weak validator of the feed's content (the same for the plain and the gzipped body); it changes when a listing, the client's " +
      "selection or its address view changes, and not otherwise. Send it back as If-None-Match",
    schema: { type: "string" },
    example: 'W/"Hq3m0Zt8vJb2cXgWkR1yPnA4sLe"',
  },
  LastModified: {
    description:
      "When the content last changed, as an HTTP date; left out within the second of that change (the ETag is always there)",
    schema: { type: "string" },
    example: "Mon, 05 Jan 2026 14:30:00 GMT",
  },
  XFeedSkipped: {
    required: true,
    description:
      "Listings of your selection left out because VRSync cannot carry them (no ListingID or Title, control characters): the agency must fix them",
    schema: { type: "integer", minimum: 0 },
    example: 0,
  },
  WWWAuthenticateFeed: {
    required: true,
    description:
      'The route takes HTTP Basic auth or a bearer token: `Basic realm="partner-api"` after failed Basic credentials; ' +
      'otherwise the Basic challenge, then the Bearer one (`Bearer realm="partner-api"`, with `error="invalid_token"` ' +
      "when a bearer token was sent and is no good)",
    schema: { type: "string" },
    example: 'Basic realm="partner-api", Bearer realm="partner-api"',
  },
  WWWAuthenticate: {
    required: true,
    description: 'The route takes HTTP Basic auth: `Basic realm="partner-api"`',
    schema: { type: "string" },
    example: 'Basic realm="partner-api"',
  },
};
