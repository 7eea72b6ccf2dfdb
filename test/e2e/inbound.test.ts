// Portal leads end to end (docs/operators/portal-leads.md): the compiled binary, served from a
// config file, takes the portals' published payloads posted as portals post them (curl -u, the
// portals' own headers) and the variants real senders produce; each lead is made once, linked,
// attributed and sourced right, read back with our own SQL from the database file. Repeats in
// flight together, after a restart, and a kill -9 right after a 201 all keep that true; every
// wrong way in answers the same 401.
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CHAVESNAMAO_EXAMPLE, GRUPOZAP_EXAMPLE } from "../../src/modules/inbound/model.ts";
import { hashSecret } from "../../src/security/secrets.ts";
import { ensureBinary, type RunningBinary, startBinary } from "../helpers/binary.ts";
import { parseExposition, sampleValue } from "../metrics/parse.ts";

const dir = mkdtempSync(join(tmpdir(), "pa-inbound-e2e-"));
const METRICS_TOKEN = "metrics-token-for-the-inbound-e2e";
const ZAP = { user: "vivareal", password: "secret-chosen-in-canal-pro-e2e" };
const CNM = { user: "contato@imobiliaria.example", password: "token-issued-by-chaves-na-mao-e2e" };
let binary: string;
let db: string;
let config: string;
let server: RunningBinary;

const start = () =>
  startBinary(binary, ["serve", "--config", config, "--host", "127.0.0.1"], dir, {}, { captureStdout: true });

/** curl as a portal runs it: -u user:password, a JSON body, the status and body back. */
function curl(
  clientId: string,
  credentials: { user: string; password: string },
  body: unknown,
  headers: string[] = [],
): { status: number; body: any } {
  const file = join(dir, `body-${Math.random().toString(36).slice(2)}.json`);
  // A string is the body's exact text (numbers JavaScript cannot hold).
  writeFileSync(file, typeof body === "string" ? body : JSON.stringify(body));
  const result = Bun.spawnSync(
    [
      "curl",
      "-sS",
      "-w",
      "\n%{http_code}",
      "-u",
      `${credentials.user}:${credentials.password}`,
      ...headers.flatMap((h) => ["-H", h]),
      "--data-binary",
      `@${file}`,
      `${server.url}/v1/inbound/${clientId}`,
    ],
    { stdout: "pipe", stderr: "pipe" },
  );
  if (result.exitCode !== 0) throw new Error(result.stderr.toString());
  const text = result.stdout.toString();
  const at = text.lastIndexOf("\n");
  return { status: Number(text.slice(at + 1)), body: JSON.parse(text.slice(0, at)) };
}
const postZap = (body: unknown) =>
  curl("zap", ZAP, body, ["Content-Type: application/json", "User-Agent: olx-group-api"]);
const postCnm = (body: unknown) =>
  curl("cnm", CNM, body, ["Content-Type: application/json", "User-Agent: chavesnamao-leads-api"]);

/** Our own reading of the database file: a connection of this test, our SQL. */
function stored(sql: string, ...params: (string | number)[]): any[] {
  const reader = new Database(db, { readonly: true });
  try {
    return reader.query(sql).all(...params);
  } finally {
    reader.close();
  }
}
const leadById = (id: string) => stored("SELECT * FROM leads WHERE id = ?", id)[0];
const leadsWithOrigin = (client: string, origin: string) =>
  stored("SELECT id FROM leads WHERE created_by = ? AND origin_lead_id = ?", client, origin);

beforeAll(async () => {
  binary = ensureBinary();
  db = join(dir, "agency.sqlite");
  const seeded = Bun.spawnSync([binary, "seed", "--out", db, "--properties", "300", "--leads", "100"], { cwd: dir });
  if (seeded.exitCode !== 0) throw new Error(seeded.stderr.toString());
  const client = (id: string, extra: Record<string, unknown> = {}) => ({
    id,
    apiKey: `pk_live_${id}_e2e_key`,
    secretHash: hashSecret(`sk_live_${id}_e2e`),
    database: "agency",
    rateLimitPerMinute: 100_000,
    ...extra,
  });
  config = join(dir, "config.json");
  writeFileSync(
    config,
    JSON.stringify({
      environment: "production",
      jwtSecret: "a-jwt-secret-long-enough-for-the-inbound-e2e-test",
      databases: { agency: db },
      metrics: { token: METRICS_TOKEN },
      // The test's requests come from 127.0.0.1 and name their address in X-Forwarded-For, so
      // each 401 below spends the failed-auth allowance of an address of its own.
      trustedProxies: ["127.0.0.1"],
      clients: [
        client("zap", { inbound: { format: "grupozap", username: ZAP.user, passwordHash: hashSecret(ZAP.password) } }),
        client("cnm", { inbound: { format: "chavesnamao", passwordHash: hashSecret(CNM.password) } }),
        client("crm", { scopes: ["leads:read", "leads:update"] }),
      ],
    }),
  );
  server = await start();
}, 120_000);

afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("the portals' published payloads, as portals post them", () => {
  test("Grupo ZAP's example naming a published listing: one lead of zap, linked, source from leadOrigin, priority from temperature", () => {
    const property = stored(
      "SELECT id, code, title FROM properties WHERE is_published = 1 AND code IS NOT NULL ORDER BY id LIMIT 1",
    )[0];
    const { status, body } = postZap({ ...GRUPOZAP_EXAMPLE, clientListingId: property.code });
    expect(status).toBe(201);
    expect(leadById(body.data.id)).toMatchObject({
      name: "Nome Consumidor",
      email: "nome.consumidor@email.com",
      phone: "(11) 999999999",
      source: "PORTAL_OLX",
      priority: "HIGH",
      status: "NEW_LEAD",
      property_id: property.id,
      interested_property_title: property.title,
      created_by: "zap",
      origin_lead_id: GRUPOZAP_EXAMPLE.originLeadId,
      traffic_origin: "Grupo OLX lead 59ee0fc6e4b043e1b2a6d863, listing 87027856",
    });
  });

  test("Chaves na Mão's example as published: one lead of cnm, the ad's title, source PORTAL_CHAVESNAMAO", () => {
    const { status, body } = postCnm(CHAVESNAMAO_EXAMPLE);
    expect(status).toBe(201);
    expect(leadById(body.data.id)).toMatchObject({
      name: "Maria da Silva",
      phone: "11988776655",
      source: "PORTAL_CHAVESNAMAO",
      property_id: null,
      interested_property_title: CHAVESNAMAO_EXAMPLE.ad.title,
      traffic_origin: "Formulário WhatsApp",
      created_by: "cnm",
      origin_lead_id: "12345",
    });
  });

  test("the variants: no e-mail, a null message, an unknown listing, accents and case", () => {
    const cases: [Record<string, unknown>, Record<string, unknown>][] = [
      [
        { originLeadId: "e2e-no-email", email: undefined },
        { email: "", source: "PORTAL_OLX" },
      ],
      [{ originLeadId: "e2e-null-message", message: null }, { message: "" }],
      [
        { originLeadId: "e2e-unknown-listing", clientListingId: "NAO-EXISTE-999" },
        { property_id: null, interested_property_title: null },
      ],
      [
        { originLeadId: "e2e-accents", leadOrigin: "Zap Imóveis", temperature: "MÉDIA" },
        { source: "PORTAL_ZAPIMOVEIS", priority: "MEDIUM" },
      ],
      [
        { originLeadId: "e2e-case", leadOrigin: "VIVAREAL", temperature: "baixa" },
        { source: "PORTAL_VIVAREAL", priority: "LOW" },
      ],
    ];
    for (const [changes, expected] of cases) {
      const { status, body } = postZap({ ...GRUPOZAP_EXAMPLE, ...changes });
      expect({ changes, status }).toEqual({ changes, status: 201 });
      expect(leadById(body.data.id)).toMatchObject({ ...expected, created_by: "zap" });
      expect(leadsWithOrigin("zap", changes.originLeadId as string)).toHaveLength(1);
    }
    const cnm = postCnm({
      ...CHAVESNAMAO_EXAMPLE,
      id: "e2e-cnm-null",
      message: null,
      email: null,
      ad: { ...CHAVESNAMAO_EXAMPLE.ad, reference: null },
    });
    expect(cnm.status).toBe(201);
    expect(leadById(cnm.body.data.id)).toMatchObject({ message: "", email: "", created_by: "cnm" });
  });

  test("the agency's CRM lists them by createdBy", async () => {
    const token = (
      (await (
        await fetch(`${server.url}/v1/auth/token`, {
          method: "POST",
          headers: { "x-api-key": "pk_live_crm_e2e_key", "x-api-secret": "sk_live_crm_e2e" },
        })
      ).json()) as any
    ).data.token;
    const page = (await (
      await fetch(`${server.url}/v1/leads?createdBy=cnm&fields=id,createdBy,source`, {
        headers: { authorization: `Bearer ${token}` },
      })
    ).json()) as any;
    expect(page.meta.total).toBe(stored("SELECT count(*) AS n FROM leads WHERE created_by = 'cnm'")[0].n);
    expect(page.data.every((l: any) => l.createdBy === "cnm" && l.source === "PORTAL_CHAVESNAMAO")).toBe(true);
  });
});

