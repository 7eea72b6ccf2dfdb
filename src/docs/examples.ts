// The OpenAPI document's examples come from the sandbox dataset: these are the requests that
// produced them, and sandbox-examples.json holds what the sandbox answered (a test re-runs the
// requests on a fresh sandbox and fails when the two drift apart).

import { CATALOGS } from "../catalog/index.ts";
import captured from "./sandbox-examples.json" with { type: "json" };

/** The dataset the examples were captured from: `partner-api sandbox` with its defaults. */
export const EXAMPLE_DATASET = { seed: 42, properties: 1000, leads: 5000, asOf: "2026-01-01T00:00:00.000Z" } as const;

// The same values as src/cli/sandbox.ts (a test keeps them equal): importing the CLI from here
// would make a cycle through the app.
export const SANDBOX_API_KEY = "pk_sandbox_demo";
export const SANDBOX_API_SECRET = "sk_sandbox_demo";

/**
 * The sandbox's two clients that take portal leads (docs/operators/portal-leads.md), one per
 * format, posted to with the published sandbox secret as the Basic auth password.
 */
export const SANDBOX_INBOUND = {
  grupozap: { clientId: "sandbox-grupozap", username: "vivareal" },
  chavesnamao: { clientId: "sandbox-chavesnamao", username: null },
} as const;

const allFields = (entity: "properties" | "leads") => CATALOGS[entity].fields.map((f) => f.name).join(",");

/** Query strings of the example requests; record ids come from the first item of each page. */
export const EXAMPLE_QUERIES = {
  propertyPage: "fields=id,code,title,operationType,status,propertyType,highlight,pricing,createdAt,updatedAt&limit=2",
  property: `fields=${allFields("properties")}`,
  leadPage: "fields=id,name,email,phone,source,status,priority,propertyId,interestedPropertyTitle,createdAt&limit=2",
  lead: `fields=${allFields("leads")}`,
  values: { entity: "properties", field: "propertyType" },
  /** What a website's search page asks beside its list: counts by neighbourhood and bedrooms of flats for sale. */
  facets:
    "facets=neighborhood,bedrooms&city=S%C3%A3o%20Paulo&operationType=SALE&propertyType=Apartamento&maxPrice=1200000",
  changes: "entity=properties&after=0&limit=2",
} as const;

/** An Idempotency-Key as a partner's form might send it. */
export const EXAMPLE_IDEMPOTENCY_KEY = "lead-form-2026-01-05-7731";

/** The lead creation example: a fictitious contact about the first example property. */
export function leadRequestExample(propertyCode: string) {
  return {
    name: "Maria Oliveira",
    email: "maria.oliveira@example.com",
    phone: "+55 11 98765-4321",
    message: "Olá! Gostaria de agendar uma visita a este imóvel.",
    source: "WEBSITE",
    propertyCode,
    trafficOrigin: "utm_source=google&utm_campaign=verao",
  };
}

/** The funnel example: the CRM scheduled a visit. */
export const LEAD_PATCH_EXAMPLE = { status: "VISIT_SCHEDULED", priority: "HIGH" } as const;

type Json = Record<string, unknown>;

export interface SandboxExamples {
  propertyPage: { data: Json[]; meta: Json };
  property: { data: Json };
  leadPage: { data: Json[]; meta: Json };
  lead: { data: Json };
  values: { data: { entity: string; field: string; values: string[] } };
  facets: { data: { total: number; facets: Record<string, { value: string; count: number }[]> } };
  changes: { data: Json[]; meta: Json };
  token: { data: { token: string; expiresIn: number; tokenType: string } };
  createdLead: { data: Json };
  updatedLead: { data: Json };
}

export const SANDBOX_EXAMPLES = captured as unknown as SandboxExamples;

/** The first example property that has a code (the sandbox leaves a few without one). */
export function exampleProperty(examples: SandboxExamples): { id: string; code: string } {
  const found = examples.propertyPage.data.find((p) => typeof p.code === "string")!;
  return { id: found.id as string, code: found.code as string };
}
