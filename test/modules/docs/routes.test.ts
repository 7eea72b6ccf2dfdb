// GET /openapi.json, /docs and /docs/scalar.js: public, outside the guard and its rate limit,
// and the page loads nothing from outside the server.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { buildOpenApiDocument } from "../../../src/openapi.ts";
import { VERSION } from "../../../src/version.ts";
import { client, createTestApp, type TestApp } from "../../helpers/app.ts";

const SCALAR_SOURCE = join(import.meta.dir, "../../../node_modules/@scalar/api-reference/dist/browser/standalone.js");

let t: TestApp;
beforeAll(() => {
  // Production, with a client limited to one request a minute: the docs must not care.
  t = createTestApp({ environment: "production", clients: [client("tiny", { rateLimitPerMinute: 1 }).entry] });
});
afterAll(() => t.close());

describe("GET /openapi.json", () => {
  test("serves the generated document as JSON", async () => {
    const response = await t.request("/openapi.json");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(await response.json()).toEqual(buildOpenApiDocument({ version: VERSION, origin: "http://localhost" }));
  });

  test("is built from the app's routes, byte for byte the document of the modules' declared routes", async () => {
    const served = await (await t.request("/openapi.json")).text();
    expect(served).toBe(JSON.stringify(buildOpenApiDocument({ version: VERSION, origin: "http://localhost" })));
    expect(served).toBe(
      JSON.stringify(buildOpenApiDocument({ version: VERSION, origin: "http://localhost", routes: t.app.routes })),
    );
  });

  test("a route's declaration passed on another route is refused; a route without one is left out", () => {
    const declared = t.app.routes.find((r) => r.method === "GET" && r.path === "/v1/leads")!;
    const misplaced = { method: "GET", path: "/v1/properties", hooks: declared.hooks };
    expect(() => buildOpenApiDocument({ version: VERSION, routes: [misplaced] })).toThrow(
      "GET /v1/properties carries the documentation of get /v1/leads",
    );
    const bare = buildOpenApiDocument({ version: VERSION, routes: [{ method: "GET", path: "/v1/leads" }] });
    expect(bare.paths).toEqual({});
  });

  test("needs no token and is not rate limited", async () => {
    for (let i = 0; i < 25; i++) {
      const response = await t.request("/openapi.json");
      expect(response.status).toBe(200);
      expect(response.headers.get("x-ratelimit-limit")).toBeNull();
    }
  });
});

describe("the document names the address it was fetched from", () => {
  const serverOf = async (app: TestApp, headers: Record<string, string>, peer?: string) => {
    const document = (await (await app.request("/openapi.json", { headers, ...(peer ? { peer } : {}) })).json()) as any;
    return {
      server: document.servers[0].url,
      tokenUrl: document.components.securitySchemes.oauth2.flows.clientCredentials.tokenUrl,
    };
  };

  test("servers and the oauth2 token URL come from the request's Host", async () => {
    expect(await serverOf(t, { host: "api.imobiliaria.example:8443" })).toEqual({
      server: "http://api.imobiliaria.example:8443",
      tokenUrl: "http://api.imobiliaria.example:8443/v1/auth/token",
    });
  });

  test("X-Forwarded-Proto/-Host and Forwarded are believed from a trusted proxy only", async () => {
    const behind = createTestApp({ trustedProxies: ["10.0.0.0/8"] });
    try {
      const forwarded = {
        host: "10.0.0.5:8080",
        "x-forwarded-proto": "https",
        "x-forwarded-host": "api.imobiliaria.example",
      };
      expect((await serverOf(behind, forwarded, "10.0.0.2")).server).toBe("https://api.imobiliaria.example");
      expect(
        (
          await serverOf(
            behind,
            { host: "10.0.0.5:8080", forwarded: 'for=192.0.2.1;proto=https;host="parceiros.example"' },
            "10.0.0.2",
          )
        ).server,
      ).toBe("https://parceiros.example");
      // From anyone else the headers are the caller's word, not a proxy's: the Host stands.
      expect((await serverOf(behind, forwarded, "192.0.2.7")).server).toBe("http://10.0.0.5:8080");
      // A header that is not a host is ignored rather than copied into the document.
      expect(
        (await serverOf(behind, { ...forwarded, "x-forwarded-host": "evil.example/<script>" }, "10.0.0.2")).server,
      ).toBe("https://10.0.0.5:8080");
    } finally {
      behind.close();
    }
  });

  test("an oauth2 client-credentials scheme sits beside bearerAuth on every protected operation", async () => {
    const document = (await (await t.request("/openapi.json")).json()) as any;
    expect(document.components.securitySchemes.oauth2.type).toBe("oauth2");
    expect(Object.keys(document.components.securitySchemes.oauth2.flows)).toEqual(["clientCredentials"]);
    expect(document.paths["/v1/properties"].get.security).toEqual([{ oauth2: [] }, { bearerAuth: [] }]);
    expect(document.paths["/v1/auth/token"].post.security).toEqual([
      { basicAuth: [] },
      { apiKey: [], apiSecret: [] },
      {},
    ]);
  });
});

describe("GET /docs", () => {
  test("serves an HTML page that renders /openapi.json with the embedded script", async () => {
    const response = await t.request("/docs");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const html = await response.text();
    expect(html).toContain('<script src="/docs/scalar.js"></script>');
    expect(html).toContain('"url":"/openapi.json"');
  });

  test("references nothing outside the server, and its CSP forbids loading anything from elsewhere", async () => {
    const response = await t.request("/docs");
    expect(await response.text()).not.toMatch(/(src|href)="(https?:)?\/\//);
    const csp = response.headers.get("content-security-policy")!;
    expect(csp).toContain("default-src 'none'");
    for (const directive of csp.split("; ")) {
      const sources = directive.split(" ").slice(1);
      expect(sources.filter((s) => /^(https?:|\*|[a-z0-9.-]+\.[a-z]{2,})/i.test(s))).toEqual([]);
    }
  });

  test("prefills the published credentials in the sandbox only", async () => {
    expect(await (await t.request("/docs")).text()).not.toContain("sk_sandbox_demo");
    const sandbox = createTestApp({ environment: "sandbox", clients: [client("portal").entry] });
    try {
      expect(await (await sandbox.request("/docs")).text()).toContain("sk_sandbox_demo");
    } finally {
      sandbox.close();
    }
  });

  test("is not rate limited", async () => {
    for (let i = 0; i < 25; i++) expect((await t.request("/docs")).status).toBe(200);
  });
});

describe("GET /docs/scalar.js", () => {
  const source = readFileSync(SCALAR_SOURCE);

  test("serves the Scalar bundle byte for byte", async () => {
    const response = await t.request("/docs/scalar.js");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(Buffer.from(await response.arrayBuffer()).equals(source)).toBe(true);
  });

  test("gzipped for clients that accept it", async () => {
    const response = await t.request("/docs/scalar.js", { headers: { "accept-encoding": "gzip, br" } });
    expect(response.headers.get("content-encoding")).toBe("gzip");
    const body = new Uint8Array(await response.arrayBuffer());
    expect(body.byteLength).toBeLessThan(source.byteLength / 2);
    expect(Buffer.from(Bun.gunzipSync(body)).equals(source)).toBe(true);
  });

  test("answers 304 to a matching If-None-Match", async () => {
    const etag = (await t.request("/docs/scalar.js")).headers.get("etag")!;
    expect(etag).toMatch(/^".+"$/);
    const again = await t.request("/docs/scalar.js", { headers: { "if-none-match": etag } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe("");
  });
});
