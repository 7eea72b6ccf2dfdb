// What partners get generated from the OpenAPI document: the document for clients (its server
// the sandbox's default address), and the Postman collection converted from it by
// openapi-to-postmanv2, then given what the converter leaves out: the OAuth2 client-credentials
// flow on the collection with a script that fetches and renews its token (postman-scripts.ts),
// Basic auth on the token request and the portal's lead post, the document's example values,
// ids chained from the requests that create them, a test script per request, and no random ids
// (so a regeneration of the same document is byte for byte the same).
import Converter from "openapi-to-postmanv2";
import pkg from "../../package.json" with { type: "json" };
import { SANDBOX_API_KEY, SANDBOX_API_SECRET, SANDBOX_INBOUND } from "../../src/docs/examples.ts";
import { buildOpenApiDocument } from "../../src/openapi.ts";
import { CHAINED_IDS, TOKEN_SCRIPT, testScript } from "./postman-scripts.ts";

type Json = Record<string, any>;

/** Where `partner-api sandbox` listens unless told otherwise. */
export const SANDBOX_ORIGIN = "http://127.0.0.1:8080";

export function clientDocument(): Json {
  return buildOpenApiDocument({ version: pkg.version, origin: SANDBOX_ORIGIN });
}

export const POSTMAN_ENVIRONMENT = {
  name: "Partner API sandbox",
  values: [
    { key: "baseUrl", value: SANDBOX_ORIGIN, type: "default", enabled: true },
    { key: "apiKey", value: SANDBOX_API_KEY, type: "default", enabled: true },
    { key: "apiSecret", value: SANDBOX_API_SECRET, type: "secret", enabled: true },
    // The portal's lead post authenticates as the portal does: the sandbox's Grupo ZAP client.
    { key: "inboundUsername", value: SANDBOX_INBOUND.grupozap.username, type: "default", enabled: true },
    { key: "inboundPassword", value: SANDBOX_API_SECRET, type: "secret", enabled: true },
    // Where the subscription made by "Subscribe to webhooks" sends its events: point it at your receiver.
    { key: "webhookUrl", value: "https://crm.example.com/webhooks/partner-api", type: "default", enabled: true },
  ],
  _postman_variable_scope: "environment",
};

const kv = (entries: Record<string, string>) =>
  Object.entries(entries).map(([key, value]) => ({ key, value, type: "string" }));

/**
 * Every request that takes a token gets one by client credentials: Postman's own flow is set for
 * its "Get New Access Token", and the token sent is `{{accessToken}}`, which the collection's
 * pre-request script fetches and renews (so Newman, which never runs Postman's flow, works too).
 */
const COLLECTION_AUTH = {
  type: "oauth2",
  oauth2: kv({
    grant_type: "client_credentials",
    accessTokenUrl: "{{baseUrl}}/v1/auth/token",
    clientId: "{{apiKey}}",
    clientSecret: "{{apiSecret}}",
    client_authentication: "header",
    tokenName: "partner-api",
    accessToken: "{{accessToken}}",
    headerPrefix: "Bearer",
    addTokenTo: "header",
  }),
};
const BASIC_AUTH = { type: "basic", basic: kv({ username: "{{apiKey}}", password: "{{apiSecret}}" }) };
const INBOUND_AUTH = {
  type: "basic",
  basic: kv({ username: "{{inboundUsername}}", password: "{{inboundPassword}}" }),
};
const NO_AUTH = { type: "noauth" };

/** Collection variables: the token the pre-request script keeps, and the chained ids (the document's examples until set). */
function collectionVariables(document: Json): Json[] {
  const exampleId = (path: string) =>
    (document.paths[path].get ?? document.paths[path].patch)?.parameters?.find((p: Json) => p.name === "id")?.example;
  return [
    { key: "baseUrl", value: SANDBOX_ORIGIN, type: "string" },
    { key: "accessToken", value: "", type: "string" },
    { key: "accessTokenExpiresAt", value: "", type: "string" },
    ...CHAINED_IDS.map(({ path, variable }) => ({
      key: variable,
      value: String(exampleId(path) ?? ""),
      type: "string",
    })),
  ];
}

function convert(document: Json): Promise<Json> {
  return new Promise((resolve, reject) => {
    Converter.convert(
      { type: "json", data: document },
      {
        folderStrategy: "Tags",
        requestNameSource: "Fallback",
        alwaysInheritAuthentication: true,
        enableOptionalParameters: false,
      },
      (error: unknown, result?: Json) => {
        if (error) return reject(error);
        if (!result?.result) return reject(new Error(`openapi-to-postmanv2: ${result?.reason}`));
        resolve(result.output[0].data);
      },
    );
  });
}

