// Same seed → byte-identical API output; another seed → different output.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_SEED_OPTIONS, writeSeedDatabase } from "../../src/seed/generator.ts";
import { client, createTestApp } from "../helpers/app.ts";

const dir = mkdtempSync(join(tmpdir(), "pa-seed-api-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ALL_PROPERTY_FIELDS =
  "id,code,title,description,operationType,status,propertyType,highlight,exclusive,isPublished,createdAt,updatedAt,address,coordinates,features,pricing,financing,photos";
const ALL_LEAD_FIELDS =
  "id,name,email,phone,message,source,status,priority,propertyId,interestedPropertyTitle,createdAt,updatedAt";

async function apiOutput(seed: number): Promise<string> {
  const file = join(dir, `seed-${seed}-${Math.random().toString(36).slice(2)}.sqlite`);
  writeSeedDatabase(file, { ...DEFAULT_SEED_OPTIONS, properties: 120, leads: 200, seed });
  const portal = client("portal");
  const app = createTestApp({ clients: [portal.entry], databases: { main: file } });
  const token = await app.token(portal);
  const bodies = await Promise.all([
    app.get(`/v1/properties?fields=${ALL_PROPERTY_FIELDS}&limit=100&page=1`, token).then((r) => r.text()),
    app.get(`/v1/properties?fields=${ALL_PROPERTY_FIELDS}&limit=100&page=2`, token).then((r) => r.text()),
    app.get(`/v1/leads?fields=${ALL_LEAD_FIELDS}&limit=100&page=2`, token).then((r) => r.text()),
    app.get("/v1/changes?entity=properties&limit=1000", token).then((r) => r.text()),
  ]);
  app.close();
  return bodies.join("\n");
}

describe("the seed is deterministic at the API", () => {
  test("two datasets with the same --seed give identical API output", async () => {
    expect(await apiOutput(42)).toBe(await apiOutput(42));
  });

  test("a different seed gives different output", async () => {
    expect(await apiOutput(42)).not.toBe(await apiOutput(43));
  });
});
