// Who may post portal leads (docs/operators/portal-leads.md): only the Basic auth of the
// client's `inbound` config; every wrong credential, unknown id or client without `inbound`
// answers the same 401 (nothing tells which ids exist) and drains the failed-auth bucket; then
// the rest of the guard: disabled, database, rate limit. And /metrics counts each outcome with
// bounded labels.
import { afterEach, describe, expect, test } from "bun:test";
import pino from "pino";
import { CHAVESNAMAO_EXAMPLE, GRUPOZAP_EXAMPLE } from "../../../src/modules/inbound/model.ts";
import { AUTH_FAILURE_CAPACITY } from "../../../src/runtime.ts";
import { createTestApp, read, type TestApp } from "../../helpers/app.ts";
import { basicAuth, CNM_AUTH, CNM_PASSWORD, cnm, crm, DatabaseFile, ZAP_AUTH, ZAP_PASSWORD, zap } from "./helpers.ts";

let t: TestApp;
afterEach(() => t?.close());

const post = (clientId: string, authorization: string | null, body: unknown = GRUPOZAP_EXAMPLE, peer?: string) =>
  t.request(`/v1/inbound/${clientId}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(authorization === null ? {} : { authorization }) },
    body: JSON.stringify(body),
    ...(peer ? { peer } : {}),
  });

/** Status, headers (without the request id) and body bytes: what a caller can tell apart. */
async function visible(response: Response) {
  const headers = Object.fromEntries([...response.headers].filter(([name]) => name !== "x-request-id"));
  return { status: response.status, headers, body: await response.text() };
}

describe("one 401 for every wrong way in", () => {
  test("bad credentials, unknown ids and a client without inbound answer byte for byte the same, with the Basic challenge", async () => {
    t = createTestApp({ clients: [zap.entry, cnm.entry, crm.entry] });
    const attempts: [string, string, string | null][] = [
      ["wrong password", "zap", basicAuth("vivareal", "not-the-secret")],
      ["wrong user", "zap", basicAuth("zapuser", ZAP_PASSWORD)],
      ["no Authorization", "zap", null],
      ["the client's API key and secret", "zap", basicAuth(zap.apiKey, zap.secret)],
      ["a bearer token of the client", "zap", `Bearer ${await t.token(zap, "198.51.100.250")}`],
      ["malformed Basic", "zap", "Basic !!!"],
      ["Basic without a password", "zap", basicAuth("vivareal", "")],
      ["another client's inbound credentials", "zap", CNM_AUTH],
      ["an unknown client id", "nobody", ZAP_AUTH],
      ["an unknown id with a plausible name", "zap-imoveis", ZAP_AUTH],
      ["a client without inbound, its own API credentials", "crm", basicAuth(crm.apiKey, crm.secret)],
      ["a client without inbound, portal credentials", "crm", ZAP_AUTH],
    ];
    const answers = [];
    for (const [i, [what, id, authorization]] of attempts.entries()) {
      // Each from an address of its own: the failed-auth bucket's figures are then the same too.
      answers.push({ what, ...(await visible(await post(id, authorization, GRUPOZAP_EXAMPLE, `192.0.2.${i + 1}`))) });
    }
    const first = answers[0]!;
    expect(first.status).toBe(401);
    expect(first.headers["www-authenticate"]).toBe('Basic realm="partner-api"');
    expect(JSON.parse(first.body)).toEqual({
      error: "Send HTTP Basic auth with the user and password registered for this URL in the portal",
      code: "INVALID_API_SECRET",
    });
    for (const answer of answers) expect({ ...answer, what: first.what }).toEqual(first);
    expect(
      new DatabaseFile(t.runtime.config.databases.get("main")!).leadsWithOrigin("zap", GRUPOZAP_EXAMPLE.originLeadId),
    ).toEqual([]);
  });

  test("failures drain the address's failed-auth bucket: then even the right credentials get 429 there, not elsewhere", async () => {
    t = createTestApp({ clients: [zap.entry] });
    const peer = "192.0.2.77";
    for (let i = 0; i < AUTH_FAILURE_CAPACITY; i++) {
      const response = await post(
        i % 2 === 0 ? "zap" : `unknown-${i}`,
        basicAuth("vivareal", "guess"),
        GRUPOZAP_EXAMPLE,
        peer,
      );
      expect(response.status).toBe(401);
      expect(response.headers.get("x-ratelimit-remaining")).toBe(String(AUTH_FAILURE_CAPACITY - i - 1));
    }
    const throttled = await post("zap", ZAP_AUTH, GRUPOZAP_EXAMPLE, peer);
    expect(throttled.status).toBe(429);
    expect(Number(throttled.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect((await post("zap", ZAP_AUTH, GRUPOZAP_EXAMPLE, "192.0.2.78")).status).toBe(201);
  });

  test("the right password is compared in constant time against the stored hash only (no clear text in the config)", async () => {
    t = createTestApp({ clients: [zap.entry] });
    expect(JSON.stringify(t.runtime.config.clients.get("zap")!.inbound)).not.toContain(ZAP_PASSWORD);
  });
});

describe("who gets in", () => {
  test("Grupo ZAP: user vivareal and the secret; Basic in any case", async () => {
    t = createTestApp({ clients: [zap.entry] });
    const encoded = Buffer.from(`vivareal:${ZAP_PASSWORD}`).toString("base64");
    expect((await post("zap", `basic ${encoded}`)).status).toBe(201);
    expect((await post("zap", `BASIC ${encoded}`)).status).toBe(200);
  });

  test("without a configured user, any user with the right password", async () => {
    t = createTestApp({ clients: [cnm.entry] });
    expect(
      (await post("cnm", basicAuth("contato@imobiliaria.example", CNM_PASSWORD), CHAVESNAMAO_EXAMPLE)).status,
    ).toBe(201);
    expect((await post("cnm", basicAuth("someone-else", CNM_PASSWORD), CHAVESNAMAO_EXAMPLE)).status).toBe(200);
  });
});

describe("the rest of the guard after the credentials", () => {
  test("a disabled client: 403 API_DISABLED with its window's headers, once its credentials are right", async () => {
    t = createTestApp({ clients: [{ ...zap.entry, enabled: false, rateLimitPerMinute: 7 }] });
    const { status, body, headers } = await read(await post("zap", ZAP_AUTH));
    expect([status, body.code, headers.get("x-ratelimit-limit")]).toEqual([403, "API_DISABLED", "7"]);
    expect((await post("zap", basicAuth("vivareal", "wrong"))).status).toBe(401);
  });

  test("a database that does not exist: 403 NO_DATABASE", async () => {
    t = createTestApp({ clients: [{ ...zap.entry, database: "gone" }, cnm.entry] });
    const { status, body } = await read(await post("zap", ZAP_AUTH));
    expect([status, body.code]).toEqual([403, "NO_DATABASE"]);
  });

  test("an address off the client's list: the same 401 as a wrong password (a stolen one is confirmed from nowhere), logged for the operator; on the list: in", async () => {
    const lines: string[] = [];
    t = createTestApp({
      clients: [{ ...zap.entry, ipWhitelist: ["203.0.113.0/24"] }],
      logger: pino({ base: undefined }, { write: (line: string) => void lines.push(line) }),
    });
    const blocked = await visible(await post("zap", ZAP_AUTH, GRUPOZAP_EXAMPLE, "198.51.100.9"));
    const wrong = await visible(await post("zap", basicAuth("vivareal", "nope"), GRUPOZAP_EXAMPLE, "198.51.100.10"));
    expect(blocked).toEqual(wrong);
    expect(blocked.status).toBe(401);
    const warnings = lines.map((l) => JSON.parse(l)).filter((l) => l.level === 40);
    expect(warnings.map((l) => [l.clientId, l.ip])).toEqual([["zap", "198.51.100.9"]]);
    expect((await post("zap", ZAP_AUTH, GRUPOZAP_EXAMPLE, "203.0.113.5")).status).toBe(201);
  });

  test("the client's rate limit, with its headers on every answer", async () => {
    t = createTestApp({ clients: [{ ...zap.entry, rateLimitPerMinute: 2 }] });
    const first = await post("zap", ZAP_AUTH);
    expect([first.status, first.headers.get("x-ratelimit-limit"), first.headers.get("x-ratelimit-remaining")]).toEqual([
      201,
      "2",
      "1",
    ]);
    expect(first.headers.get("ratelimit-policy")).toBe('"minute";q=2;w=60');
    const second = await post("zap", ZAP_AUTH);
    expect([second.status, second.headers.get("x-ratelimit-remaining")]).toEqual([200, "0"]);
    const third = await post("zap", ZAP_AUTH);
    expect([third.status, third.headers.get("x-ratelimit-remaining")]).toEqual([429, "0"]);
    expect(Number(third.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(((await third.json()) as { code: string }).code).toBe("RATE_LIMIT_EXCEEDED");
  });

  test("answers are never cached", async () => {
    t = createTestApp({ clients: [zap.entry] });
    expect((await post("zap", ZAP_AUTH)).headers.get("cache-control")).toBe("no-store");
    expect((await post("zap", null)).headers.get("cache-control")).toBe("no-store");
  });
});

describe("/metrics counts posts by client and outcome, with bounded labels", () => {
  test("created, duplicate, refused, unauthorised; unknown ids share one label and make no series of their own; other routes count nothing", async () => {
    t = createTestApp({ environment: "sandbox", clients: [zap.entry, cnm.entry, crm.entry] });
    // Other routes' answers count nothing here, unauthenticated ones included.
    await t.request("/health");
    await t.request("/v1/leads", { method: "POST", headers: { authorization: ZAP_AUTH }, body: "{}" });
    await post("zap", ZAP_AUTH);
    await post("zap", ZAP_AUTH);
    await post("zap", ZAP_AUTH, { ...GRUPOZAP_EXAMPLE, originLeadId: "x", name: null });
    await post("zap", basicAuth("vivareal", "wrong"));
    for (let i = 0; i < 5; i++) await post(`made-up-${i}`, ZAP_AUTH, GRUPOZAP_EXAMPLE, `192.0.2.${100 + i}`);
    await post("crm", ZAP_AUTH);
    const scrape = await (await t.request("/metrics")).text();
    const value = (clientId: string, outcome: string) =>
      Number(
        new RegExp(
          `^partner_api_inbound_posts_total\\{client="${clientId.replace(/[()]/g, "\\$&")}",outcome="${outcome}"\\} (\\d+)$`,
          "m",
        ).exec(scrape)?.[1] ?? NaN,
      );
    expect([
      value("zap", "created"),
      value("zap", "duplicate"),
      value("zap", "refused"),
      value("zap", "unauthorised"),
      value("zap", "failed"),
    ]).toEqual([1, 1, 1, 1, 0]);
    expect(value("(unknown)", "unauthorised")).toBe(6);
    // Every client that takes portal leads is there from zero; no other id ever is.
    expect(value("cnm", "created")).toBe(0);
    expect(scrape).not.toContain("made-up");
    expect(scrape).not.toMatch(/partner_api_inbound_posts_total\{client="crm"/);
  });
});
