// The partners' OpenAPI document, assembled from the app's own routes: each route carries its
// operation as its `detail` (src/modules/<feature>/openapi.ts) and src/docs/openapi.ts turns
// them into the document. GET /openapi.json passes the serving app's routes; without a server
// (the tests, `bun run clients`), an app is made for its routes alone, over no database.
import { createApp } from "./app.ts";
import { resolveConfig, validateConfig } from "./config/load.ts";
import { type DocumentedRoute, type DocumentOptions, openApiDocument } from "./docs/openapi.ts";
import { silentLogger } from "./logging.ts";
import { Runtime } from "./runtime.ts";

let appRoutes: readonly DocumentedRoute[] | null = null;

/** The routes `createApp` registers, from an app that serves nothing and is dropped at once. */
function routesOfTheApp(): readonly DocumentedRoute[] {
  if (appRoutes === null) {
    const config = validateConfig({ environment: "sandbox", clients: [], databases: {} }, "openapi");
    // The secret signs nothing: this app never answers a request.
    const runtime = new Runtime(resolveConfig(config, { baseDir: ".", jwtSecret: "x".repeat(32) }));
    try {
      const app = createApp({ runtime, logger: silentLogger(), metrics: null });
      appRoutes = app.routes.map(({ method, path, hooks }) => ({ method, path, hooks: { detail: hooks?.detail } }));
    } finally {
      runtime.close();
    }
  }
  return appRoutes;
}

/** The document of `routes` (the app's: `app.routes`); absent, of the routes `createApp` registers. */
export function buildOpenApiDocument(options: DocumentOptions & { routes?: readonly DocumentedRoute[] }) {
  return openApiDocument(options.routes ?? routesOfTheApp(), options);
}
