// POST /v1/inbound/{clientId}: the portals' published example payloads and the variants real
// senders produce, each checked against our own reading of the database file: one lead,
// linked, attributed to the client and sourced right (docs/operators/portal-leads.md).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import pino from "pino";
import { CHAVESNAMAO_EXAMPLE, GRUPOZAP_EXAMPLE } from "../../../src/modules/inbound/model.ts";
import { createTestApp, read, type TestApp } from "../../helpers/app.ts";
import { CNM_AUTH, cnm, crm, DatabaseFile, ZAP_AUTH, zap } from "./helpers.ts";

let t: TestApp;
let file: DatabaseFile;
let crmToken: string;
const logLines: string[] = [];

beforeAll(async () => {
  t = createTestApp({
    clients: [zap.entry, cnm.entry, crm.entry],
    logger: pino({ level: "info", base: undefined }, { write: (line: string) => void logLines.push(line) }),
  });
  file = new DatabaseFile(t.runtime.config.databases.get("main")!);
  crmToken = await t.token(crm);
});
afterAll(() => {
  file.close();
  t.close();
});

let nextId = 1;
/** A fresh portal lead id, so each test's post is a new lead. */
const fresh = (prefix: string) => `${prefix}-${nextId++}-${Math.random().toString(36).slice(2, 8)}`;

