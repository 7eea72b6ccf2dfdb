// The OAuth 2.0 client-credentials grant (RFC 6749 §4.4) on the token endpoint: reading the
// form and the client's authentication, and the RFC's error names for the contract's codes.
// Pure: the route reads the body and runs the same credential check as the header exchange.
import { ERRORS, type ErrorCode } from "../../errors.ts";
import { basicCredentials, isBasicAuthorization } from "../../security/basic-auth.ts";

/** RFC 6749 §5.2's error names, and `temporarily_unavailable` for a throttled address. */
export type OAuthErrorName =
  | "invalid_request"
  | "invalid_client"
  | "unsupported_grant_type"
  | "unauthorized_client"
  | "temporarily_unavailable"
  | "server_error";

export interface OAuthFailure {
  error: OAuthErrorName;
  description: string;
  code: ErrorCode;
}

export type ClientCredentials = { apiKey: string; apiSecret: string };

const FORM = "application/x-www-form-urlencoded";

function mediaType(contentType: string | null): string | null {
  return contentType === null ? null : contentType.split(";")[0]!.trim().toLowerCase();
}

/**
 * Whether a token request speaks OAuth rather than the X-API-Key/X-API-Secret exchange: a form
 * body or HTTP Basic, with no X-API-Key. A request carrying X-API-Key is the header exchange
 * exactly as it always was, whatever else it sends (curl's `-d ''` and PHP's CURLOPT_POST add a
 * form content type to an empty body; a JSON body is ignored there too).
 */
export function isOAuthTokenRequest(headers: Headers): boolean {
  if (headers.has("x-api-key")) return false;
  return mediaType(headers.get("content-type")) === FORM || isBasicAuthorization(headers.get("authorization"));
}

const invalidRequest = (description: string): OAuthFailure => ({
  error: "invalid_request",
  description,
  code: "VALIDATION_ERROR",
});

const MISSING_CLIENT: OAuthFailure = {
  error: "invalid_client",
  description:
    "Client authentication is required: HTTP Basic with the API key as user and the API secret as password " +
    "(client_secret_basic), or client_id and client_secret in the form (client_secret_post)",
  code: "MISSING_CREDENTIALS",
};

/**
 * RFC 6749 §2.3.1 has client ids and secrets form-encoded before Basic encoding; most clients
 * skip that. Both readings are returned (the raw one first) when they differ.
 */
function basicReadings(apiKey: string, apiSecret: string): ClientCredentials[] {
  const decode = (value: string) => {
    try {
      return decodeURIComponent(value.replace(/\+/g, " "));
    } catch {
      return value;
    }
  };
  const decoded = { apiKey: decode(apiKey), apiSecret: decode(apiSecret) };
  return decoded.apiKey === apiKey && decoded.apiSecret === apiSecret
    ? [{ apiKey, apiSecret }]
    : [{ apiKey, apiSecret }, decoded];
}

export type ReadGrant = { ok: true; candidates: ClientCredentials[] } | { ok: false; failure: OAuthFailure };

/**
 * Reads a client-credentials token request: its form (`body`, already read), the grant and the
 * client's authentication by exactly one method. `candidates` holds one key and secret, or two
 * readings of one Basic header (see basicReadings).
 */
export function readClientCredentialsGrant(headers: Headers, body: string): ReadGrant {
  const contentType = headers.get("content-type");
  const authorization = headers.get("authorization");
  const fail = (failure: OAuthFailure): ReadGrant => ({ ok: false, failure });
  if (body.trim() !== "" && mediaType(contentType) !== FORM) {
    return fail({
      error: "invalid_request",
      description: `Content-Type must be ${FORM}`,
      code: "UNSUPPORTED_MEDIA_TYPE",
    });
  }
  const form = new URLSearchParams(body);
  for (const name of new Set(form.keys())) {
    if (form.getAll(name).length > 1) return fail(invalidRequest(`${name}: must not be repeated`));
  }
  const grantType = form.get("grant_type");
  if (grantType === null || grantType === "")
    return fail(invalidRequest("grant_type: is required (client_credentials)"));
  if (grantType !== "client_credentials") {
    return fail({
      error: "unsupported_grant_type",
      description: "grant_type: only client_credentials is supported",
      code: "VALIDATION_ERROR",
    });
  }
  const clientId = form.get("client_id");
  const clientSecret = form.get("client_secret");
  const inForm = clientSecret !== null;
  if (isBasicAuthorization(authorization)) {
    // RFC 6749 §2.3: a client uses one authentication method per request.
    if (inForm) return fail(invalidRequest("Authenticate with HTTP Basic or with client_secret in the form, not both"));
    const basic = basicCredentials(authorization);
    if (basic === "malformed") {
      return fail({
        ...MISSING_CLIENT,
        description: "Authorization: Basic must carry the base64 of <API key>:<API secret>",
      });
    }
    // A client_id beside Basic auth must name the same client (RFC 6749 §3.2.1 lets it be sent).
    const candidates = basicReadings(basic.apiKey, basic.apiSecret);
    if (clientId !== null && !candidates.some((c) => c.apiKey === clientId))
      return fail(invalidRequest("client_id: differs from the HTTP Basic user"));
    return { ok: true, candidates };
  }
  if (clientId === null || clientId === "" || clientSecret === null || clientSecret === "") return fail(MISSING_CLIENT);
  return { ok: true, candidates: [{ apiKey: clientId, apiSecret: clientSecret }] };
}

const FAILED_CHECK: Partial<Record<ErrorCode, OAuthErrorName>> = {
  MISSING_CREDENTIALS: "invalid_client",
  INVALID_API_KEY: "invalid_client",
  INVALID_API_SECRET: "invalid_client",
  API_DISABLED: "unauthorized_client",
  IP_BLOCKED: "unauthorized_client",
  NO_DATABASE: "unauthorized_client",
  RATE_LIMIT_EXCEEDED: "temporarily_unavailable",
  SERVICE_UNAVAILABLE: "temporarily_unavailable",
};

/** The OAuth answer to a refusal the header exchange would give as `{ error, code }`. */
export function oauthFailureOf(code: ErrorCode, message: string): OAuthFailure {
  const status = ERRORS[code].status;
  const error = FAILED_CHECK[code] ?? (status >= 500 ? "server_error" : "invalid_request");
  return { error, description: message, code };
}

/** The body of a failure: RFC 6749 §5.2's fields with the contract's code beside them. */
export function oauthFailureBody(failure: OAuthFailure): string {
  return JSON.stringify({ error: failure.error, error_description: failure.description, code: failure.code });
}

/** The status of a failure: its code's, as in the header exchange (a 413 or 415 too, beyond the RFC's 400 and 401). */
export function oauthFailureStatus(failure: OAuthFailure): number {
  return ERRORS[failure.code].status;
}
