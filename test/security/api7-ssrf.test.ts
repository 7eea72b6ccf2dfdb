// OWASP API7:2023 Server Side Request Forgery. No route fetches anything a caller names: links
// in a lead are stored as text, and no Host or forwarding header turns into an address the
// server calls or writes into its documents.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { client, createTestApp, type TestApp } from "../helpers/app.ts";
import { LEAD, postLead } from "./tenants.ts";

const portal = client("portal", { rateLimitPerMinute: 100_000 });
let t: TestApp;
let hits = 0;
let listener: ReturnType<typeof Bun.serve>;
beforeAll(() => {
  t = createTestApp({ clients: [portal.entry] });
  listener = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => (hits++, new Response("internal secret")) });
});
afterAll(() => {
  listener.stop(true);
  t.close();
});

describe("API7 server side request forgery", () => {
  test("URLs in every text field of a lead, and in headers, are never fetched", async () => {
    const url = `http://127.0.0.1:${listener.port}/latest/meta-data/iam`;
    const token = await t.token(portal);
    const response = await postLead(
      t,
      token,
      {
        ...LEAD,
        message: url,
        propertyCode: url,
        interestedPropertyTitle: url,
        interestedPropertyLink: url,
        trafficOrigin: url,
      },
      { referer: url, origin: url, "x-forwarded-host": `127.0.0.1:${listener.port}`, "x-callback-url": url },
    );
    expect(response.status).toBe(201);
    for (const path of ["/v1/leads?fields=id,message&limit=5", "/openapi.json", "/docs", "/health"]) {
      await t.request(path, {
        headers: {
          authorization: `Bearer ${token}`,
          host: `127.0.0.1:${listener.port}`,
          "x-forwarded-host": "evil.example",
        },
      });
    }
    await Bun.sleep(50);
    expect(hits).toBe(0);
  });

  // The document's `servers` is the address it was fetched from (a generator or Postman needs a
  // base URL): the Host, and forwarded headers from trusted proxies only. What must never happen
  // is a forwarded header from anyone being believed, text that is not a host being copied, or
  // one caller's Host reaching another caller's document.
  test("the published documents take no forwarded header from an untrusted peer, and no host but the caller's own", async () => {
    for (const path of ["/openapi.json", "/docs"]) {
      const response = await t.request(path, {
        headers: { host: "api.example", "x-forwarded-host": "evil.example", "x-forwarded-proto": "gopher" },
      });
      expect(response.status).toBe(200);
      const text = await response.text();
      expect(text).not.toContain("evil.example");
      expect(text).not.toContain("gopher");
    }
    await t.request("/openapi.json", { headers: { host: "evil.example" } });
    expect(await (await t.request("/openapi.json", { headers: { host: "api.example" } })).text()).not.toContain(
      "evil.example",
    );
    const odd = await (await t.request("/openapi.json", { headers: { host: "evil.example@x" } })).text();
    expect(odd).not.toContain("evil.example");
  });
});
