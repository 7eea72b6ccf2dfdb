// Address privacy (docs/reference/behaviour-extensions.md §16): what a listing's displayAddress hides is null for partners on
// every route that reads a listing, `visibility` is always present, and a client with
// `fullAddress` reads the stored values. Two clients of one database never see each other's view.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { importFeed } from "../../src/agency/import.ts";
import { createApp } from "../../src/app.ts";
import { PROPERTY_FIELDS } from "../../src/catalog/properties.ts";
import { resolveConfig, validateConfig } from "../../src/config/load.ts";
import { silentLogger } from "../../src/logging.ts";
import { recordReader } from "../../src/modules/webhooks/service.ts";
import { Runtime } from "../../src/runtime.ts";
import { hashSecret, randomToken } from "../../src/security/secrets.ts";
import { CRM_FIXTURES } from "./crm-helpers.ts";
import { tempDir } from "./helpers.ts";

const dir = tempDir();
const db = dir.path("privacy.sqlite");
let runtime: Runtime;
let app: ReturnType<typeof createApp>;
const tokens: Record<string, string> = {};
const ALL_FIELDS = PROPERTY_FIELDS.map((f) => f.name).join(",");

async function get(client: "portal" | "agency", path: string): Promise<{ status: number; body: any }> {
  const response = await app.handle(
    new Request(`http://localhost${path}`, { headers: { Authorization: `Bearer ${tokens[client]}` } }),
  );
  return { status: response.status, body: await response.json() };
}

beforeAll(async () => {
  await importFeed(db, join(CRM_FIXTURES, "crm/address.xml"));
  const client = (id: string, fullAddress?: boolean) => ({
    id,
    apiKey: `pk_live_${id}_key`,
    secretHash: hashSecret(`sk_${id}`),
    database: "agency",
    rateLimitPerMinute: 100_000,
    ...(fullAddress === undefined ? {} : { fullAddress }),
  });
  const config = validateConfig(
    { environment: "production", databases: { agency: db }, clients: [client("portal"), client("agency", true)] },
    "test",
  );
  runtime = new Runtime(resolveConfig(config, { baseDir: dir.path(""), jwtSecret: randomToken(48) }));
  app = createApp({ runtime, logger: silentLogger(), peerAddress: () => "127.0.0.1" });
  for (const id of ["portal", "agency"]) {
    const response = await app.handle(
      new Request("http://localhost/v1/auth/token", {
        method: "POST",
        headers: { "X-API-Key": `pk_live_${id}_key`, "X-API-Secret": `sk_${id}` },
      }),
    );
    tokens[id] = ((await response.json()) as { data: { token: string } }).data.token;
  }
});

afterAll(() => {
  runtime.close();
  dir.cleanup();
});

async function byCode(client: "portal" | "agency", fields = ALL_FIELDS): Promise<Map<string, any>> {
  const { status, body } = await get(client, `/v1/properties?fields=${fields}&limit=100`);
  expect(status).toBe(200);
  return new Map(body.data.map((p: any) => [p.code, p]));
}

describe("lists: partners see what visibility allows", () => {
  test("ALL: every part; STREET: no number, complement, coordinates to 3 decimals; NEIGHBORHOOD: no street or coordinates either", async () => {
    const listed = await byCode("portal");
    expect(listed.get("A-ALL")!.address).toEqual({
      street: "Avenida Ibirapuera",
      number: "2120",
      complement: "Apto 71",
      neighborhood: "Moema",
      city: "São Paulo",
      state: "São Paulo",
      uf: "SP",
      cep: "04028-001",
      visibility: "ALL",
    });
    expect(listed.get("A-ALL")!.coordinates).toEqual({ latitude: -23.602134, longitude: -46.665281 });
    expect(listed.get("A-STREET")!.address).toEqual({
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
    expect(listed.get("A-STREET")!.coordinates).toEqual({ latitude: -22.925, longitude: -43.232 });
    expect(listed.get("A-NEIGHBORHOOD")!.address).toEqual({
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
    expect(listed.get("A-NEIGHBORHOOD")!.coordinates).toEqual({ latitude: null, longitude: null });
  });

  test("a client with fullAddress reads the stored values, visibility beside them", async () => {
    const listed = await byCode("agency");
    expect(listed.get("A-NEIGHBORHOOD")!.address).toMatchObject({
      street: "Rua Coronel Quirino",
      number: "1000",
      visibility: "NEIGHBORHOOD",
    });
    expect(listed.get("A-NEIGHBORHOOD")!.coordinates).toEqual({ latitude: -22.8935, longitude: -47.0515 });
    expect(listed.get("A-STREET")!.coordinates).toEqual({ latitude: -22.924567, longitude: -43.232198 });
  });

  test("the same query asked by both clients, in either order, answers each its own view (the page cache keys on it)", async () => {
    const path = `/v1/properties?fields=code,address,coordinates&code=A-NEIGHBORHOOD`;
    for (let round = 0; round < 2; round++) {
      const portal = await get("portal", path);
      const agency = await get("agency", path);
      expect(portal.body.data[0].address.street).toBeNull();
      expect(agency.body.data[0].address.street).toBe("Rua Coronel Quirino");
    }
  });

  test("visibility is always present in the address group", async () => {
    for (const [, property] of await byCode("portal", "address"))
      expect(["ALL", "STREET", "NEIGHBORHOOD"]).toContain(property.address.visibility);
  });
});

describe("single records: the same rule", () => {
  test("GET /v1/properties/{id} hides for partners and shows for fullAddress, exactly as the list does", async () => {
    const agencyView = await byCode("agency");
    const portalView = await byCode("portal");
    for (const code of ["A-ALL", "A-STREET", "A-NEIGHBORHOOD"]) {
      const id = agencyView.get(code)!.id;
      expect((await get("portal", `/v1/properties/${id}?fields=${ALL_FIELDS}`)).body.data).toEqual(
        portalView.get(code),
      );
      expect((await get("agency", `/v1/properties/${id}?fields=${ALL_FIELDS}`)).body.data).toEqual(
        agencyView.get(code),
      );
    }
  });
});

describe("webhook deliveries carry the record exactly as the subscribing client reads it", () => {
  test("the record reader answers each client what GET /v1/properties/{id} answers it", async () => {
    const reader = recordReader(runtime);
    const tenant = runtime.tenants.get(db)!;
    const id = (await byCode("agency")).get("A-NEIGHBORHOOD")!.id;
    for (const client of ["portal", "agency"] as const) {
      const delivered = JSON.parse(reader(tenant, client, "properties", id)!);
      expect(delivered).toEqual((await get(client, `/v1/properties/${id}?fields=${ALL_FIELDS}`)).body.data);
    }
    expect(JSON.parse(reader(tenant, "portal", "properties", id)!).address.street).toBeNull();
    expect(JSON.parse(reader(tenant, "agency", "properties", id)!).address.street).toBe("Rua Coronel Quirino");
  });
});

describe("the change feed carries no content", () => {
  test("an event names the record; its content is read through the routes above", async () => {
    const { body } = await get("portal", "/v1/changes?entity=properties&limit=1");
    expect(Object.keys(body.data[0]).sort()).toEqual(["at", "change", "entity", "id", "sequence"]);
  });
});

describe("fields and documentation", () => {
  test("/v1/fields lists amenities and address.visibility", async () => {
    const { body } = await get("portal", "/v1/fields");
    expect(body.data.properties.amenities.description).toContain("Features");
    expect(body.data.properties.address.fields.visibility.description).toContain("STREET");
  });
});
