// GET /v1/fields and GET /v1/values: what can be selected and which values filters take.
import { CATALOGS, ENTITY_NAMES, type EntityCatalog, isEntityName } from "../../catalog/index.ts";
import type { Tenant } from "../../db/tenants.ts";
import { ApiError, type FieldProblem } from "../../errors.ts";
import { searchValuesOf } from "../../query/facets.ts";
import { listOf } from "../../query/lists.ts";
import { QueryParams } from "../../query/query-params.ts";
import { leadAccessOf, requireScope, type Scope } from "../../security/scopes.ts";

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

/** The values of properties read from every published listing (places, amenities): dear at scale. */
export const SEARCH_VALUE_FIELDS = CATALOGS.properties.values.filter((v) => v.search).map((v) => v.field);

/** A values path's query: `taken`, when the path takes one parameter, else nothing (docs/reference/behaviour.md §8). */
function refuseParameters(params: URLSearchParams, taken: string | null): void {
  const query = new QueryParams(params);
  if (taken !== null) query.take(taken);
  const problems: FieldProblem[] = [];
  query.refuseUnknown(problems);
  if (problems.length > 0) throw ApiError.validation(problems);
}

/**
 * `{ entity, field, values }` for GET /v1/values/{entity}/{field}. Fixed enumerations reveal no
 * record and answer every client; values read from the records need the scope that reads
 * them, and `createdBy` lists only owners of leads the client may read.
 */
export function valuesOf(
  tenant: Tenant,
  client: { id: string; scopes: ReadonlySet<Scope> },
  entity: string,
  field: string,
  params: URLSearchParams = new URLSearchParams(),
) {
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
  // The property values take `city`, which narrows `neighborhood` (searchValuesOf reads it; the
  // document declares it on the entity's one operation); the lead values take nothing.
  const taken = entity === "properties" ? "city" : null;
  if (spec.values) {
    refuseParameters(params, taken);
    return { entity, field, values: [...spec.values] };
  }
  requireScope(client, entity === "leads" ? "leads:read:own" : "properties:read");
  refuseParameters(params, taken);
  if (spec.search) return { entity, field, values: searchValuesOf(tenant, spec.search, params) };
  const access = leadAccessOf(client);
  const stored = listOf(tenant, catalog).repo.distinctValues(spec.column!);
  const values = entity === "leads" && access.kind === "own" ? stored.filter((v) => v === access.clientId) : stored;
  return { entity, field, values };
}