function post(
  clientId: string,
  authorization: string,
  body: unknown,
  headers: Record<string, string> = { "content-type": "application/json" },
) {
  return t.request(`/v1/inbound/${clientId}`, {
    method: "POST",
    headers: { authorization, ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}
const postZap = (body: unknown, headers?: Record<string, string>) => post("zap", ZAP_AUTH, body, headers);
const postCnm = (body: unknown, headers?: Record<string, string>) => post("cnm", CNM_AUTH, body, headers);

/** Posts and expects a new lead: 201 `{ data: { id } }`; returns the lead as stored. */
async function created(response: Response) {
  const { status, body, headers } = await read(response);
  expect({ status, keys: Object.keys(body), dataKeys: Object.keys(body.data ?? {}) }).toEqual({
    status: 201,
    keys: ["data"],
    dataKeys: ["id"],
  });
  expect(headers.get("content-type")).toBe("application/json; charset=utf-8");
  const stored = file.lead(body.data.id);
  expect(stored).not.toBeNull();
  return stored!;
}

describe("Grupo ZAP's published example", () => {
  test("as published (a listing the agency does not have): one lead of the client, sourced from leadOrigin, unlinked", async () => {
    const before = file.count();
    const lead = await created(await postZap(GRUPOZAP_EXAMPLE));
    expect(file.count()).toBe(before + 1);
    expect(lead).toMatchObject({
      name: "Nome Consumidor",
      email: "nome.consumidor@email.com",
      phone: "(11) 999999999",
      message: "Olá, tenho interesse neste imóvel. Aguardo o contato. Obrigado.",
      source: "PORTAL_OLX",
      status: "NEW_LEAD",
      priority: "HIGH",
      property_id: null,
      interested_property_title: null,
      traffic_origin: "Grupo OLX lead 59ee0fc6e4b043e1b2a6d863, listing 87027856",
      created_by: "zap",
      origin_lead_id: "59ee0fc6e4b043e1b2a6d863",
      created_at: new Date(t.clock.now()).toISOString(),
    });
  });

  test("clientListingId of a published property links it as propertyCode does", async () => {
    const property = file.publishedProperty();
    const lead = await created(
      await postZap({ ...GRUPOZAP_EXAMPLE, originLeadId: fresh("zap"), clientListingId: property.code }),
    );
    expect(lead).toMatchObject({ property_id: property.id, interested_property_title: property.title });
  });

  test("an unpublished property's code links nothing", async () => {
    const hidden = file.unpublishedProperty();
    if (hidden === null) return;
    const lead = await created(
      await postZap({ ...GRUPOZAP_EXAMPLE, originLeadId: fresh("zap"), clientListingId: hidden.code }),
    );
    expect(lead.property_id).toBeNull();
  });

  test("leadOrigin gives the source whatever its case and accents", async () => {
    const cases: [string | null, string][] = [
      ["VivaReal", "PORTAL_VIVAREAL"],
      ["vivareal", "PORTAL_VIVAREAL"],
      ["Viva Real", "PORTAL_VIVAREAL"],
      ["ZAP", "PORTAL_ZAPIMOVEIS"],
      ["Zap Imóveis", "PORTAL_ZAPIMOVEIS"],
      ["ZAP IMOVEIS", "PORTAL_ZAPIMOVEIS"],
      ["zap imóveis", "PORTAL_ZAPIMOVEIS"],
      ["OLX", "PORTAL_OLX"],
      ["Grupo OLX", "PORTAL_OLX"],
      ["grupo olx", "PORTAL_OLX"],
      ["GrupoZap", "PORTAL"],
      ["Imovelweb", "PORTAL"],
      [null, "PORTAL"],
    ];
    for (const [leadOrigin, source] of cases) {
      const lead = await created(await postZap({ ...GRUPOZAP_EXAMPLE, originLeadId: fresh("src"), leadOrigin }));
      expect({ leadOrigin, source: lead.source }).toEqual({ leadOrigin, source });
    }
  });

  test("temperature gives the priority whatever its case and accents; anything else is MEDIUM", async () => {
    const cases: [string | null | undefined, string][] = [
      ["Alta", "HIGH"],
      ["ALTA", "HIGH"],
      ["alta", "HIGH"],
      ["Média", "MEDIUM"],
      ["media", "MEDIUM"],
      ["MÉDIA", "MEDIUM"],
      ["Baixa", "LOW"],
      ["baixa", "LOW"],
      ["Quente", "MEDIUM"],
      [null, "MEDIUM"],
      [undefined, "MEDIUM"],
    ];
    for (const [temperature, priority] of cases) {
      const lead = await created(await postZap({ ...GRUPOZAP_EXAMPLE, originLeadId: fresh("temp"), temperature }));
      expect({ temperature, priority: lead.priority }).toEqual({ temperature, priority });
    }
  });

  test("the variants real senders produce: no e-mail, a null or missing message, a malformed e-mail, numbers for text, no ddd", async () => {
    const noEmail = await created(await postZap({ ...GRUPOZAP_EXAMPLE, originLeadId: fresh("v"), email: undefined }));
    expect(noEmail.email).toBe("");
    const nullMessage = await created(await postZap({ ...GRUPOZAP_EXAMPLE, originLeadId: fresh("v"), message: null }));
    expect(nullMessage.message).toBe("");
    const { message: _, ...withoutMessage } = GRUPOZAP_EXAMPLE;
    expect((await created(await postZap({ ...withoutMessage, originLeadId: fresh("v") }))).message).toBe("");
    expect(
      (await created(await postZap({ ...GRUPOZAP_EXAMPLE, originLeadId: fresh("v"), email: "nome.consumidor@" })))
        .email,
    ).toBe("");
    const numbers = await created(
      await postZap({ ...GRUPOZAP_EXAMPLE, originLeadId: 987654321, ddd: 21, phone: 987654321 }),
    );
    expect(numbers).toMatchObject({ phone: "(21) 987654321", origin_lead_id: "987654321" });
    const noDdd = await created(
      await postZap({ ...GRUPOZAP_EXAMPLE, originLeadId: fresh("v"), ddd: undefined, phone: "11 98888-7777" }),
    );
    expect(noDdd.phone).toBe("11 98888-7777");
    const onlyDeprecated = await created(
      await postZap({ ...GRUPOZAP_EXAMPLE, originLeadId: fresh("v"), ddd: undefined, phone: undefined }),
    );
    expect(onlyDeprecated.phone).toBe("11999999999");
    const noPhone = await created(
      await postZap({
        ...GRUPOZAP_EXAMPLE,
        originLeadId: fresh("v"),
        ddd: undefined,
        phone: undefined,
        phoneNumber: undefined,
      }),
    );
    expect(noPhone).toMatchObject({ phone: "", email: "nome.consumidor@email.com" });
  });

  test("warnings name what was stored otherwise than sent, without the contact's data", async () => {
    logLines.length = 0;
    const origin = fresh("warn");
    await created(
      await postZap({
        ...GRUPOZAP_EXAMPLE,
        originLeadId: origin,
        email: "maria@",
        message: null,
        temperature: "Morna",
      }),
    );
    const line = logLines.map((l) => JSON.parse(l)).find((l) => l.msg === "portal lead taken with warnings");
    expect(line).toMatchObject({ level: 40, clientId: "zap", originLeadId: origin });
    expect(line.warnings.map((w: { field: string }) => w.field).sort()).toEqual(["email", "message", "temperature"]);
    expect(JSON.stringify(line)).not.toContain("maria@");
  });

  test("text over the limits of POST /v1/leads is cut to them; unknown keys are ignored", async () => {
    const lead = await created(
      await postZap({
        ...GRUPOZAP_EXAMPLE,
        originLeadId: fresh("long"),
        name: "N".repeat(300),
        message: "m".repeat(6000),
        extraData: { leadType: "CONTACT_CHAT" },
        status: "CONVERTED",
        priority: "URGENT",
      }),
    );
    expect([lead.name.length, lead.message.length, lead.status]).toEqual([200, 5000, "NEW_LEAD"]);
    expect(lead.priority).toBe("HIGH");
  });

  test("control characters are removed rather than refused", async () => {
    const lead = await created(
      await postZap({
        ...GRUPOZAP_EXAMPLE,
        originLeadId: fresh("ctl"),
        name: "Ana\u0000 Souza\u0007",
        message: "linha 1\r\nlinha 2",
      }),
    );
    expect([lead.name, lead.message]).toEqual(["Ana Souza", "linha 1\r\nlinha 2"]);
  });
});

describe("Chaves na Mão's published example", () => {
  test("as published: one lead of the client, source PORTAL_CHAVESNAMAO, proposeTypeName as trafficOrigin, the ad's title when nothing links", async () => {
    const lead = await created(await postCnm(CHAVESNAMAO_EXAMPLE));
    expect(lead).toMatchObject({
      name: "Maria da Silva",
      email: "maria.silva@email.com",
      phone: "11988776655",
      message: "Olá, tenho interesse neste imóvel. Gostaria de agendar uma visita.",
      source: "PORTAL_CHAVESNAMAO",
      priority: "MEDIUM",
      property_id: null,
      interested_property_title: "Apartamento 3 Quartos com Suíte - Jardim Paulista",
      interested_property_link: null,
      traffic_origin: "Formulário WhatsApp",
      created_by: "cnm",
      origin_lead_id: "12345",
    });
  });

  test("ad.reference of a published property links it (its title, not the ad's), ad.url is the link", async () => {
    const property = file.publishedProperty(1);
    const url = "https://www.chavesnamao.com.br/imovel/98765";
    const lead = await created(
      await postCnm({
        ...CHAVESNAMAO_EXAMPLE,
        id: fresh("cnm"),
        ad: { ...CHAVESNAMAO_EXAMPLE.ad, reference: property.code, url, value: 850000 },
      }),
    );
    expect(lead).toMatchObject({
      property_id: property.id,
      interested_property_title: property.title,
      interested_property_link: url,
    });
  });

  test("a null message, a null reference, a numeric id, no ad at all, no e-mail", async () => {
    const lead = await created(
      await postCnm({
        ...CHAVESNAMAO_EXAMPLE,
        id: 777001,
        message: null,
        ad: { ...CHAVESNAMAO_EXAMPLE.ad, reference: null },
      }),
    );
    expect(lead).toMatchObject({
      message: "",
      property_id: null,
      origin_lead_id: "777001",
      interested_property_title: CHAVESNAMAO_EXAMPLE.ad.title,
    });
    const bare = await created(await postCnm({ ...CHAVESNAMAO_EXAMPLE, id: fresh("cnm"), ad: null, email: null }));
    expect(bare).toMatchObject({ email: "", property_id: null, interested_property_title: null });
  });
});

describe("Content-Type as portals send it", () => {
  test("JSON under another media type, or none, is read all the same", async () => {
    for (const headers of [
      { "content-type": "text/plain" },
      { "content-type": "application/x-www-form-urlencoded" },
      {} as Record<string, string>,
    ]) {
      await created(await postZap({ ...GRUPOZAP_EXAMPLE, originLeadId: fresh("ct") }, headers));
    }
  });
});

describe("refused only when it cannot be a lead", () => {
  async function refused(response: Response, fields: string[]) {
    const { status, body } = await read(response);
    expect({ status, code: body.code, fields: (body.details ?? []).map((d: { field: string }) => d.field) }).toEqual({
      status: 400,
      code: "VALIDATION_ERROR",
      fields,
    });
  }

  test("no name; neither an e-mail nor a phone: 400 naming the fields, nothing stored", async () => {
    const before = file.count();
    await refused(await postZap({ ...GRUPOZAP_EXAMPLE, originLeadId: fresh("r"), name: "  " }), ["name"]);
    await refused(
      await postZap({
        ...GRUPOZAP_EXAMPLE,
        originLeadId: fresh("r"),
        email: null,
        phone: null,
        phoneNumber: null,
        ddd: null,
      }),
      ["email", "phone"],
    );
    await refused(await postCnm({ ...CHAVESNAMAO_EXAMPLE, id: fresh("r"), name: null, email: "x", phone: "" }), [
      "name",
      "email",
      "phone",
    ]);
    expect(file.count()).toBe(before);
  });

  test("not JSON, or JSON that is not an object: 400 on body; no body: MISSING_BODY", async () => {
    for (const body of ["{not json", "[1,2]", '"text"', "null"]) {
      const { status, body: error } = await read(await postZap(body));
      expect({ body, status, code: error.code, field: error.details?.[0]?.field }).toEqual({
        body,
        status: 400,
        code: "VALIDATION_ERROR",
        field: "body",
      });
    }
    const { status, body } = await read(await postZap(""));
    expect([status, body.code]).toEqual([400, "MISSING_BODY"]);
  });

  test("a body over 64 KiB: 413", async () => {
    const { status, body } = await read(await postZap({ ...GRUPOZAP_EXAMPLE, message: "x".repeat(70_000) }));
    expect([status, body.code]).toEqual([413, "PAYLOAD_TOO_LARGE"]);
  });
});

describe("the lead is the client's, like one made by POST /v1/leads", () => {
  test("the client reads it (createdBy), the CRM lists it by createdBy, another portal does not see it", async () => {
    const origin = fresh("own");
    const lead = await created(await postZap({ ...GRUPOZAP_EXAMPLE, originLeadId: origin }));
    const zapToken = await t.token(zap);
    const own = await read(await t.get(`/v1/leads/${lead.id}?fields=id,createdBy,source,priority`, zapToken));
    expect(own.body.data).toEqual({ id: lead.id, createdBy: "zap", source: "PORTAL_OLX", priority: "HIGH" });
    const listed = await read(await t.get(`/v1/leads?createdBy=zap&fields=id&limit=100&sort=-createdAt`, crmToken));
    expect(listed.body.data.map((l: { id: string }) => l.id)).toContain(lead.id);
    const other = await t.get(`/v1/leads/${lead.id}?fields=id`, await t.token(cnm));
    expect(other.status).toBe(404);
  });

  test("it enters the change feed as the client's", async () => {
    const lead = await created(await postCnm({ ...CHAVESNAMAO_EXAMPLE, id: fresh("feed") }));
    const cnmToken = await t.token(cnm);
    const changes = await read(await t.get(`/v1/changes?entity=leads&limit=100`, cnmToken));
    expect(changes.status).toBe(200);
    expect(changes.body.data.map((c: { id: string }) => c.id)).toContain(lead.id);
  });
});
