// fast-check generators of hostile requests: paths near and far from the routes, query strings
// of junk, encodings valid and broken, huge and empty values, odd headers, bodies of every shape.
import fc from "fast-check";
import { LEAD_SOURCES, LEAD_STATUSES, PROPERTY_STATUSES } from "../../src/catalog/enums.ts";
import { LEAD_CATALOG } from "../../src/catalog/leads.ts";
import { PROPERTY_CATALOG } from "../../src/catalog/properties.ts";
import { PLACEHOLDERS } from "./harness.ts";
import type { AuthSpec, BodySpec, RequestSpec } from "./spec.ts";

/** Values that have broken parsers before, somewhere. */
const NASTY = [
  "",
  " ",
  "  \t ",
  "null",
  "undefined",
  "NaN",
  "Infinity",
  "-0",
  "0",
  "-1",
  "1.5",
  "1e3",
  "0x10",
  "1e309",
  "9007199254740993",
  "99999999999999999999999",
  "true",
  "[]",
  "{}",
  "[object Object]",
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "hasOwnProperty",
  "../../etc/passwd",
  "..%2f..%2f",
  "%00",
  "\u0000",
  "%zz",
  "%",
  "%E0%A4%A",
  "%C0%AF",
  "%FF%FE",
  "' OR '1'='1",
  "1; DROP TABLE leads; --",
  '" OR 1=1 --',
  "*",
  "%25",
  "<script>alert(1)</script>",
  "${7*7}",
  "{{7*7}}",
  "$where",
  '{"$gt":""}',
  "\u202e",
  "\ufeff",
  "😀",
  "ção",
  "\ud800",
  "\udfff\ud800",
  "a\r\nb",
  "2025-02-30T00:00:00Z",
  "2025-01-01T24:00:00Z",
  "2025-01-01",
  "0000-01-01T00:00:00Z",
  "9999-12-31T23:59:59.999999999Z",
  "+275760-09-13T00:00:00Z",
  "2025-01-01T00:00:00+99:99",
  "2025-01-01T00:00:00-0300",
  "-createdAt",
  "createdAt,updatedAt",
];

const interesting = fc.constantFrom(...NASTY);

const FIELD_NAMES = [
  ...PROPERTY_CATALOG.fields.map((f) => f.name),
  ...LEAD_CATALOG.fields.map((f) => f.name),
  "street",
  "latitude",
  "totalArea",
  "url",
  "interestedPropertyLink",
  "trafficOrigin",
  "isPublished",
];

/** Up to `max` characters of anything: any code point (lone surrogates included) or graphemes. */
export const junkText = (max = 40) =>
  fc.oneof(
    { weight: 3, arbitrary: interesting },
    { weight: 2, arbitrary: fc.string({ unit: "binary", maxLength: max }) },
    { weight: 2, arbitrary: fc.string({ unit: "grapheme", maxLength: max }) },
    { weight: 1, arbitrary: fc.string({ unit: "binary-ascii", maxLength: max }) },
    { weight: 1, arbitrary: fc.integer().map(String) },
    { weight: 1, arbitrary: fc.double().map(String) },
    { weight: 1, arbitrary: fc.date({ noInvalidDate: true }).map((d) => d.toISOString()) },
    { weight: 1, arbitrary: fc.integer({ min: 1_000, max: 12_000 }).map((n) => "9".repeat(n)) },
  );

/** A `fields` value: real names, group names, sub-field names and junk, comma-separated. */
export const fieldsValue = fc
  .tuple(
    fc.array(
      fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...FIELD_NAMES) }, { weight: 1, arbitrary: junkText(12) }),
      { maxLength: 8 },
    ),
    fc.constantFrom(",", ", ", ",,", " , "),
  )
  .map(([names, separator]) => names.join(separator));

const hex = fc.integer({ min: 0, max: 255 }).map((n) => n.toString(16).padStart(2, "0").toUpperCase());

/** Percent-encodes every UTF-8 byte outside the unreserved set (lone surrogates become U+FFFD). */
export function encodeBytes(text: string): string {
  let out = "";
  for (const byte of new TextEncoder().encode(text)) {
    const c = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-._~]/.test(c) ? c : `%${byte.toString(16).padStart(2, "0").toUpperCase()}`;
  }
  return out;
}

