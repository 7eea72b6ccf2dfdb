// GET /openapi.json against the server it describes: every route documented with its errors,
// every example a request the server accepts, every observed response as documented.

import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { CATALOGS } from "../../src/catalog/index.ts";
import { SANDBOX_API_KEY as CLI_SANDBOX_KEY, SANDBOX_API_SECRET as CLI_SANDBOX_SECRET } from "../../src/cli/sandbox.ts";
import { SANDBOX_API_KEY, SANDBOX_API_SECRET, SANDBOX_INBOUND } from "../../src/docs/examples.ts";
import { toOpenApiSchema } from "../../src/docs/json-schema.ts";
import { ERRORS, type ErrorCode } from "../../src/errors.ts";
import { CHAVESNAMAO_EXAMPLE, GRUPOZAP_EXAMPLE } from "../../src/modules/inbound/model.ts";
import { LeadInputSchema } from "../../src/modules/leads/model.ts";
import { EXAMPLE_SUBSCRIPTION_ID } from "../../src/modules/webhooks/openapi-events.ts";
import { DATE_FILTERS, DEFAULT_LIMIT, MAX_LIMIT, SEARCH_SORTS, SORTS } from "../../src/query/params.ts";
import { client, createTestApp } from "../helpers/app.ts";
import { createLead, startReceiver, webhookApp } from "../modules/webhooks/helpers.ts";
import { type SandboxApp, sandboxApp } from "./sandbox.ts";
import { typeboxProblems } from "./typebox-check.ts";
import { schemaProblems } from "./validate.ts";

type Json = Record<string, any>;

let sandbox: SandboxApp;
let document: Json;
let token: string;
let receiver: ReturnType<typeof Bun.serve>;

/**
 * The subscription the webhook examples name, owned by the sandbox client and pointed at a
 * local receiver (a test event must reach nothing outside this machine); made again after an
 * example deletes it.
 */
function ensureExampleSubscription(): void {
  const db = new Database(sandbox.dbPath);
  try {
    db.run("PRAGMA busy_timeout = 5000");
    db.run(
      "INSERT OR IGNORE INTO webhook_subscriptions (id, client_id, url, events, enabled, secret, after_sequence, created_at, updated_at) " +
        "VALUES (?, 'sandbox', ?, '[\"lead.created\"]', 1, 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwCDKc+O0v6Wo=', 0, '2026-01-05T14:30:00.000Z', '2026-01-05T14:30:00.000Z')",
      [EXAMPLE_SUBSCRIPTION_ID, `http://127.0.0.1:${receiver.port}/hooks`],
    );
  } finally {
    db.close();
  }
}

beforeAll(async () => {
  receiver = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("ok") });
  sandbox = sandboxApp();
  const response = await sandbox.request("/openapi.json");
  expect(response.status).toBe(200);
  document = (await response.json()) as Json;
  token = await sandbox.token();
});
afterAll(() => {
  sandbox.close();
  receiver.stop(true);
});

const METHODS = ["get", "head", "post", "put", "patch", "delete"] as const;

/**
 * `/v1/leads/:id` → `/v1/leads/{id}`; the one values route is documented as a path per entity,
 * each with its own fields.
 */
const toTemplates = (path: string) => {
  const template = path.replace(/:([^/]+)/g, "{$1}");
  return template === "/v1/values/{entity}/{field}"
    ? CATALOG_ENTITIES.map((e) => `/v1/values/${e}/{field}`)
    : [template];
};
const CATALOG_ENTITIES = Object.keys(CATALOGS);

function operationsOf(doc: Json): { method: string; path: string; op: Json }[] {
  return Object.entries(doc.paths as Json).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m]).map((method) => ({ method, path, op: item[method] as Json })),
  );
}

const resolve = (ref: Json): Json =>
  ref.$ref
    ? (ref.$ref as string)
        .slice(2)
        .split("/")
        .reduce<any>((node, key) => node[key], document)
    : ref;

const isProtected = (op: Json) => (op.security as Json[]).some((s) => "bearerAuth" in s);
const usesCredentials = (op: Json) => (op.security as Json[]).some((s) => "apiKey" in s && "apiSecret" in s);
/** A portal's lead post: the Basic auth of a sandbox client that takes that portal's format. */
const isInbound = (op: Json) => (op.security as Json[]).some((s) => "inboundBasic" in s);
const inboundAuth = (format: keyof typeof SANDBOX_INBOUND) =>
  `Basic ${btoa(`${SANDBOX_INBOUND[format].username ?? "anyone"}:${SANDBOX_API_SECRET}`)}`;

/** The codes a documented response lists in its `code` enum (in each shape, for the token endpoint's two). */
function documentedCodes(op: Json, status: number): string[] {
  const schema = op.responses[String(status)]?.content?.["application/json"]?.schema;
  const codesOf = (shape: Json | undefined): string[] => {
    const code = shape?.properties?.code;
    return code?.enum ?? (code?.const !== undefined ? [code.const] : []);
  };
  return [...new Set(Array.isArray(schema?.anyOf) ? (schema.anyOf as Json[]).flatMap(codesOf) : codesOf(schema))];
}

describe("the document is exact where generated clients and validating proxies read it", () => {
  const schemaAt = (schema: Json): Json => resolve(schema);
  const leadFields = () => {
    const lead = schemaAt(document.paths["/v1/leads"].post.responses["201"].content["application/json"].schema);
    return schemaAt(lead.properties.data).properties;
  };

  test("one e-mail rule: idn-email in the lead input and in every lead output", () => {
    const input = schemaAt(document.paths["/v1/leads"].post.requestBody.content["application/json"].schema);
    expect(input.properties.email.format).toBe("idn-email");
    expect(leadFields().email.format).toBe("idn-email");
    expect(JSON.stringify(document)).not.toContain('"format":"email"');
  });

  test("record ids are UUIDs: path ids, records, linked properties, change entries", () => {
    expect(document.paths["/v1/properties/{id}"].get.parameters[0].schema.format).toBe("uuid");
    expect(document.paths["/v1/leads/{id}"].get.parameters[0].schema.format).toBe("uuid");
    expect(leadFields().id.format).toBe("uuid");
    expect(leadFields().propertyId.anyOf.map((s: Json) => s.format ?? s.type)).toEqual(["uuid", "null"]);
    const changes = schemaAt(document.paths["/v1/changes"].get.responses["200"].content["application/json"].schema);
    expect(schemaAt(changes.properties.data.items).properties.id.format).toBe("uuid");
  });

  test("HEAD operations document headers only, and every 304 has no body", () => {
    for (const { method, path, op } of operationsOf(document)) {
      for (const [status, response] of Object.entries(op.responses as Json)) {
        if (method === "head" || status === "304")
          expect({ method, path, status, content: response.content }).toEqual({
            method,
            path,
            status,
            content: undefined,
          });
      }
    }
  });

  test("the values route lists each entity's own fields", () => {
    for (const entity of CATALOG_ENTITIES) {
      const op = document.paths[`/v1/values/${entity}/{field}`].get;
      expect(op.parameters[0].schema.enum).toEqual(
        CATALOGS[entity as keyof typeof CATALOGS].values.map((v) => v.field),
      );
    }
    expect(document.paths["/v1/values/{entity}/{field}"]).toBeUndefined();
  });
});

