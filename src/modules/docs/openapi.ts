// The documentation of the documentation's own routes, each passed on its route as its `detail`.
import { json, route, text } from "../../docs/operation.ts";
import { SCALAR_SCRIPT_PATH } from "../../docs/page.ts";
import { errorResponses, responseHeaders } from "../../docs/responses.ts";
import { OpenApiDocumentSchema } from "../../docs/schemas.ts";

const TAG = "Operations";

export const DOCS_ROUTES = {
  document: route("get", "/openapi.json", TAG, ({ version }) => ({
    operationId: "getOpenApiDocument",
    summary: "This OpenAPI document",
    description: "The OpenAPI 3.1 description of every route, generated from the schemas that validate requests.",
    access: "public",
    parameters: [],
    responses: {
      "200": json(
        OpenApiDocumentSchema,
        { openapi: "3.1.0", info: { title: "Partner API", version }, paths: { "/health": {} } },
        "The document (abridged here)",
        "plain",
      ),
      ...errorResponses(["INTERNAL_ERROR"], "plain"),
    },
  })),
  page: route("get", "/docs", TAG, () => ({
    operationId: "getReferencePage",
    summary: "Interactive API reference",
    description: "This reference as a web page; its scripts are served by the API itself, so it works offline.",
    access: "public",
    parameters: [],
    responses: { "200": text("text/html", "The reference page"), ...errorResponses(["INTERNAL_ERROR"], "plain") },
  })),
  script: route("get", SCALAR_SCRIPT_PATH, TAG, () => ({
    operationId: "getReferenceScript",
    summary: "Script of the reference page",
    description: "The Scalar API Reference bundle the page runs, embedded in the server binary.",
    access: "public",
    parameters: [],
    responses: {
      "200": text("text/javascript", "The script (gzipped when the client accepts it)"),
      "304": {
        description: "Not modified: the `If-None-Match` request header holds the current ETag",
        headers: responseHeaders("plain"),
      },
      ...errorResponses(["INTERNAL_ERROR"], "plain"),
    },
  })),
};
