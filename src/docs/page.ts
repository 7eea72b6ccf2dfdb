// The HTML page of GET /docs: Scalar's bundle from /docs/scalar.js rendering /openapi.json,
// with a Content-Security-Policy that lets the page load nothing from anywhere else.
import { SANDBOX_API_KEY, SANDBOX_API_SECRET } from "./examples.ts";

export const SCALAR_SCRIPT_PATH = "/docs/scalar.js";

function scalarConfig(environment: string): Record<string, unknown> {
  return {
    url: "/openapi.json",
    // Each of these would reach a third-party server: fonts, telemetry, the AI agent, the proxy.
    withDefaultFonts: false,
    telemetry: false,
    agent: { disabled: true },
    showDeveloperTools: "never",
    hideClientButton: false,
    defaultOpenAllTags: true,
    // Tokens come from the oauth2 scheme: "Authorize" on the page fetches one by client
    // credentials and every operation that takes it sends it. The token operation itself lists
    // Basic (client_secret_basic) first, so its own "Test request" sends the key and secret.
    authentication: {
      // The sandbox's credentials are public: prefilled, so the first try works at once.
      ...(environment === "sandbox"
        ? {
            securitySchemes: {
              oauth2: {
                flows: {
                  clientCredentials: { "x-scalar-client-id": SANDBOX_API_KEY, clientSecret: SANDBOX_API_SECRET },
                },
              },
              basicAuth: { username: SANDBOX_API_KEY, password: SANDBOX_API_SECRET },
              apiKey: { value: SANDBOX_API_KEY },
              apiSecret: { value: SANDBOX_API_SECRET },
            },
          }
        : {}),
    },
  };
}

function sha256Base64(text: string): string {
  return new Bun.CryptoHasher("sha256").update(text).digest("base64");
}

export interface DocsPage {
  html: string;
  contentSecurityPolicy: string;
}

export function docsPage(environment: string): DocsPage {
  // `<` escaped so no value can close the script element.
  const init = `Scalar.createApiReference("#app", ${JSON.stringify(scalarConfig(environment)).replace(/</g, "\\u003c")});`;
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Partner API reference</title>
<link rel="icon" href="data:,">
</head>
<body>
<noscript>This reference needs JavaScript; the raw document is at <a href="/openapi.json">/openapi.json</a>.</noscript>
<div id="app"></div>
<script src="${SCALAR_SCRIPT_PATH}"></script>
<script>${init}</script>
</body>
</html>
`;
  const contentSecurityPolicy = [
    "default-src 'none'",
    `script-src 'self' 'sha256-${sha256Base64(init)}'`,
    // Scalar injects its stylesheet as a <style> element at run time.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    // "Test request" calls this same server.
    "connect-src 'self'",
    "worker-src 'self' blob:",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join("; ");
  return { html, contentSecurityPolicy };
}
