// The token endpoint in the document: its two ways in (the header exchange and OAuth 2.0 client
// credentials), both answers, both error shapes, and the `oauth2` scheme that lets Scalar,
// Postman and generated clients fetch and renew tokens by themselves.
import { Type as T } from "@sinclair/typebox";
import { ERRORS, type ErrorCode } from "../errors.ts";
import { SANDBOX_API_KEY, SANDBOX_API_SECRET, type SandboxExamples } from "./examples.ts";
import { toOpenApiSchema } from "./json-schema.ts";
import { responseHeaders } from "./responses.ts";
import { codesByStatus, errorSchema, TokenSchema } from "./schemas.ts";

type Json = Record<string, unknown>;

export const TOKEN_PATH = "/v1/auth/token";

export const OAuthTokenSchema = T.Object(
  {
    access_token: T.String({ description: "HS256 JWT; send it as `Authorization: Bearer <token>`" }),
    token_type: T.Literal("Bearer"),
    expires_in: T.Integer({ description: "Seconds until the token expires (3600)" }),
  },
  {
    title: "OAuthToken",
    additionalProperties: false,
    description: "RFC 6749 §5.1: the answer to the client-credentials grant",
  },
);

/** Which RFC 6749 error name each contract code of the token endpoint is answered with. */
const OAUTH_ERROR: Partial<Record<ErrorCode, string>> = {
  VALIDATION_ERROR: "invalid_request",
  PAYLOAD_TOO_LARGE: "invalid_request",
  UNSUPPORTED_MEDIA_TYPE: "invalid_request",
  MISSING_CREDENTIALS: "invalid_client",
  INVALID_API_KEY: "invalid_client",
  INVALID_API_SECRET: "invalid_client",
  API_DISABLED: "unauthorized_client",
  IP_BLOCKED: "unauthorized_client",
  NO_DATABASE: "unauthorized_client",
  RATE_LIMIT_EXCEEDED: "temporarily_unavailable",
  INTERNAL_ERROR: "server_error",
};

const oauthNames = (codes: readonly ErrorCode[]) => [
  ...new Set(
    codes.flatMap((code) =>
      code === "VALIDATION_ERROR" ? ["invalid_request", "unsupported_grant_type"] : [OAUTH_ERROR[code]!],
    ),
  ),
];

/** RFC 6749 §5.2's error body with the contract's code beside it. */
export function oauthErrorSchema(codes: readonly ErrorCode[]) {
  return T.Object(
    {
      error: T.Union(
        oauthNames(codes).map((name) => T.Literal(name)),
        { description: "RFC 6749 §5.2 error code" },
      ),
      error_description: T.String({ description: "Readable message" }),
      code: T.Union(
        codes.map((c) => T.Literal(c)),
        { description: "The contract's code, as the header exchange gives it" },
      ),
    },
    { additionalProperties: false },
  );
}

/** The form of the client-credentials grant. */
export const TOKEN_REQUEST_BODY: Json = {
  required: false,
  description:
    "OAuth 2.0 client credentials (RFC 6749 §4.4). Authenticate with HTTP Basic (user: API key, password: API secret; " +
    "`client_secret_basic`) or with `client_id` and `client_secret` in this form (`client_secret_post`). Leave the body " +
    "out to use the `X-API-Key` / `X-API-Secret` headers instead.",
  content: {
    "application/x-www-form-urlencoded": {
      schema: toOpenApiSchema(
        T.Object(
          {
            grant_type: T.Literal("client_credentials"),
            client_id: T.Optional(T.String({ description: "Your API key (client_secret_post)" })),
            client_secret: T.Optional(T.String({ description: "Your API secret (client_secret_post)" })),
            scope: T.Optional(
              T.String({ description: "Accepted and ignored: a token carries the client's own rights" }),
            ),
          },
          { title: "ClientCredentialsGrant" },
        ),
      ),
      examples: {
        basic: { summary: "Client authenticated by HTTP Basic", value: { grant_type: "client_credentials" } },
        post: {
          summary: "Client authenticated in the form (sandbox credentials)",
          value: { grant_type: "client_credentials", client_id: SANDBOX_API_KEY, client_secret: SANDBOX_API_SECRET },
        },
      },
    },
  },
};

const TOKEN_ERRORS: ErrorCode[] = [
  "VALIDATION_ERROR",
  "MISSING_CREDENTIALS",
  "INVALID_API_KEY",
  "INVALID_API_SECRET",
  "API_DISABLED",
  "IP_BLOCKED",
  "NO_DATABASE",
  "PAYLOAD_TOO_LARGE",
  "UNSUPPORTED_MEDIA_TYPE",
  "RATE_LIMIT_EXCEEDED",
  "INTERNAL_ERROR",
];