describe("every route is documented, and nothing undocumented answers", () => {
  test("each route of app.routes is an operation of the document, and each operation a route", () => {
    // The admin API's routes are in its own document (/admin/openapi.json), and the console's
    // pages are no API (docs/operators/console.md).
    const routes = sandbox.app.routes
      .filter((r) => r.method !== "ALL" && !r.path.startsWith("/admin/") && !r.path.startsWith("/console"))
      .flatMap((r) => toTemplates(r.path).map((path) => `${r.method} ${path}`));
    const documented = operationsOf(document).map(({ method, path }) => `${method.toUpperCase()} ${path}`);
    expect(new Set(routes).size).toBe(routes.length);
    expect([...documented].sort()).toEqual([...routes].sort());
  });

  test("a method the document does not list on a path answers 405; a path it does not list answers 404", async () => {
    for (const { path } of operationsOf(document)) {
      const concrete = path.replace(/\{[^}]+\}/g, "x");
      // HEAD is answered wherever GET is (RFC 9110 §9.3.2): the GET's headers without its body.
      for (const method of METHODS.filter(
        (m) => !document.paths[path][m] && !(m === "head" && document.paths[path].get),
      )) {
        const response = await sandbox.request(concrete, { method: method.toUpperCase() });
        expect({ path, method, status: response.status }).toEqual({ path, method, status: 405 });
      }
    }
    for (const path of ["/v2/properties", "/v1", "/v1/properties/x/y", "/admin", "/openapi.yaml", "/docs/other.js"]) {
      expect((await sandbox.request(path)).status).toBe(404);
    }
  });
});

describe("errors are documented with their codes", () => {
  test("each documented code sits under the status the error table gives it", () => {
    for (const { op } of operationsOf(document)) {
      for (const [status, response] of Object.entries(op.responses as Json)) {
        for (const code of documentedCodes(op, Number(status))) {
          expect({ code, status: Number(status) }).toEqual({ code, status: ERRORS[code as ErrorCode].status });
        }
        if (Number(status) >= 400 && response.content?.["application/json"]) {
          const exampleCodes = new Set(
            Object.values((response.content["application/json"].examples ?? {}) as Json).map((e) => e.value.code),
          );
          expect([...exampleCodes].sort()).toEqual([...documentedCodes(op, Number(status))].sort());
        }
      }
    }
  });

  test("every protected operation documents the guard's failures (docs/reference/behaviour.md §4) and 500", () => {
    const protectedOps = operationsOf(document).filter(({ op }) => isProtected(op));
    // 22: the values route is documented once per entity; the facets of the search.
    expect(protectedOps.length).toBe(22);
    for (const { method, path, op } of protectedOps) {
      // A HEAD answer has no body to carry a code: the same statuses as its GET.
      if (method === "head") {
        expect(Object.keys(op.responses)).toEqual(Object.keys(document.paths[path].get.responses));
        continue;
      }
      // The portal feed also takes Basic auth, whose key and secret fail as at the token endpoint.
      const basic = (op.security as Json[]).some((s) => "basicAuth" in s);
      expect(documentedCodes(op, 401)).toEqual(
        basic ? ["MISSING_CREDENTIALS", "INVALID_API_KEY", "INVALID_API_SECRET", "INVALID_TOKEN"] : ["INVALID_TOKEN"],
      );
      // Every 401 of a bearer route carries its challenge (RFC 6750 §3), and the document says so.
      const challenge = op.responses["401"].headers["WWW-Authenticate"];
      expect({ path, challenge: resolve(challenge)?.required }).toEqual({ path, challenge: true });
      // Every operation but the field catalogue needs a scope, and documents the refusal (docs/partners/scopes.md).
      const scoped = op.operationId !== "listFields";
      expect(documentedCodes(op, 403)).toEqual([
        ...(scoped ? ["INSUFFICIENT_SCOPE"] : []),
        "API_DISABLED",
        "IP_BLOCKED",
        "NO_DATABASE",
      ]);
      expect(documentedCodes(op, 429)).toEqual(["RATE_LIMIT_EXCEEDED"]);
      expect(documentedCodes(op, 500)).toEqual(["INTERNAL_ERROR"]);
    }
  });

  test("the token endpoint documents the credential failures in the contract's statuses", () => {
    const op = document.paths["/v1/auth/token"].post;
    expect(usesCredentials(op)).toBe(true);
    expect(documentedCodes(op, 401)).toEqual(["MISSING_CREDENTIALS", "INVALID_API_KEY", "INVALID_API_SECRET"]);
    expect(documentedCodes(op, 403)).toEqual(["API_DISABLED", "IP_BLOCKED", "NO_DATABASE"]);
    expect(documentedCodes(op, 429)).toEqual(["RATE_LIMIT_EXCEEDED"]);
    // The client-credentials grant's own failures: a malformed grant, a body that is not the form.
    expect(documentedCodes(op, 400)).toEqual(["VALIDATION_ERROR"]);
    expect(documentedCodes(op, 415)).toEqual(["UNSUPPORTED_MEDIA_TYPE"]);
  });

  test("operations that take input document its 400s; single records their 404", () => {
    const expected: Record<string, string[]> = {
      // An unknown query parameter is a VALIDATION_ERROR (docs/reference/behaviour.md §8).
      "GET /v1/values/properties/{field}": ["INVALID_FIELD", "VALIDATION_ERROR"],
      "GET /v1/values/leads/{field}": ["INVALID_FIELD", "VALIDATION_ERROR"],
      "GET /v1/properties": ["VALIDATION_ERROR", "INVALID_FIELDS"],
      "GET /v1/properties/{id}": ["VALIDATION_ERROR", "INVALID_FIELDS"],
      "GET /v1/leads": ["VALIDATION_ERROR", "INVALID_FIELDS"],
      "GET /v1/leads/{id}": ["VALIDATION_ERROR", "INVALID_FIELDS"],
      "POST /v1/leads": ["VALIDATION_ERROR", "MISSING_BODY"],
      "GET /v1/changes": ["VALIDATION_ERROR"],
      "POST /v1/webhooks": ["VALIDATION_ERROR", "MISSING_BODY"],
      "GET /v1/webhooks": ["VALIDATION_ERROR"],
      "PATCH /v1/webhooks/{id}": ["VALIDATION_ERROR", "MISSING_BODY"],
      "GET /v1/webhooks/{id}/deliveries": ["VALIDATION_ERROR"],
      "POST /v1/webhooks/{id}/replay": ["VALIDATION_ERROR", "MISSING_BODY"],
    };
    for (const [key, codes] of Object.entries(expected)) {
      const [method, path] = key.split(" ") as [string, string];
      expect(documentedCodes(document.paths[path][method.toLowerCase()], 400)).toEqual(codes);
    }
    expect(documentedCodes(document.paths["/v1/properties/{id}"].get, 404)).toEqual(["NOT_FOUND"]);
    expect(documentedCodes(document.paths["/v1/leads/{id}"].get, 404)).toEqual(["NOT_FOUND"]);
    for (const [path, methods] of Object.entries(document.paths as Json).filter(([path]) =>
      path.startsWith("/v1/webhooks/{id}"),
    )) {
      for (const method of METHODS.filter((m) => methods[m]))
        expect(documentedCodes(methods[method], 404)).toEqual(["NOT_FOUND"]);
    }
    const create = document.paths["/v1/leads"].post;
    for (const [status, code] of [
      [413, "PAYLOAD_TOO_LARGE"],
      [415, "UNSUPPORTED_MEDIA_TYPE"],
      [422, "IDEMPOTENCY_KEY_REUSED"],
    ] as const) {
      expect(documentedCodes(create, status)).toEqual([code]);
    }
  });

  test("every response of a rate-limited operation documents the rate-limit headers; 429s add Retry-After", () => {
    for (const { op } of operationsOf(document).filter(({ op }) => isProtected(op) || usesCredentials(op))) {
      for (const [status, response] of Object.entries(op.responses as Json)) {
        const headers = Object.keys(response.headers ?? {});
        expect(headers).toEqual(
          expect.arrayContaining([
            "X-Request-Id",
            "X-RateLimit-Limit",
            "X-RateLimit-Remaining",
            "RateLimit-Policy",
            "RateLimit",
          ]),
        );
        if (status === "429") expect(headers).toContain("Retry-After");
      }
    }
  });
});

