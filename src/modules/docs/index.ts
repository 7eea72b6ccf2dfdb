// GET /openapi.json, GET /docs and the page's script: public, outside the guard, so reading
// the documentation never counts against a rate limit. Each body is built once, when first asked for.
import { Elysia } from "elysia";
import { type DocumentedRoute, openApiDocument } from "../../docs/openapi.ts";
import { requestOrigin } from "../../docs/origin.ts";
import { type DocsPage, docsPage } from "../../docs/page.ts";
import { SCALAR_BUNDLE } from "../../docs/scalar.ts";
import { stateOf } from "../../plugins/context.ts";
import { acceptsGzip, JSON_CONTENT_TYPE } from "../../plugins/respond.ts";
import type { Runtime } from "../../runtime.ts";
import { VERSION } from "../../version.ts";
import { DOCS_ROUTES } from "./openapi.ts";

/** The bundle's bytes and their gzip form, made on first request (about 4 MB, 1 MB gzipped). */
function scriptBodies() {
  let bodies: { plain: Uint8Array; gzip: Uint8Array; etag: string } | null = null;
  return () => {
    if (bodies === null) {
      const plain = new TextEncoder().encode(SCALAR_BUNDLE);
      bodies = { plain, gzip: Bun.gzipSync(plain), etag: `"${Bun.hash(plain).toString(36)}"` };
    }
    return bodies;
  };
}

const MAX_DOCUMENTS = 16;

/** `routes`: the app's routes, whose `detail` each document is built from. */
export function docsModule(runtime: Runtime, routes: () => readonly DocumentedRoute[]) {
  // Built on first request: nothing at startup pays for documentation nobody asked for. One
  // serialisation per address the server is reached at (a handful: its names behind a proxy);
  // past that many, others are built on each request rather than held.
  const documents = new Map<string, string>();
  const pages = new Map<string, DocsPage>();
  const script = scriptBodies();
  return new Elysia({ name: "docs" })
    .get(
      DOCS_ROUTES.document.path,
      ({ request }) => {
        // Null when the request names no usable host: the document's server is then "/".
        const origin = requestOrigin(request, stateOf(request).viaTrustedProxy);
        let document = documents.get(origin ?? "");
        if (document === undefined) {
          document = JSON.stringify(openApiDocument(routes(), { version: VERSION, origin: origin ?? undefined }));
          if (documents.size < MAX_DOCUMENTS) documents.set(origin ?? "", document);
        }
        return new Response(document, { headers: { "content-type": JSON_CONTENT_TYPE, "cache-control": "no-cache" } });
      },
      { detail: DOCS_ROUTES.document },
    )
    .get(
      DOCS_ROUTES.page.path,
      () => {
        // The environment can change on reload; the sandbox page prefills its public credentials.
        const environment = runtime.config.environment;
        let page = pages.get(environment);
        if (page === undefined) pages.set(environment, (page = docsPage(environment)));
        return new Response(page.html, {
          headers: {
            "content-type": "text/html; charset=utf-8",
            "content-security-policy": page.contentSecurityPolicy,
            "cache-control": "no-cache",
          },
        });
      },
      { detail: DOCS_ROUTES.page },
    )
    .get(
      DOCS_ROUTES.script.path,
      ({ request }) => {
        const { plain, gzip, etag } = script();
        const headers: Record<string, string> = {
          "content-type": "text/javascript; charset=utf-8",
          "cache-control": "public, max-age=86400",
          etag,
          vary: "accept-encoding",
        };
        if (request.headers.get("if-none-match") === etag) return new Response(null, { status: 304, headers });
        if (!acceptsGzip(request.headers.get("accept-encoding"))) return new Response(plain, { headers });
        return new Response(gzip, { headers: { ...headers, "content-encoding": "gzip" } });
      },
      { detail: DOCS_ROUTES.script },
    );
}