/** One URL component: cleanly encoded, raw, or broken percent-encoding. */
export const component = (text: fc.Arbitrary<string>) =>
  fc.oneof(
    { weight: 4, arbitrary: text.map(encodeBytes) },
    { weight: 1, arbitrary: text.map((s) => s.replace(/[#?/\s\u0000-\u001f]/g, "")) },
    {
      weight: 1,
      arbitrary: fc
        .array(
          fc.oneof(
            hex.map((h) => `%${h}`),
            fc.constantFrom("%", "%z", "%%", "%2", "%u0041", "+"),
          ),
          { maxLength: 6 },
        )
        .map((a) => a.join("")),
    },
  );

const QUERY_KEYS = [
  "fields",
  "page",
  "limit",
  "status",
  "createdAfter",
  "createdBefore",
  "updatedAfter",
  "updatedBefore",
  "sort",
  "operationType",
  "propertyType",
  "highlight",
  "code",
  "source",
  "priority",
  "entity",
  "after",
];

const queryValue = fc.oneof(
  { weight: 3, arbitrary: junkText() },
  { weight: 2, arbitrary: fieldsValue },
  {
    weight: 1,
    arbitrary: fc.constantFrom(...PROPERTY_STATUSES, ...LEAD_STATUSES, ...LEAD_SOURCES, "properties", "leads"),
  },
  { weight: 1, arbitrary: fc.integer({ min: -5, max: 2_000_000_000 }).map(String) },
);

/** A query string (without "?"): known and unknown keys, repeated keys, odd separators. */
export const queryString = fc
  .tuple(
    fc.array(
      fc.tuple(
        component(
          fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...QUERY_KEYS) }, { weight: 1, arbitrary: junkText(10) }),
        ),
        component(queryValue),
        fc.constantFrom("=", "=", "=", "", "=="),
      ),
      { maxLength: 10 },
    ),
    fc.constantFrom("&", "&", "&&", ";"),
  )
  .map(([pairs, separator]) => pairs.map(([k, v, eq]) => (eq === "" ? k : `${k}${eq}${v}`)).join(separator));

const ROUTES = [
  "/health",
  "/v1/auth/token",
  "/v1/fields",
  "/v1/values/:entity/:field",
  "/v1/properties",
  "/v1/properties/:id",
  "/v1/leads",
  "/v1/leads/:id",
  "/v1/changes",
  "/openapi.json",
  "/docs",
  "/metrics",
];

const segment = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      ...PLACEHOLDERS,
      "properties",
      "leads",
      "status",
      "source",
      "priority",
      "propertyType",
      "highlight",
      "operationType",
    ),
  },
  { weight: 3, arbitrary: component(junkText(30)) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      "",
      ".",
      "..",
      "%2e%2e",
      "%2F",
      "v1",
      "V1",
      "v2",
      "admin",
      "debug",
      ".env",
      ".git",
      "config.json",
      "swagger.json",
      "graphql",
    ),
  },
);

/** A path near a real route (params filled, a suffix, case or slashes changed) or anywhere. */
export const pathArb = fc.oneof(
  {
    weight: 5,
    arbitrary: fc
      .tuple(fc.constantFrom(...ROUTES), segment, segment)
      .map(([r, a, b]) => r.replace(/:entity|:id/, a).replace(":field", b)),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(fc.constantFrom(...ROUTES), fc.constantFrom("/", "//", "/x", "/.", "/..", "%00", ".json", "/%2e%2e/"))
      .map(([r, s]) => r.replace(/:[a-z]+/g, "x") + s),
  },
  { weight: 1, arbitrary: fc.constantFrom(...ROUTES).map((r) => r.toUpperCase()) },
  { weight: 2, arbitrary: fc.array(segment, { minLength: 1, maxLength: 5 }).map((s) => `/${s.join("/")}`) },
);

export const methodArb = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom("GET", "POST") },
  { weight: 2, arbitrary: fc.constantFrom("PUT", "PATCH", "DELETE", "HEAD", "OPTIONS") },
  { weight: 1, arbitrary: fc.constantFrom("TRACE", "CONNECT", "PROPFIND", "get", "post", "FOO") },
);

/** A header value: anything the Headers API can carry (latin-1 minus NUL, CR, LF), sometimes huge. */
const headerValue = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.string({
      unit: fc
        .integer({ min: 0x20, max: 0xff })
        .filter((c) => c !== 0x7f)
        .map((c) => String.fromCharCode(c)),
      maxLength: 60,
    }),
  },
  { weight: 2, arbitrary: interesting.filter((s) => /^[\t\x20-\x7e\x80-\xff]*$/.test(s)) },
  { weight: 1, arbitrary: fc.integer({ min: 1_000, max: 12_000 }).map((n) => "x".repeat(n)) },
);

const CONTENT_TYPES = [
  "application/json",
  "application/json; charset=utf-8",
  "APPLICATION/JSON",
  "application/json;charset=latin1",
  "application/vnd.api+json",
  "application/merge-patch+json",
  "text/json",
  "text/plain",
  "text/html",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  "application/xml",
  "application/jsonx",
  "application/json, text/html",
  "",
  ";",
  "*/*",
];

export const contentTypeArb = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...CONTENT_TYPES) },
  { weight: 1, arbitrary: headerValue },
);

const IP_TEXT = fc.oneof(
  fc.ipV4(),
  fc.ipV6(),
  fc.constantFrom("::ffff:203.0.113.10", "127.0.0.1", "unknown", "", "1.2.3.4, 5.6.7.8", "999.1.1.1"),
);