describe("generated from the sources that validate requests", () => {
  test("the lead body is LeadInputSchema", () => {
    expect(document.paths["/v1/leads"].post.requestBody.content["application/json"].schema).toEqual(
      toOpenApiSchema(LeadInputSchema),
    );
  });

  test("list parameters follow the catalogue's filters and the listing limits", () => {
    for (const entity of ["properties", "leads"] as const) {
      const params = document.paths[`/v1/${entity}`].get.parameters as Json[];
      const byName = new Map(params.map((p) => [p.name, p]));
      expect(byName.get("fields")!.required).toBe(true);
      expect(byName.get("limit")!.schema).toMatchObject({ minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT });
      expect(byName.get("sort")!.schema.enum).toEqual([...(entity === "properties" ? SEARCH_SORTS : SORTS)]);
      for (const filter of CATALOGS[entity].filters) {
        expect(byName.get(filter.param)?.schema.enum).toEqual(filter.values ? [...filter.values] : undefined);
      }
      for (const date of DATE_FILTERS) expect(byName.get(date.param)?.schema.format).toBe("date-time");
      for (const field of CATALOGS[entity].fields)
        expect(byName.get("fields")!.description).toContain(`\`${field.name}\``);
    }
  });

  test("the security schemes name the bearer token and the API-key headers", () => {
    const schemes = document.components.securitySchemes;
    expect(schemes.bearerAuth).toMatchObject({ type: "http", scheme: "bearer", bearerFormat: "JWT" });
    expect(schemes.apiKey).toMatchObject({ type: "apiKey", in: "header", name: "X-API-Key" });
    expect(schemes.apiSecret).toMatchObject({ type: "apiKey", in: "header", name: "X-API-Secret" });
    // The sandbox credentials the document and page name are the ones the sandbox accepts.
    expect([SANDBOX_API_KEY, SANDBOX_API_SECRET]).toEqual([CLI_SANDBOX_KEY, CLI_SANDBOX_SECRET]);
  });
});

/** `post /v1/leads 201`: each answer checked below, so the last test can tell which were never reached. */
const answered = new Set<string>();

/** Status, body schema (so the code) and required headers of a real response, per the document. */
async function expectDocumented(method: string, path: string, response: Response) {
  answered.add(`${method} ${path} ${response.status}`);
  const op = document.paths[path]?.[method];
  expect({ operation: `${method} ${path}`, documented: op !== undefined }).toEqual({
    operation: `${method} ${path}`,
    documented: true,
  });
  const documented = op.responses[String(response.status)];
  const where = `${method} ${path} → ${response.status}`;
  expect({ where, documented: documented !== undefined }).toEqual({ where, documented: true });
  const media = documented.content?.["application/json"];
  if (media) {
    const body = await response.json();
    expect({ where, body, problems: schemaProblems(media.schema, body, document) }).toEqual({
      where,
      body,
      problems: [],
    });
  }
  for (const [name, header] of Object.entries(documented.headers ?? {})) {
    if (resolve(header as Json).required)
      expect({ where, header: name, present: response.headers.has(name) }).toEqual({
        where,
        header: name,
        present: true,
      });
  }
}

/** Builds a request from an operation's examples: every parameter, or only the required ones. */
function exampleRequest(
  path: string,
  method: string,
  op: Json,
  options: { optional: boolean; body?: unknown; format?: string },
): Request {
  const params = (op.parameters ?? []) as Json[];
  // A portal's example goes to the sandbox client of its format (the examples are named by format).
  const inboundFormat = isInbound(op) ? (options.format as keyof typeof SANDBOX_INBOUND) : undefined;
  const pathValue = (name: string) =>
    inboundFormat !== undefined && name === "clientId"
      ? SANDBOX_INBOUND[inboundFormat].clientId
      : params.find((p) => p.name === name)!.example;
  const url = new URL(
    `http://localhost${path.replace(/\{([^}]+)\}/g, (_, name) => encodeURIComponent(pathValue(name)))}`,
  );
  const headers = new Headers();
  for (const p of params) {
    if (p.in === "path" || (!p.required && !options.optional)) continue;
    expect({ parameter: p.name, example: p.example }).toEqual({ parameter: p.name, example: expect.anything() });
    if (p.in === "query") url.searchParams.set(p.name, String(p.example));
    if (p.in === "header") headers.set(p.name, String(p.example));
  }
  if (isProtected(op)) headers.set("authorization", `Bearer ${token}`);
  if (inboundFormat !== undefined) headers.set("authorization", inboundAuth(inboundFormat));
  if (usesCredentials(op)) {
    headers.set("x-api-key", SANDBOX_API_KEY);
    headers.set("x-api-secret", SANDBOX_API_SECRET);
  }
  if (options.body !== undefined) headers.set("content-type", "application/json");
  return new Request(url.href, {
    method: method.toUpperCase(),
    headers,
    ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
  });
}

