// GET /v1/fields and GET /v1/values: what can be selected and which values filters take.
import { CATALOGS, ENTITY_NAMES, isEntityName, type EntityCatalog } from "../../catalog/index.ts";
import type { Tenant } from "../../db/tenants.ts";
import { ApiError } from "../../errors.ts";
import { listingFor } from "../listing/service.ts";

function describe(catalog: EntityCatalog) {
  return Object.fromEntries(
    catalog.fields.map((f) => [
      f.name,
      f.fields
        ? {
            description: f.description,
            fields: Object.fromEntries(Object.entries(f.fields).map(([k, s]) => [k, { description: s.description }])),
          }
        : { description: f.description },
    ]),
  );
}

/** The body of GET /v1/fields: fixed for a build, so serialised once. */
export const FIELDS_BODY = JSON.stringify({
  data: Object.fromEntries(ENTITY_NAMES.map((e) => [e, describe(CATALOGS[e])])),
});

/** `{ entity, field, values }` for GET /v1/values/{entity}/{field}. */
export function valuesOf(tenant: Tenant, entity: string, field: string) {
  if (!isEntityName(entity)) {
    throw new ApiError("INVALID_ENTITY", `Invalid entity: ${entity}. Use one of: ${ENTITY_NAMES.join(", ")}`);
  }
  const catalog = CATALOGS[entity];
  const spec = catalog.values.find((v) => v.field === field);
  if (spec === undefined) {
    throw new ApiError(
      "INVALID_FIELD",
      `Invalid field: ${field} for entity ${entity}. Queryable fields: ${catalog.values.map((v) => v.field).join(", ")}`,
    );
  }
  const values = spec.values ? [...spec.values] : listingFor(tenant, catalog).repo.distinctValues(spec.column!);
  return { entity, field, values };
}
