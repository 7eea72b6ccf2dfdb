// Runs the example requests of src/docs/examples.ts on a fresh default sandbox and returns
// what it answered. `bun test/docs/capture-examples.ts` rewrites src/docs/sandbox-examples.json
// (after a change to the seed generator or the catalogue); the examples test compares.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  EXAMPLE_QUERIES,
  exampleProperty,
  LEAD_PATCH_EXAMPLE,
  leadRequestExample,
  type SandboxExamples,
} from "../../src/docs/examples.ts";
import { sandboxApp } from "./sandbox.ts";

export async function captureExamples(): Promise<SandboxExamples> {
  const sandbox = sandboxApp();
  try {
    const token = await sandbox.token();
    const get = async (path: string): Promise<any> => {
      const response = await sandbox.request(path, { headers: { authorization: `Bearer ${token}` } });
      if (response.status !== 200) throw new Error(`${path}: ${response.status} ${await response.text()}`);
      return response.json();
    };
    const tokenResponse = await sandbox.request("/v1/auth/token", {
      method: "POST",
      headers: { "x-api-key": "pk_sandbox_demo", "x-api-secret": "sk_sandbox_demo" },
    });
    const propertyPage = await get(`/v1/properties?${EXAMPLE_QUERIES.propertyPage}`);
    const leadPage = await get(`/v1/leads?${EXAMPLE_QUERIES.leadPage}`);
    const partial = { propertyPage, leadPage } as SandboxExamples;
    const property = exampleProperty(partial);
    const leadId = leadPage.data[0].id as string;
    const created = await sandbox.request("/v1/leads", {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify(leadRequestExample(property.code)),
    });
    if (created.status !== 201) throw new Error(`POST /v1/leads: ${created.status} ${await created.text()}`);
    const lead = await get(`/v1/leads/${leadId}?${EXAMPLE_QUERIES.lead}`);
    const updated = await sandbox.request(`/v1/leads/${leadId}`, {
      method: "PATCH",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify(LEAD_PATCH_EXAMPLE),
    });
    if (updated.status !== 200) throw new Error(`PATCH /v1/leads: ${updated.status} ${await updated.text()}`);
    return {
      propertyPage,
      property: await get(`/v1/properties/${property.id}?${EXAMPLE_QUERIES.property}`),
      leadPage,
      lead,
      updatedLead: await updated.json(),
      values: await get(`/v1/values/${EXAMPLE_QUERIES.values.entity}/${EXAMPLE_QUERIES.values.field}`),
      facets: await get(`/v1/facets/properties?${EXAMPLE_QUERIES.facets}`),
      changes: await get(`/v1/changes?${EXAMPLE_QUERIES.changes}`),
      token: await tokenResponse.json(),
      createdLead: await created.json(),
    } as SandboxExamples;
  } finally {
    sandbox.close();
  }
}

if (import.meta.main) {
  const file = join(import.meta.dir, "../../src/docs/sandbox-examples.json");
  writeFileSync(file, JSON.stringify(await captureExamples(), null, 2) + "\n");
  console.log(`wrote ${file}`);
}