describe("examples come from the sandbox and the sandbox accepts them", () => {
  test("each success example matches the documented schema of its response", () => {
    for (const { method, path, op } of operationsOf(document)) {
      for (const [status, response] of Object.entries(op.responses as Json)) {
        const media = response.content?.["application/json"];
        if (!media?.example) continue;
        expect({
          at: `${method} ${path} ${status}`,
          problems: schemaProblems(media.schema, media.example, document),
        }).toEqual({
          at: `${method} ${path} ${status}`,
          problems: [],
        });
      }
    }
  });

  test("a request built from each operation's examples is accepted (2xx), with all parameters and with the required ones", async () => {
    for (const { method, path, op } of operationsOf(document)) {
      const named = Object.entries((op.requestBody?.content?.["application/json"]?.examples ?? {}) as Json).map(
        ([format, e]) => ({ format, body: e.value }),
      );
      // The Idempotency-Key example goes with one body only: the same key with another body is a 422.
      const requests =
        named.length === 0
          ? [
              exampleRequest(path, method, op, { optional: true }),
              exampleRequest(path, method, op, { optional: false }),
            ]
          : [
              exampleRequest(path, method, op, { optional: true, ...named[0]! }),
              ...named.map((example) => exampleRequest(path, method, op, { optional: false, ...example })),
            ];
      for (const request of requests) {
        if (path.startsWith("/v1/webhooks/")) ensureExampleSubscription();
        const response = await sandbox.app.handle(request);
        const outcome = { request: `${request.method} ${request.url}`, ok: response.ok, status: response.status };
        expect(outcome).toEqual({ ...outcome, ok: true });
        await expectDocumented(method, path, response);
      }
    }
  });
});

describe("the document's query parameters are the server's (docs/reference/behaviour.md §8)", () => {
  test("every GET that documents query parameters refuses a name it does not document, naming it", async () => {
    const checked: string[] = [];
    for (const { method, path, op } of operationsOf(document)) {
      const takesQuery = ((op.parameters ?? []) as Json[]).some((p) => p.in === "query");
      if (method !== "get" || !takesQuery) continue;
      const example = exampleRequest(path, method, op, { optional: true });
      const url = new URL(example.url);
      url.searchParams.append("zzUndocumented", "1");
      const response = await sandbox.app.handle(new Request(url.href, { headers: example.headers }));
      const body = (await response.json()) as Json;
      expect({ path, status: response.status, error: body.error }).toEqual({
        path,
        status: 400,
        error: "zzUndocumented: unknown parameter",
      });
      checked.push(path);
    }
    expect(checked.sort()).toEqual([
      "/v1/changes",
      "/v1/facets/properties",
      "/v1/leads",
      "/v1/leads/{id}",
      "/v1/properties",
      "/v1/properties/{id}",
      "/v1/values/properties/{field}",
      "/v1/webhooks",
      "/v1/webhooks/{id}/deliveries",
    ]);
  });
});

describe("the top-level webhooks section (docs/reference/behaviour-extensions.md §13)", () => {
  test("documents exactly the five events, each a POST whose body is the event's payload", () => {
    expect(Object.keys(document.webhooks).sort()).toEqual([
      "lead.created",
      "lead.updated",
      "property.removed",
      "property.upserted",
      "webhook.test",
    ]);
    for (const [type, item] of Object.entries(document.webhooks as Json)) {
      expect({ type, methods: Object.keys(item) }).toEqual({ type, methods: ["post"] });
      const schema = item.post.requestBody.content["application/json"].schema;
      expect({ type, documented: schema.properties.type }).toEqual({
        type,
        documented: expect.objectContaining({ const: type }),
      });
    }
  });

  test("real deliveries, captured by a receiver from a lead's creation and change and a property's change and removal, are valid under the document's schema of their event", async () => {
    const app = await webhookApp();
    const receiver = startReceiver();
    try {
      const events = ["lead.created", "lead.updated", "property.upserted", "property.removed"];
      const sub = (await app.call("POST", "/v1/webhooks", { url: receiver.url, events })).body.data;
      const lead = await createLead(app);
      const db = new Database(app.runtime.config.databases.get("main")!);
      try {
        db.run("PRAGMA busy_timeout = 5000");
        db.run("UPDATE leads SET status = 'IN_SERVICE' WHERE id = ?", [lead.id]);
        const [changed, removed] = db
          .query("SELECT id FROM properties WHERE is_published = 1 ORDER BY id LIMIT 2")
          .all() as { id: string }[];
        db.run("UPDATE properties SET title = 'Apartamento reformado' WHERE id = ?", [changed!.id]);
        db.run("UPDATE properties SET is_published = 0 WHERE id = ?", [removed!.id]);
      } finally {
        db.close();
      }
      await app.deliver();
      await app.call("POST", `/v1/webhooks/${sub.id}/test`);
      const payloads = receiver.verifyAll(sub.secret) as Json[];
      expect(payloads.map((p) => p.type).sort()).toEqual([...events, "webhook.test"].sort());
      const schemaOf = (type: string) => document.webhooks[type].post.requestBody.content["application/json"].schema;
      for (const payload of payloads) {
        expect({ type: payload.type, problems: typeboxProblems(schemaOf(payload.type), payload, document) }).toEqual({
          type: payload.type,
          problems: [],
        });
      }
      // The check has teeth: a lead's record under a property event, a missing field, a record on a removal all fail.
      const leadEvent = payloads.find((p) => p.type === "lead.created")!;
      expect(
        typeboxProblems(schemaOf("property.upserted"), { ...leadEvent, type: "property.upserted" }, document),
      ).not.toEqual([]);
      const { email: _, ...withoutEmail } = leadEvent.data.record;
      expect(
        typeboxProblems(
          schemaOf("lead.created"),
          { ...leadEvent, data: { ...leadEvent.data, record: withoutEmail } },
          document,
        ),
      ).not.toEqual([]);
      expect(
        typeboxProblems(schemaOf("property.removed"), { ...leadEvent, type: "property.removed" }, document),
      ).not.toEqual([]);
    } finally {
      app.close();
      receiver.stop();
    }
  });
});

/** A post of a portal's published example (fields replaced by `changes`) with the sandbox's inbound credentials. */
function inboundPost(
  format: keyof typeof SANDBOX_INBOUND,
  changes: Json,
  authorization = inboundAuth(format),
): RequestInit {
  const example = format === "grupozap" ? GRUPOZAP_EXAMPLE : CHAVESNAMAO_EXAMPLE;
  return { method: "POST", headers: { authorization }, body: JSON.stringify({ ...example, ...changes }) };
}

/** The inbound endpoint's answers: new, repeated, not a lead, not authenticated, too large. */
function inboundCases(): [string, string, string, RequestInit][] {
  const path = "/v1/inbound/{clientId}";
  const at = (format: keyof typeof SANDBOX_INBOUND) => `/v1/inbound/${SANDBOX_INBOUND[format].clientId}`;
  return [
    ["post", path, at("grupozap"), inboundPost("grupozap", { originLeadId: "docs-observed-1" })],
    ["post", path, at("grupozap"), inboundPost("grupozap", { originLeadId: "docs-observed-1" })],
    ["post", path, at("chavesnamao"), inboundPost("chavesnamao", { id: "docs-observed-2" })],
    ["post", path, at("chavesnamao"), inboundPost("chavesnamao", { id: "docs-observed-3", name: null })],
    [
      "post",
      path,
      at("grupozap"),
      { method: "POST", headers: { authorization: inboundAuth("grupozap") }, body: "{not json" },
    ],
    ["post", path, at("grupozap"), inboundPost("grupozap", {}, `Basic ${btoa("vivareal:wrong")}`)],
    ["post", path, at("grupozap"), inboundPost("grupozap", { message: "x".repeat(70_000) })],
  ];
}