/** The converter's random ids, dropped: Postman makes its own on import. */
function withoutIds(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutIds);
  if (typeof node !== "object" || node === null) return node;
  return Object.fromEntries(
    Object.entries(node)
      .filter(([key]) => key !== "id" && key !== "_postman_id")
      .map(([key, value]) => [key, withoutIds(value)]),
  );
}

/** The path template of the document a converted request was made from. */
const templateOf = (request: Json) =>
  `/${(request.url.path as string[]).map((segment) => (segment.startsWith(":") ? `{${segment.slice(1)}}` : segment)).join("/")}`;

/** The operation of the document a converted request was made from. */
function operationOf(document: Json, request: Json): Json | undefined {
  return document.paths[templateOf(request)]?.[String(request.method).toLowerCase()];
}

/** The document's example values in place of the converter's `<string>` placeholders. */
function fillExamples(request: Json, operation: Json): void {
  const parameters = (operation.parameters ?? []) as Json[];
  const example = (where: string, name: string) => parameters.find((p) => p.in === where && p.name === name)?.example;
  for (const query of request.url.query ?? []) {
    const value = example("query", query.key);
    if (value !== undefined) query.value = String(value);
  }
  const chained = CHAINED_IDS.find(({ path }) => templateOf(request).startsWith(path));
  for (const variable of request.url.variable ?? []) {
    const value = example("path", variable.key);
    if (value !== undefined) variable.value = String(value);
    // The id of the record an earlier request made or found.
    if (chained !== undefined && variable.key === "id") variable.value = `{{${chained.variable}}}`;
  }
  for (const header of request.header ?? []) {
    const value = example("header", header.key);
    if (value !== undefined) header.value = String(value);
  }
  const form = request.body?.urlencoded as Json[] | undefined;
  if (form !== undefined) {
    // The grant with the client authenticated by Basic: only grant_type in the form.
    request.body.urlencoded = form
      .filter((field) => field.key === "grant_type")
      .map((field) => ({ ...field, value: "client_credentials" }));
  }
  const raw = operation.requestBody?.content?.["application/json"];
  const bodyExample = raw?.example ?? (Object.values(raw?.examples ?? {})[0] as Json | undefined)?.value;
  if (request.body?.mode === "raw" && bodyExample !== undefined) {
    // A subscription's events go to the receiver the environment names, never to the example's host.
    const subscription = templateOf(request).startsWith("/v1/webhooks") && "url" in bodyExample;
    const body = subscription ? { ...bodyExample, url: "{{webhookUrl}}" } : bodyExample;
    request.body.raw = JSON.stringify(body, null, 2);
  }
}

function authFor(operation: Json): Json | undefined {
  const security = (operation.security ?? []) as Json[];
  if (security.some((requirement) => "oauth2" in requirement)) return undefined; // the collection's
  if (security.some((requirement) => "basicAuth" in requirement)) return BASIC_AUTH;
  if (security.some((requirement) => "inboundBasic" in requirement)) return INBOUND_AUTH;
  return NO_AUTH;
}

function visit(items: Json[], document: Json): void {
  for (const item of items) {
    if (Array.isArray(item.item)) {
      visit(item.item, document);
      // A folder run in order deletes what it made last, after the requests that use it.
      item.item.sort(
        (a: Json, b: Json) => Number(a.request?.method === "DELETE") - Number(b.request?.method === "DELETE"),
      );
      continue;
    }
    const operation = operationOf(document, item.request);
    if (operation === undefined) continue;
    fillExamples(item.request, operation);
    for (const response of item.response ?? [])
      if (response.originalRequest) fillExamples(response.originalRequest, operation);
    const auth = authFor(operation);
    if (auth !== undefined) item.request.auth = auth;
    const method = String(item.request.method).toLowerCase();
    item.event = [
      {
        listen: "test",
        script: { type: "text/javascript", exec: testScript(method, templateOf(item.request), operation, document) },
      },
    ];
  }
}

export async function postmanCollection(document: Json): Promise<Json> {
  const collection = withoutIds(await convert(structuredClone(document))) as Json;
  visit(collection.item, document);
  collection.auth = COLLECTION_AUTH;
  collection.event = [{ listen: "prerequest", script: { type: "text/javascript", exec: TOKEN_SCRIPT } }];
  collection.variable = collectionVariables(document);
  return collection;
}
