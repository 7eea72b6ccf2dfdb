// The documentation of POST /v1/auth/token, passed on the route as its `detail`: both ways in,
// the OAuth form and the header exchange (their bodies and answers in src/docs/oauth.ts).
import { TOKEN_PATH, TOKEN_REQUEST_BODY, tokenResponses } from "../../docs/oauth.ts";
import { route } from "../../docs/operation.ts";

export const AUTH_ROUTES = {
  token: route("post", TOKEN_PATH, "Authentication", ({ examples }) => ({
    operationId: "createToken",
    summary: "Obtain a bearer token",
    description:
      "Exchanges your API key and secret for a JWT valid for 3600 seconds, in either of two ways. **OAuth 2.0 client " +
      "credentials** (RFC 6749 §4.4): a form with `grant_type=client_credentials`, the key and secret as HTTP Basic or as " +
      "`client_id` / `client_secret` in the form; the answer is `{ access_token, token_type, expires_in }` and failures " +
      "`{ error, error_description, code }`. **Headers**: `X-API-Key` and `X-API-Secret` and no body; the answer is " +
      "`{ data: { token, expiresIn, tokenType } }` and failures `{ error, code }`. There is no renewal: ask for a new token " +
      "before this one expires. Failed attempts drain a per-IP allowance of 20 (refilled at 20 a minute); the rate-limit " +
      "headers report it. Checks run in this order: credentials present, key known, address on the client's whitelist " +
      "(`IP_BLOCKED` whatever the secret), secret, client enabled, database. A token stops working at once when the agency " +
      "gives the client a new key or secret.",
    access: "credentials",
    parameters: [],
    requestBody: TOKEN_REQUEST_BODY,
    responses: tokenResponses(examples),
  })),
};