describe("the portal leads endpoint documents both formats with the portals' own examples", () => {
  test("each published example, posted to the sandbox client of its format, makes one lead of that client, sourced right", async () => {
    const op = document.paths["/v1/inbound/{clientId}"].post;
    const media = op.requestBody.content["application/json"];
    expect(media.examples.grupozap.value).toEqual(GRUPOZAP_EXAMPLE);
    expect(media.examples.chavesnamao.value).toEqual(CHAVESNAMAO_EXAMPLE);
    expect(media.schema.anyOf.map((s: Json) => resolve(s).title)).toEqual(["GrupoZapLead", "ChavesNaMaoLead"]);
    expect(op.security).toEqual([{ inboundBasic: [] }]);
    expect(document.components.securitySchemes.inboundBasic).toMatchObject({ type: "http", scheme: "basic" });
    const expected = { grupozap: "PORTAL_OLX", chavesnamao: "PORTAL_CHAVESNAMAO" } as const;
    for (const format of ["grupozap", "chavesnamao"] as const) {
      const response = await sandbox.request(
        `/v1/inbound/${SANDBOX_INBOUND[format].clientId}`,
        inboundPost(format, { [format === "grupozap" ? "originLeadId" : "id"]: `docs-${format}` }),
      );
      expect(response.status).toBe(201);
      const { data } = (await response.json()) as { data: { id: string } };
      const lead = await (
        await sandbox.request(`/v1/leads/${data.id}?fields=createdBy,source`, {
          headers: { authorization: `Bearer ${token}` },
        })
      ).json();
      expect(lead).toEqual({ data: { createdBy: SANDBOX_INBOUND[format].clientId, source: expected[format] } });
    }
  });
});