describe("never twice", () => {
  test("20 posts of one lead in flight together: one 201, the rest 200 with its id, one row", async () => {
    const body = JSON.stringify({ ...GRUPOZAP_EXAMPLE, originLeadId: "e2e-parallel" });
    const authorization = `Basic ${btoa(`${ZAP.user}:${ZAP.password}`)}`;
    const answers = await Promise.all(
      Array.from({ length: 20 }, async () => {
        const response = await fetch(`${server.url}/v1/inbound/zap`, {
          method: "POST",
          headers: { authorization, "content-type": "application/json" },
          body,
        });
        return { status: response.status, id: ((await response.json()) as any).data.id as string };
      }),
    );
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 200)).toHaveLength(19);
    expect(new Set(answers.map((a) => a.id)).size).toBe(1);
    expect(leadsWithOrigin("zap", "e2e-parallel").map((l) => l.id)).toEqual([answers[0]!.id]);
  });

  test("portal lead ids past 2^53 are kept as the portal wrote them: …993 then …992 are two leads, each repeat a 200", () => {
    // As JavaScript numbers both are 9007199254740992: the second was taken for a repeat and lost.
    const text = (id: string) => JSON.stringify({ ...CHAVESNAMAO_EXAMPLE, id: "ID" }).replace('"ID"', id);
    const first = postCnm(text("9007199254740993"));
    const second = postCnm(text("9007199254740992"));
    expect([first.status, second.status]).toEqual([201, 201]);
    expect(first.body.data.id).not.toBe(second.body.data.id);
    expect(leadsWithOrigin("cnm", "9007199254740993").map((l) => l.id)).toEqual([first.body.data.id]);
    expect(leadsWithOrigin("cnm", "9007199254740992").map((l) => l.id)).toEqual([second.body.data.id]);
    expect(postCnm(text("9007199254740993"))).toEqual({ status: 200, body: { data: { id: first.body.data.id } } });
    // Grupo ZAP's numeric ids too, in the lead's traffic origin as written.
    const zapText = JSON.stringify({ ...GRUPOZAP_EXAMPLE, originLeadId: "ID", originListingId: "LISTING" })
      .replace('"ID"', "12345678901234567890")
      .replace('"LISTING"', "98765432109876543210");
    const zap = postZap(zapText);
    expect(zap.status).toBe(201);
    expect(leadById(zap.body.data.id).origin_lead_id).toBe("12345678901234567890");
    expect(leadById(zap.body.data.id).traffic_origin).toEndWith(
      "lead 12345678901234567890, listing 98765432109876543210",
    );
  });

  test("a 201 is on disk: kill -9 right after it, the lead is there; after the restart its repeat is a 200, nothing new", async () => {
    const first = postCnm({ ...CHAVESNAMAO_EXAMPLE, id: "e2e-durable" });
    expect(first.status).toBe(201);
    expect(await server.stop("SIGKILL")).not.toBe(0);
    expect(leadsWithOrigin("cnm", "e2e-durable").map((l) => l.id)).toEqual([first.body.data.id]);
    server = await start();
    const count = stored("SELECT count(*) AS n FROM leads")[0].n;
    const again = postCnm({ ...CHAVESNAMAO_EXAMPLE, id: "e2e-durable", message: "reenviado" });
    expect(again).toEqual({ status: 200, body: { data: { id: first.body.data.id } } });
    expect(postZap(GRUPOZAP_EXAMPLE).status).toBe(200);
    expect(stored("SELECT count(*) AS n FROM leads")[0].n).toBe(count);
  }, 60_000);
});

describe("one 401 for every wrong way in", () => {
  test("bad credentials, unknown ids and a client without inbound: the same status, headers and body bytes", async () => {
    const attempts: [string, string | null][] = [
      ["zap", `Basic ${btoa(`${ZAP.user}:wrong`)}`],
      ["zap", `Basic ${btoa(`someone:${ZAP.password}`)}`],
      ["zap", null],
      ["cnm", `Basic ${btoa(`${ZAP.user}:${ZAP.password}`)}`],
      ["nobody", `Basic ${btoa(`${ZAP.user}:${ZAP.password}`)}`],
      ["crm", `Basic ${btoa("pk_live_crm_e2e_key:sk_live_crm_e2e")}`],
    ];
    const seen = [];
    for (const [i, [clientId, authorization]] of attempts.entries()) {
      const response = await fetch(`${server.url}/v1/inbound/${clientId}`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-forwarded-for": `192.0.2.${i + 1}`,
          ...(authorization ? { authorization } : {}),
        },
        body: JSON.stringify(GRUPOZAP_EXAMPLE),
      });
      const headers = Object.fromEntries(
        [...response.headers].filter(([name]) => name !== "x-request-id" && name !== "date"),
      );
      seen.push({ status: response.status, headers, body: await response.text() });
    }
    expect(seen[0]!.status).toBe(401);
    expect(seen[0]!.headers["www-authenticate"]).toBe('Basic realm="partner-api"');
    for (const answer of seen) expect(answer).toEqual(seen[0]!);
  });

  test("/metrics counts the posts by client and outcome; unknown ids under one label", async () => {
    const samples = parseExposition(
      await (await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text(),
    );
    const value = (client: string, outcome: string) =>
      sampleValue(samples, "partner_api_inbound_posts_total", { client, outcome });
    // Since the restart: the repeats (2 duplicates), then the six 401s (zap ×3, cnm, and two ids that take no portal leads).
    expect([
      value("cnm", "duplicate"),
      value("zap", "duplicate"),
      value("zap", "unauthorised"),
      value("cnm", "unauthorised"),
      value("(unknown)", "unauthorised"),
    ]).toEqual([1, 1, 3, 1, 2]);
    const inbound = samples.filter((s) => s.name === "partner_api_inbound_posts_total");
    expect([...new Set(inbound.map((s) => s.labels.client))].sort()).toEqual(["(unknown)", "cnm", "zap"]);
  });
});