/** Only the grant can fail these: the header exchange reads no body. */
const GRANT_ONLY: ErrorCode[] = ["VALIDATION_ERROR", "PAYLOAD_TOO_LARGE", "UNSUPPORTED_MEDIA_TYPE"];

const STATUS_MEANING: Record<number, string> = {
  400: "Invalid grant request",
  401: "Client not authenticated",
  403: "Client refused",
  413: "Body too large",
  415: "Wrong media type",
  429: "Too many failed attempts from this address",
  500: "Unexpected failure",
};

const GRANT_MESSAGES: Partial<Record<ErrorCode, string>> = {
  VALIDATION_ERROR: "grant_type: is required (client_credentials)",
  MISSING_CREDENTIALS: "Client authentication is required",
  UNSUPPORTED_MEDIA_TYPE: "Content-Type must be application/x-www-form-urlencoded",
};

/** The token operation's responses: each status with the header exchange's and the grant's shape. */
export function tokenResponses(examples: SandboxExamples): Record<string, Json> {
  const token = examples.token.data;
  const responses: Record<string, Json> = {
    "200": {
      description:
        "A fresh token: `{ data: { token, expiresIn, tokenType } }` for the header exchange, RFC 6749's shape for the grant",
      headers: {
        ...responseHeaders("rateLimited"),
        "Cache-Control": { $ref: "#/components/headers/CacheControlNoStore" },
      },
      content: {
        "application/json": {
          schema: { anyOf: [toOpenApiSchema(OAuthTokenSchema), toOpenApiSchema(TokenSchema)] },
          examples: {
            grant: {
              summary: "Client-credentials grant",
              value: { access_token: token.token, token_type: "Bearer", expires_in: token.expiresIn },
            },
            headers: { summary: "Header exchange", value: examples.token },
          },
        },
      },
    },
  };
  for (const [status, group] of codesByStatus(TOKEN_ERRORS)) {
    const exchange = group.filter((code) => !GRANT_ONLY.includes(code));
    const headers: Json = responseHeaders("rateLimited", status === 429);
    if (status === 401) headers["WWW-Authenticate"] = { $ref: "#/components/headers/WWWAuthenticateGrant" };
    const grantExamples = group.map((code) => {
      const error = code === "VALIDATION_ERROR" ? "invalid_request" : OAUTH_ERROR[code]!;
      return [
        `grant ${code}`,
        {
          summary: `${code} (grant)`,
          value: { error, error_description: GRANT_MESSAGES[code] ?? ERRORS[code].message, code },
        },
      ];
    });
    const exchangeExamples = exchange.map((code) => [
      code,
      { summary: `${code} (header exchange)`, value: { error: ERRORS[code].message, code } },
    ]);
    responses[String(status)] = {
      description: `${STATUS_MEANING[status]}: ${group.join(", ")}`,
      headers,
      content: {
        "application/json": {
          schema:
            exchange.length === 0
              ? toOpenApiSchema(oauthErrorSchema(group))
              : { anyOf: [toOpenApiSchema(oauthErrorSchema(group)), toOpenApiSchema(errorSchema(exchange))] },
          examples: Object.fromEntries([...exchangeExamples, ...grantExamples]),
        },
      },
    };
  }
  return responses;
}

/** The `oauth2` scheme: the client-credentials flow at the token URL (absolute when the server's address is known). */
export function oauth2Scheme(origin: string | null): Json {
  return {
    type: "oauth2",
    description:
      "OAuth 2.0 client credentials: your API key is the client id, your API secret the client secret. The token lasts 3600 s; " +
      "ask for a new one before it expires.",
    flows: { clientCredentials: { tokenUrl: origin === null ? TOKEN_PATH : `${origin}${TOKEN_PATH}`, scopes: {} } },
  };
}

/** The headers of token answers. */
export const TOKEN_HEADERS: Record<string, Json> = {
  WWWAuthenticateGrant: {
    description: "On the grant's `invalid_client` (not on the header exchange's 401s): `Basic realm=\"partner-api\"`",
    schema: { type: "string" },
    example: 'Basic realm="partner-api"',
  },
  CacheControlNoStore: {
    required: true,
    description: "Tokens are never cached",
    schema: { type: "string", enum: ["no-store"] },
  },
};