describe("observed responses are as documented", () => {
  test("happy paths and input errors of every operation", async () => {
    const auth = { authorization: `Bearer ${token}` };
    const json = { ...auth, "content-type": "application/json" };
    const lead = { name: "Ana", email: "ana@example.com", phone: "+55 11 90000-0000", message: "Olá" };
    const propertyId = document.paths["/v1/properties/{id}"].get.parameters[0].example;
    const cases: [string, string, string, RequestInit?][] = [
      ["get", "/health", "/health"],
      ["get", "/openapi.json", "/openapi.json"],
      ["get", "/docs", "/docs"],
      ["get", "/docs/scalar.js", "/docs/scalar.js"],
      ["get", "/metrics", "/metrics"],
      ["post", "/v1/auth/token", "/v1/auth/token", { method: "POST" }],
      [
        "post",
        "/v1/auth/token",
        "/v1/auth/token",
        { method: "POST", headers: { "x-api-key": "pk_sandbox_nobody", "x-api-secret": "x" } },
      ],
      [
        "post",
        "/v1/auth/token",
        "/v1/auth/token",
        { method: "POST", headers: { "x-api-key": SANDBOX_API_KEY, "x-api-secret": "wrong" } },
      ],
      ["get", "/v1/fields", "/v1/fields", { headers: auth }],
      ["get", "/v1/fields", "/v1/fields"],
      ["get", "/v1/values/leads/{field}", "/v1/values/leads/source", { headers: auth }],
      ["get", "/v1/values/properties/{field}", "/v1/values/properties/propertyType", { headers: auth }],
      ["get", "/v1/values/properties/{field}", "/v1/values/properties/source", { headers: auth }],
      ["get", "/v1/values/leads/{field}", "/v1/values/leads/operationType", { headers: auth }],
      ["get", "/v1/properties", "/v1/properties?fields=id,address,photos&limit=3", { headers: auth }],
      ["get", "/v1/properties", "/v1/properties?limit=500", { headers: auth }],
      ["get", "/v1/properties", "/v1/properties?fields=bedrooms", { headers: auth }],
      ["get", "/v1/properties", "/v1/properties?fields=id", { headers: { authorization: "Bearer nope" } }],
      ["get", "/v1/properties/{id}", `/v1/properties/${propertyId}?fields=id,features,photos`, { headers: auth }],
      ["get", "/v1/properties/{id}", "/v1/properties/no-such-id?fields=id", { headers: auth }],
      ["get", "/v1/properties/{id}", `/v1/properties/${propertyId}`, { headers: auth }],
      ["get", "/v1/leads", "/v1/leads?fields=id,status,propertyId&status=LOST", { headers: auth }],
      ["get", "/v1/leads", "/v1/leads?fields=id&createdAfter=yesterday", { headers: auth }],
      ["get", "/v1/leads/{id}", "/v1/leads/no-such-id?fields=id", { headers: auth }],
      ["post", "/v1/leads", "/v1/leads", { method: "POST", headers: json, body: JSON.stringify(lead) }],
      ["post", "/v1/leads", "/v1/leads", { method: "POST", headers: json }],
      [
        "post",
        "/v1/leads",
        "/v1/leads",
        { method: "POST", headers: json, body: JSON.stringify({ ...lead, email: "nope" }) },
      ],
      [
        "post",
        "/v1/leads",
        "/v1/leads",
        { method: "POST", headers: { ...auth, "content-type": "text/plain" }, body: "hello" },
      ],
      [
        "post",
        "/v1/leads",
        "/v1/leads",
        { method: "POST", headers: json, body: JSON.stringify({ ...lead, message: "x".repeat(70_000) }) },
      ],
      [
        "post",
        "/v1/leads",
        "/v1/leads",
        { method: "POST", headers: { ...json, "idempotency-key": "k1" }, body: JSON.stringify(lead) },
      ],
      [
        "post",
        "/v1/leads",
        "/v1/leads",
        { method: "POST", headers: { ...json, "idempotency-key": "k1" }, body: JSON.stringify(lead) },
      ],
      [
        "post",
        "/v1/leads",
        "/v1/leads",
        {
          method: "POST",
          headers: { ...json, "idempotency-key": "k1" },
          body: JSON.stringify({ ...lead, name: "Bia" }),
        },
      ],
      ["get", "/v1/changes", "/v1/changes?entity=leads&limit=5", { headers: auth }],
      ["get", "/v1/changes", "/v1/changes?entity=houses", { headers: auth }],
      [
        "post",
        "/v1/webhooks",
        "/v1/webhooks",
        {
          method: "POST",
          headers: json,
          body: JSON.stringify({ url: "http://127.0.0.1:9/hooks", events: ["lead.created"] }),
        },
      ],
      [
        "post",
        "/v1/webhooks",
        "/v1/webhooks",
        { method: "POST", headers: json, body: JSON.stringify({ url: "ftp://x", events: [] }) },
      ],
      ["get", "/v1/webhooks", "/v1/webhooks", { headers: auth }],
      ["get", "/v1/webhooks", "/v1/webhooks?limit=0", { headers: auth }],
      ["get", "/v1/webhooks/{id}", "/v1/webhooks/00000000-0000-4000-8000-000000000000", { headers: auth }],
      [
        "patch",
        "/v1/webhooks/{id}",
        "/v1/webhooks/00000000-0000-4000-8000-000000000000",
        { method: "PATCH", headers: json, body: JSON.stringify({ enabled: true }) },
      ],
      [
        "patch",
        "/v1/webhooks/{id}",
        "/v1/webhooks/00000000-0000-4000-8000-000000000000",
        { method: "PATCH", headers: json, body: JSON.stringify({}) },
      ],
      [
        "delete",
        "/v1/webhooks/{id}",
        "/v1/webhooks/00000000-0000-4000-8000-000000000000",
        { method: "DELETE", headers: auth },
      ],
      [
        "get",
        "/v1/webhooks/{id}/deliveries",
        "/v1/webhooks/00000000-0000-4000-8000-000000000000/deliveries",
        { headers: auth },
      ],
      [
        "post",
        "/v1/webhooks/{id}/replay",
        "/v1/webhooks/00000000-0000-4000-8000-000000000000/replay",
        { method: "POST", headers: json, body: "{}" },
      ],
      ["get", "/v1/feeds/vrsync.xml", "/v1/feeds/vrsync.xml", { headers: auth }],
      [
        "get",
        "/v1/feeds/vrsync.xml",
        "/v1/feeds/vrsync.xml",
        {
          headers: {
            authorization: `Basic ${btoa(`${SANDBOX_API_KEY}:${SANDBOX_API_SECRET}`)}`,
            "accept-encoding": "gzip",
          },
        },
      ],
      [
        "get",
        "/v1/feeds/vrsync.xml",
        "/v1/feeds/vrsync.xml",
        { headers: { authorization: `Basic ${btoa(`${SANDBOX_API_KEY}:wrong`)}` } },
      ],
      ["get", "/v1/feeds/vrsync.xml", "/v1/feeds/vrsync.xml", { headers: { authorization: "Basic !!" } }],
      ["get", "/v1/feeds/vrsync.xml", "/v1/feeds/vrsync.xml", { headers: { ...auth, "if-none-match": "*" } }],
      ["head", "/v1/feeds/vrsync.xml", "/v1/feeds/vrsync.xml", { method: "HEAD", headers: auth }],
      ...inboundCases(),
    ];
    const seen = new Set<string>();
    for (const [method, template, url, init] of cases) {
      const response = await sandbox.request(url, init);
      seen.add(`${method} ${template} ${response.status}`);
      await expectDocumented(method, template, response);
    }
    // The cases above reach these answers (so the checks are not vacuous).
    for (const status of [201, 200, 400, 401, 413]) expect(seen).toContain(`post /v1/inbound/{clientId} ${status}`);
    for (const expected of [
      "get /v1/feeds/vrsync.xml 200",
      "get /v1/feeds/vrsync.xml 304",
      "get /v1/feeds/vrsync.xml 401",
      "head /v1/feeds/vrsync.xml 200",
      "post /v1/leads 201",
      "post /v1/leads 400",
      "post /v1/leads 413",
      "post /v1/leads 415",
      "post /v1/leads 422",
      "get /v1/properties/{id} 404",
      "post /v1/auth/token 401",
      "get /v1/values/properties/{field} 400",
    ]) {
      expect(seen).toContain(expected);
    }
  });

  test("error examples are the server's real answers to the requests that cause them", async () => {
    const auth = { authorization: `Bearer ${token}` };
    const json = { ...auth, "content-type": "application/json" };
    const lead = { name: "Ana", email: "ana@example.com", phone: "+55 11 90000-0000", message: "Olá" };
    const cases: [string, string, ErrorCode, string, RequestInit?][] = [
      ["post", "/v1/auth/token", "MISSING_CREDENTIALS", "/v1/auth/token", { method: "POST" }],
      [
        "post",
        "/v1/auth/token",
        "INVALID_API_KEY",
        "/v1/auth/token",
        { method: "POST", headers: { "x-api-key": "pk_sandbox_x", "x-api-secret": "x" } },
      ],
      [
        "post",
        "/v1/auth/token",
        "INVALID_API_SECRET",
        "/v1/auth/token",
        { method: "POST", headers: { "x-api-key": SANDBOX_API_KEY, "x-api-secret": "x" } },
      ],
      // The documented example is a bad token's; a missing one says so instead (docs/reference/behaviour.md §4).
      ["get", "/v1/fields", "INVALID_TOKEN", "/v1/fields", { headers: { authorization: "Bearer not.a.token" } }],
      ["get", "/v1/values/properties/{field}", "INVALID_FIELD", "/v1/values/properties/source", { headers: auth }],
      ["get", "/v1/values/leads/{field}", "INVALID_FIELD", "/v1/values/leads/operationType", { headers: auth }],
      ["get", "/v1/properties", "VALIDATION_ERROR", "/v1/properties?fields=id&limit=500&bedrooms=2", { headers: auth }],
      ["get", "/v1/properties", "INVALID_FIELDS", "/v1/properties?fields=bedrooms", { headers: auth }],
      ["get", "/v1/properties/{id}", "VALIDATION_ERROR", "/v1/properties/x", { headers: auth }],
      ["get", "/v1/properties/{id}", "INVALID_FIELDS", "/v1/properties/x?fields=bedrooms", { headers: auth }],
      ["get", "/v1/properties/{id}", "NOT_FOUND", "/v1/properties/x?fields=id", { headers: auth }],
      ["get", "/v1/facets/properties", "VALIDATION_ERROR", "/v1/facets/properties?minPrice=-1", { headers: auth }],
      ["get", "/v1/leads", "VALIDATION_ERROR", "/v1/leads?fields=id&limit=0&sourse=PORTAL", { headers: auth }],
      [
        "get",
        "/v1/values/properties/{field}",
        "VALIDATION_ERROR",
        "/v1/values/properties/city?cidade=Recife",
        { headers: auth },
      ],
      ["get", "/v1/values/leads/{field}", "VALIDATION_ERROR", "/v1/values/leads/source?city=Recife", { headers: auth }],
      ["get", "/v1/leads", "INVALID_FIELDS", "/v1/leads?fields=trafficOrigin", { headers: auth }],
      ["get", "/v1/leads/{id}", "NOT_FOUND", "/v1/leads/x?fields=id", { headers: auth }],
      ["get", "/v1/leads/{id}", "INVALID_FIELDS", "/v1/leads/x?fields=trafficOrigin", { headers: auth }],
      [
        "post",
        "/v1/leads",
        "VALIDATION_ERROR",
        "/v1/leads",
        { method: "POST", headers: json, body: JSON.stringify({ ...lead, email: "x", phone: undefined }) },
      ],
      ["post", "/v1/leads", "MISSING_BODY", "/v1/leads", { method: "POST", headers: json }],
      [
        "post",
        "/v1/leads",
        "UNSUPPORTED_MEDIA_TYPE",
        "/v1/leads",
        { method: "POST", headers: { ...auth, "content-type": "text/plain" }, body: "x" },
      ],
      [
        "post",
        "/v1/leads",
        "PAYLOAD_TOO_LARGE",
        "/v1/leads",
        { method: "POST", headers: json, body: JSON.stringify({ ...lead, message: "x".repeat(70_000) }) },
      ],
      ["get", "/v1/changes", "VALIDATION_ERROR", "/v1/changes", { headers: auth }],
      [
        "post",
        "/v1/webhooks",
        "VALIDATION_ERROR",
        "/v1/webhooks",
        { method: "POST", headers: json, body: JSON.stringify({ url: "ftp://crm.example.com", events: [] }) },
      ],
      ["get", "/v1/webhooks", "VALIDATION_ERROR", "/v1/webhooks?limit=101", { headers: auth }],
      ["get", "/v1/webhooks/{id}", "NOT_FOUND", "/v1/webhooks/00000000-0000-4000-8000-000000000000", { headers: auth }],
      [
        "get",
        "/v1/webhooks/{id}/deliveries",
        "VALIDATION_ERROR",
        `/v1/webhooks/${EXAMPLE_SUBSCRIPTION_ID}/deliveries?state=done`,
        { headers: auth },
      ],
      [
        "post",
        "/v1/inbound/{clientId}",
        "VALIDATION_ERROR",
        "/v1/inbound/sandbox-grupozap",
        inboundPost("grupozap", {
          originLeadId: "no-contact",
          name: null,
          email: null,
          phone: null,
          ddd: null,
          phoneNumber: null,
        }),
      ],
      [
        "post",
        "/v1/inbound/{clientId}",
        "INVALID_API_SECRET",
        "/v1/inbound/no-such-client",
        inboundPost("grupozap", {}),
      ],
    ];
    for (const [method, path, code, url, init] of cases) {
      const op = document.paths[path][method];
      const example = op.responses[String(ERRORS[code].status)].content["application/json"].examples[code].value;
      const body = await (await sandbox.request(url, init)).json();
      expect({ at: `${method} ${path} ${code}`, body }).toEqual({ at: `${method} ${path} ${code}`, body: example });
    }
  });

  test("the guard's refusals: disabled, blocked, no database, rate limited", async () => {
    const clients = {
      off: client("off", { enabled: false }),
      blocked: client("blocked", { ipWhitelist: ["198.51.100.1"] }),
      lost: client("lost", { database: "missing" }),
      tiny: client("tiny", { rateLimitPerMinute: 1 }),
    };
    const t = createTestApp({ clients: Object.values(clients).map((c) => c.entry) });
    try {
      for (const who of [clients.off, clients.blocked, clients.lost]) {
        await expectDocumented(
          "post",
          "/v1/auth/token",
          await t.request("/v1/auth/token", {
            method: "POST",
            headers: { "x-api-key": who.apiKey, "x-api-secret": who.secret },
          }),
        );
      }
      const tiny = await t.token(clients.tiny);
      expect((await t.get("/v1/fields", tiny)).status).toBe(200);
      const limited = await t.get("/v1/leads?fields=id", tiny);
      expect(limited.status).toBe(429);
      await expectDocumented("get", "/v1/leads", limited);
    } finally {
      t.close();
    }
  });
  test("the client-credentials grant's own failures: a bad grant, a body too large, a body that is not the form", async () => {
    const basic = `Basic ${btoa(`${SANDBOX_API_KEY}:${SANDBOX_API_SECRET}`)}`;
    const form = { authorization: basic, "content-type": "application/x-www-form-urlencoded" };
    const cases: [number, RequestInit][] = [
      [400, { method: "POST", headers: form, body: "grant_type=password" }],
      [400, { method: "POST", headers: form, body: "scope=x" }],
      [413, { method: "POST", headers: form, body: `grant_type=client_credentials&scope=${"x".repeat(70_000)}` }],
      [415, { method: "POST", headers: { authorization: basic, "content-type": "application/json" }, body: "{}" }],
      [200, { method: "POST", headers: form, body: "grant_type=client_credentials" }],
    ];
    for (const [status, init] of cases) {
      const response = await sandbox.request("/v1/auth/token", init);
      expect({ status: response.status }).toEqual({ status });
      await expectDocumented("post", "/v1/auth/token", response);
    }
    // An address that spent its 20 failed attempts: 429 to either way in.
    const drained = sandboxApp({ peer: () => "192.0.2.7" });
    try {
      const wrong = { "x-api-key": SANDBOX_API_KEY, "x-api-secret": "wrong" };
      for (let i = 0; i < 20; i++) await drained.request("/v1/auth/token", { method: "POST", headers: wrong });
      for (const init of [{ method: "POST", headers: wrong }, cases.at(-1)![1]]) {
        const response = await drained.request("/v1/auth/token", init);
        expect({ status: response.status }).toEqual({ status: 429 });
        await expectDocumented("post", "/v1/auth/token", response);
      }
    } finally {
      drained.close();
    }
  });

  test("the guard's answers on every protected operation: no credentials, a disabled client, the rate limit", async () => {
    // One address per request: the failed attempts of the 401s would otherwise drain one address's allowance.
    let peers = 0;
    const guarded = sandboxApp({ rateLimitPerMinute: 1, peer: () => `10.0.${peers >> 8}.${peers++ & 255}` });
    try {
      const bearer = await guarded.token();
      const operations = operationsOf(document).filter(({ op }) => isProtected(op) || isInbound(op));
      const send = async (
        { method, path, op }: (typeof operations)[number],
        authorization: string | null,
        status: number,
      ) => {
        const body = (Object.values(op.requestBody?.content?.["application/json"]?.examples ?? {})[0] as Json)?.value;
        const example = exampleRequest(path, method, op, { optional: false, body, format: "grupozap" });
        const headers = new Headers(example.headers);
        if (authorization === null) headers.delete("authorization");
        else if (isInbound(op)) headers.set("authorization", inboundAuth("grupozap"));
        else headers.set("authorization", authorization);
        const request = new Request(example.url, {
          method: example.method,
          headers,
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        const response = await guarded.app.handle(request);
        expect({ at: `${method} ${path}`, status: response.status }).toEqual({ at: `${method} ${path}`, status });
        await expectDocumented(method, path, response);
      };
      for (const operation of operations) await send(operation, null, 401);
      // Each client's one request of the minute: the sandbox client's, and the portal client's lead.
      expect((await guarded.request("/v1/fields", { headers: { authorization: `Bearer ${bearer}` } })).status).toBe(
        200,
      );
      for (const operation of operations)
        await send(operation, `Bearer ${bearer}`, isInbound(operation.op) && operation.method === "post" ? 201 : 429);
      for (const operation of operations.filter(({ op }) => isInbound(op))) await send(operation, "", 429);
      // The agency turns every client off: its tokens and portal passwords are refused, before the rate limit.
      const config = guarded.runtime.config;
      guarded.runtime.reload({
        ...config,
        clients: new Map([...config.clients].map(([id, client]) => [id, { ...client, enabled: false }])),
      });
      for (const operation of operations) await send(operation, `Bearer ${bearer}`, 403);
    } finally {
      guarded.close();
    }
  });

  test("single records and subscriptions: found, changed, missing, and bodies refused", async () => {
    ensureExampleSubscription();
    const auth = { authorization: `Bearer ${token}` };
    const json = { ...auth, "content-type": "application/json" };
    const missing = "00000000-0000-4000-8000-000000000000";
    const leadId = document.paths["/v1/leads/{id}"].get.parameters[0].example;
    const sub = `/v1/webhooks/${EXAMPLE_SUBSCRIPTION_ID}`;
    const tooLarge = JSON.stringify({ url: `http://127.0.0.1:${receiver.port}/${"x".repeat(70_000)}` });
    const text = { method: "POST", headers: { ...auth, "content-type": "text/plain" }, body: "x" };
    const cases: [string, string, string, RequestInit?][] = [
      ["get", "/v1/leads/{id}", `/v1/leads/${leadId}?fields=id,status`, { headers: auth }],
      ["get", "/v1/leads/{id}", `/v1/leads/${leadId}?fields=trafficOrigin`, { headers: auth }],
      ["get", "/v1/facets/properties", "/v1/facets/properties?facets=bedrooms&minPrice=-1", { headers: auth }],
      ["patch", "/v1/leads/{id}", `/v1/leads/${leadId}`, { method: "PATCH", headers: json, body: '{"status":"LOST"}' }],
      ["patch", "/v1/leads/{id}", `/v1/leads/${leadId}`, { method: "PATCH", headers: json, body: '{"status":"X"}' }],
      [
        "patch",
        "/v1/leads/{id}",
        `/v1/leads/${missing}`,
        { method: "PATCH", headers: json, body: '{"status":"LOST"}' },
      ],
      ["patch", "/v1/leads/{id}", `/v1/leads/${leadId}`, { method: "PATCH", headers: json, body: tooLarge }],
      ["patch", "/v1/leads/{id}", `/v1/leads/${leadId}`, { ...text, method: "PATCH" }],
      ["post", "/v1/webhooks", "/v1/webhooks", { method: "POST", headers: json, body: tooLarge }],
      ["post", "/v1/webhooks", "/v1/webhooks", text],
      ["get", "/v1/webhooks/{id}", sub, { headers: auth }],
      ["patch", "/v1/webhooks/{id}", sub, { method: "PATCH", headers: json, body: '{"enabled":true}' }],
      ["patch", "/v1/webhooks/{id}", sub, { method: "PATCH", headers: json, body: tooLarge }],
      ["patch", "/v1/webhooks/{id}", sub, { ...text, method: "PATCH" }],
      ["post", "/v1/webhooks/{id}/rotate-secret", `${sub}/rotate-secret`, { method: "POST", headers: auth }],
      [
        "post",
        "/v1/webhooks/{id}/rotate-secret",
        `/v1/webhooks/${missing}/rotate-secret`,
        { method: "POST", headers: auth },
      ],
      ["post", "/v1/webhooks/{id}/test", `${sub}/test`, { method: "POST", headers: auth }],
      ["post", "/v1/webhooks/{id}/test", `/v1/webhooks/${missing}/test`, { method: "POST", headers: auth }],
      ["get", "/v1/webhooks/{id}/deliveries", `${sub}/deliveries`, { headers: auth }],
      ["get", "/v1/webhooks/{id}/deliveries", `${sub}/deliveries?state=done`, { headers: auth }],
      ["post", "/v1/webhooks/{id}/replay", `${sub}/replay`, { method: "POST", headers: json, body: '{"after":0}' }],
      [
        "post",
        "/v1/webhooks/{id}/replay",
        `/v1/webhooks/${missing}/replay`,
        { method: "POST", headers: json, body: '{"after":0}' },
      ],
      ["post", "/v1/webhooks/{id}/replay", `${sub}/replay`, { method: "POST", headers: json, body: tooLarge }],
      ["post", "/v1/webhooks/{id}/replay", `${sub}/replay`, text],
      ["delete", "/v1/webhooks/{id}", sub, { method: "DELETE", headers: auth }],
    ];
    for (const [method, template, url, init] of cases)
      await expectDocumented(method, template, await sandbox.request(url, init));
  });

  test("conditional and headers-only answers; metrics without the scraper's token", async () => {
    const auth = { authorization: `Bearer ${token}` };
    const feed = await sandbox.request("/v1/feeds/vrsync.xml", { method: "HEAD", headers: auth });
    const etag = feed.headers.get("etag")!;
    expect(etag).not.toBeNull();
    const script = (await sandbox.request("/docs/scalar.js")).headers.get("etag")!;
    const cases: [string, string, RequestInit?][] = [
      ["head", "/v1/feeds/vrsync.xml", { method: "HEAD", headers: { ...auth, "if-none-match": etag } }],
      ["head", "/v1/feeds/vrsync.xml", { method: "HEAD" }],
      ["get", "/docs/scalar.js", { headers: { "if-none-match": script } }],
    ];
    for (const [method, path, init] of cases) await expectDocumented(method, path, await sandbox.request(path, init));
    // A dear read past its deadline (0 here: every one) is a 422 QUERY_TOO_BROAD.
    const cut = createTestApp({ readDeadlineMs: 0 });
    try {
      const bearer = await cut.token(client("portal"));
      for (const [path, request] of [
        ["/v1/properties", "/v1/properties?fields=id&q=casa"],
        ["/v1/facets/properties", "/v1/facets/properties?facets=city"],
        ["/v1/values/properties/{field}", "/v1/values/properties/city"],
        ["/v1/leads", "/v1/leads?fields=id"],
        ["/v1/changes", "/v1/changes?entity=properties"],
      ] as const) {
        const response = await cut.get(request, bearer);
        expect(response.status).toBe(422);
        await expectDocumented("get", path, response);
      }
    } finally {
      cut.close();
    }
    // In production /metrics exists only for the scraper's token: anyone else gets the unknown path's 404.
    const production = createTestApp();
    try {
      const response = await production.request("/metrics");
      expect(response.status).toBe(404);
      await expectDocumented("get", "/metrics", response);
    } finally {
      production.close();
    }
  });

  test("every status the document gives an operation is answered, and checked, above", () => {
    // 500 and 503 come only from a fault of the server or its disk, never from a request.
    const documented = operationsOf(document).flatMap(({ method, path, op }) =>
      Object.keys(op.responses)
        .filter((status) => status !== "500" && status !== "503")
        .map((status) => `${method} ${path} ${status}`),
    );
    expect(documented.filter((answer) => !answered.has(answer))).toEqual([]);
  });
});