export const headersArb: fc.Arbitrary<[string, string][]> = fc.array(
  fc.oneof(
    fc.tuple(fc.constant("content-type"), contentTypeArb),
    fc.tuple(fc.constant("idempotency-key"), headerValue),
    fc.tuple(fc.constant("x-request-id"), headerValue),
    fc.tuple(fc.constant("x-forwarded-for"), fc.oneof(IP_TEXT, headerValue)),
    fc.tuple(
      fc.constantFrom("x-api-key", "x-api-secret"),
      fc.oneof(headerValue, fc.constantFrom("pk_live_portal_key", "sk_live_portal_secret", "pk_sandbox_demo")),
    ),
    fc.tuple(
      fc.constantFrom(
        "accept",
        "accept-encoding",
        "origin",
        "cookie",
        "range",
        "if-none-match",
        "expect",
        "content-encoding",
        "x-http-method-override",
      ),
      headerValue,
    ),
    fc.tuple(fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/), headerValue),
  ),
  { maxLength: 6 },
);

/** Authorization: none, a real token (ours or another tenant's), a tampered one, or junk. */
export const authArb: fc.Arbitrary<AuthSpec> = fc.oneof(
  { weight: 8, arbitrary: fc.constant({ kind: "valid" as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: "none" as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: "otherTenant" as const }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("tampered" as const),
      part: fc.constantFrom(0 as const, 1 as const, 2 as const),
      at: fc.nat(400),
    }),
  },
  {
    weight: 2,
    arbitrary: fc
      .oneof(
        headerValue,
        headerValue.map((v) => `Bearer ${v}`),
        fc.constantFrom(
          "Bearer",
          "Bearer ",
          "bearer x.y.z",
          "Basic dXNlcjpwYXNz",
          "Bearer a.b",
          "Bearer eyJhbGciOiJub25lIn0.e30.",
          "Bearer ..",
          "Bearer a.b.c.d",
        ),
      )
      .map((value) => ({ kind: "raw" as const, value })),
  },
);

const jsonish = fc.jsonValue({ maxDepth: 4 });

/** Bodies of every shape: none, JSON of any type, broken JSON, bytes, chunked, past 64 KiB. */
export const bodyArb: fc.Arbitrary<BodySpec> = fc.oneof(
  { weight: 2, arbitrary: fc.constant({ kind: "none" as const }) },
  { weight: 3, arbitrary: jsonish.map((v) => ({ kind: "text" as const, text: JSON.stringify(v) })) },
  { weight: 2, arbitrary: junkText(200).map((text) => ({ kind: "text" as const, text })) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(fc.json({ maxDepth: 3 }), fc.nat())
      .map(([json, cut]) => ({ kind: "text" as const, text: json.slice(0, cut % (json.length + 1)) })),
  },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 300 }).map((b) => ({ kind: "bytes" as const, bytes: [...b] })) },
  {
    weight: 1,
    arbitrary: fc.array(junkText(30), { maxLength: 6 }).map((chunks) => ({ kind: "chunked" as const, chunks })),
  },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom(0, 1, 5_000)
      .map((depth) => ({ kind: "text" as const, text: "[".repeat(depth) + "]".repeat(depth) })),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("huge" as const),
      size: fc.integer({ min: 64 * 1024 + 1, max: 300 * 1024 }),
      streamed: fc.boolean(),
    }),
  },
);

/** Mostly distinct addresses, so failed-auth throttling of one peer does not hide the rest. */
const peerArb = fc.oneof(
  { weight: 1, arbitrary: fc.constant("203.0.113.10") },
  { weight: 4, arbitrary: fc.ipV4() },
  { weight: 1, arbitrary: IP_TEXT },
);

/** Each documented route with its own method, its parameters filled from the segment pool. */
const ROUTE_METHODS: [string, string][] = [
  ["GET", "/health"],
  ["POST", "/v1/auth/token"],
  ["GET", "/v1/fields"],
  ["GET", "/v1/values/:entity/:field"],
  ["GET", "/v1/properties"],
  ["GET", "/v1/properties/:id"],
  ["GET", "/v1/leads"],
  ["GET", "/v1/leads/:id"],
  ["POST", "/v1/leads"],
  ["GET", "/v1/changes"],
];

const routed = fc
  .tuple(fc.constantFrom(...ROUTE_METHODS), segment, segment)
  .map(([[method, route], a, b]) => ({ method, route: route.replace(/:entity|:id/, a).replace(":field", b) }));

const anywhere = fc.record({ method: methodArb, route: pathArb });

/** Any request: more often a real route with its method (to get past routing), else anything. */
export const requestArb: fc.Arbitrary<RequestSpec> = fc
  .record({
    target: fc.oneof({ weight: 3, arbitrary: routed }, { weight: 2, arbitrary: anywhere }),
    query: fc.option(queryString, { nil: undefined }),
    headers: headersArb,
    auth: authArb,
    body: bodyArb,
    peer: peerArb,
  })
  .map(({ target, query, headers, auth, body, peer }) => ({
    method: target.method,
    path: query === undefined ? target.route : `${target.route}?${query}`,
    headers,
    auth,
    body,
    peer,
  }));
