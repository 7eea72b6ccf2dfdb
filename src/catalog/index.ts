// Both entities' catalogues by name, and field lookups.
import { LEAD_CATALOG } from "./leads.ts";
import { PROPERTY_CATALOG } from "./properties.ts";
import type { EntityCatalog, FieldSpec } from "./types.ts";

export type EntityName = "properties" | "leads";
export const ENTITY_NAMES: readonly EntityName[] = ["properties", "leads"];
export const CATALOGS: Record<EntityName, EntityCatalog> = { properties: PROPERTY_CATALOG, leads: LEAD_CATALOG };

const byName = new Map<EntityCatalog, Map<string, FieldSpec>>(
  ENTITY_NAMES.map((e) => [CATALOGS[e], new Map(CATALOGS[e].fields.map((f) => [f.name, f]))]),
);

export function fieldByName(catalog: EntityCatalog, name: string): FieldSpec | undefined {
  return byName.get(catalog)!.get(name);
}

export function isEntityName(value: string): value is EntityName {
  return value === "properties" || value === "leads";
}

export type { EntityCatalog, FieldSpec, FilterSpec } from "./types.ts";
