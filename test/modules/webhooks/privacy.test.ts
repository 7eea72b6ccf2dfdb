// Address privacy in webhooks (docs/reference/behaviour-extensions.md §16): a property.upserted delivery, made by the real worker
// to a real receiver that verifies it with standardwebhooks, carries what displayAddress hides as
// null for a partner (visibility beside it) and the stored values for a client with fullAddress.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { importFeed } from "../../../src/agency/import.ts";
import { CATALOGS } from "../../../src/catalog/index.ts";
import { CRM_FIXTURES } from "../../agency/crm-helpers.ts";
import { OTHER, PARTNER, type Receiver, startReceiver, type WebhookApp, webhookApp } from "./helpers.ts";

const ALL_FIELDS = CATALOGS.properties.fields.map((f) => f.name).join(",");
const dir = mkdtempSync(join(tmpdir(), "pa-webhook-privacy-"));
/** The agency's own site: a client configured with fullAddress. */
const AGENCY = { ...OTHER.entry, fullAddress: true };

let app: WebhookApp;
const receivers: Record<"partner" | "agency", Receiver> = { partner: startReceiver(), agency: startReceiver() };
/** The delivered records of each client, by listing code. */
const delivered: Record<"partner" | "agency", Map<string, any>> = { partner: new Map(), agency: new Map() };

beforeAll(async () => {
  // An empty agency database, served; the subscriptions come first, then the CRM's feed lands in it.
  const db = join(dir, "agency.sqlite");
  expect(await importFeed(db, join(CRM_FIXTURES, "structure/empty-feed.xml"))).toMatchObject({ created: 0 });
  app = await webhookApp({ databases: { main: db }, clients: [PARTNER.entry, AGENCY] });
  const secrets: Record<string, string> = {};
  for (const [who, token] of [
    ["partner", app.partner],
    ["agency", app.other],
  ] as const) {
    const { status, body } = await app.call(
      "POST",
      "/v1/webhooks",
      { url: receivers[who].url, events: ["property.upserted"] },
      token,
    );
    expect(status).toBe(201);
    secrets[who] = body.data.secret;
  }
  const summary = await importFeed(db, join(CRM_FIXTURES, "crm/address.xml"));
  expect(summary).toMatchObject({ rejected: 0 });
  await app.deliver();
  for (const who of ["partner", "agency"] as const) {
    const payloads = receivers[who].verifyAll(secrets[who]!) as any[];
    expect(payloads.map((p) => p.type)).toEqual(Array.from({ length: summary.created }, () => "property.upserted"));
    for (const payload of payloads) delivered[who].set(payload.data.record.code, payload.data.record);
  }
});

afterAll(() => {
  app?.close();
  for (const receiver of Object.values(receivers)) receiver.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("a partner's deliveries hide what displayAddress hides", () => {
  test("Neighborhood: street, number, complement and both coordinates null; Street: number and complement null, coordinates to 3 decimals", () => {
    const { partner } = delivered;
    expect(partner.get("A-NEIGHBORHOOD")!.address).toEqual({
      street: null,
      number: null,
      complement: null,
      neighborhood: "Cambuí",
      city: "Campinas",
      state: "São Paulo",
      uf: "SP",
      cep: "13025-001",
      visibility: "NEIGHBORHOOD",
    });
    expect(partner.get("A-NEIGHBORHOOD")!.coordinates).toEqual({ latitude: null, longitude: null });
    expect(partner.get("A-STREET")!.address).toEqual({
      street: "Rua Conde de Bonfim",
      number: null,
      complement: null,
      neighborhood: "Tijuca",
      city: "Rio de Janeiro",
      state: "Rio de Janeiro",
      uf: "RJ",
      cep: "20520-050",
      visibility: "STREET",
    });
    expect(partner.get("A-STREET")!.coordinates).toEqual({ latitude: -22.925, longitude: -43.232 });
    expect(partner.get("A-ALL")!.address).toMatchObject({ number: "2120", complement: "Apto 71", visibility: "ALL" });
    expect(partner.get("A-ALL")!.coordinates).toEqual({ latitude: -23.602134, longitude: -46.665281 });
  });

  test("every delivered record carries visibility", () => {
    expect(delivered.partner.size).toBeGreaterThan(3);
    for (const record of delivered.partner.values())
      expect(["ALL", "STREET", "NEIGHBORHOOD"]).toContain(record.address.visibility);
  });

  test("a hidden value is nowhere in what the partner's receiver got, headers included", () => {
    const hidden = [
      "Rua Coronel Quirino",
      '"1000"',
      "-22.8935",
      "-47.0515",
      '"500"',
      "Casa 2",
      "-22.924567",
      "-43.232198",
      '"400"',
    ];
    const everything = JSON.stringify(receivers.partner.received);
    for (const value of hidden) expect({ value, found: everything.includes(value) }).toEqual({ value, found: false });
  });
});

describe("a client with fullAddress gets the stored values", () => {
  test("the hidden parts and the exact coordinates, visibility beside them", () => {
    const { agency } = delivered;
    expect(agency.get("A-NEIGHBORHOOD")!.address).toEqual({
      street: "Rua Coronel Quirino",
      number: "1000",
      complement: null,
      neighborhood: "Cambuí",
      city: "Campinas",
      state: "São Paulo",
      uf: "SP",
      cep: "13025-001",
      visibility: "NEIGHBORHOOD",
    });
    expect(agency.get("A-NEIGHBORHOOD")!.coordinates).toEqual({ latitude: -22.8935, longitude: -47.0515 });
    expect(agency.get("A-STREET")!.address).toMatchObject({
      number: "500",
      complement: "Casa 2",
      visibility: "STREET",
    });
    expect(agency.get("A-STREET")!.coordinates).toEqual({ latitude: -22.924567, longitude: -43.232198 });
  });
});

describe("each client's delivery is what GET /v1/properties/{id} answers that client", () => {
  test("for every listing, partner and agency alike", async () => {
    for (const [who, token] of [
      ["partner", app.partner],
      ["agency", app.other],
    ] as const) {
      for (const record of delivered[who].values()) {
        const { status, body } = await app.call(
          "GET",
          `/v1/properties/${record.id}?fields=${ALL_FIELDS}`,
          undefined,
          token,
        );
        expect(status).toBe(200);
        expect(record).toEqual(body.data);
      }
    }
  });
});
