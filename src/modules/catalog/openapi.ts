// The documentation of the catalogue's routes, each passed on its route as its `detail`.
// GET /v1/values/{entity}/{field} is documented as one path per entity, each listing only its
// own queryable fields, so a typed client cannot ask for a lead's `propertyType` (one shared
// `field` enum would let it). The route itself is one; an entity outside these is 400 INVALID_ENTITY.
import { Type as T } from "@sinclair/typebox";
import { CATALOGS, ENTITY_NAMES } from "../../catalog/index.ts";
import { json, type Operation, protectedResponses, route } from "../../docs/operation.ts";
import { FieldsSchema } from "../../docs/schemas.ts";
import type { Scope } from "../../security/scopes.ts";
import { FIELDS_BODY } from "./service.ts";

const TAG = "Catalogue";
const capitalised = { properties: "Property", leads: "Lead" } as const;
const SCOPES: Record<(typeof ENTITY_NAMES)[number], Scope> = { properties: "properties:read", leads: "leads:read:own" };

export const CATALOG_ROUTES = {
  fields: route("get", "/v1/fields", TAG, () => ({
    operationId: "listFields",
    summary: "List the selectable fields of properties and leads",
    description:
      "The names accepted by the `fields` parameter, with descriptions; grouped fields list their sub-fields.",
    access: "bearer",
    parameters: [],
    responses: protectedResponses(
      { "200": json(FieldsSchema, JSON.parse(FIELDS_BODY), "The field catalogue", "rateLimited") },
      [],
    ),
  })),
  values: route("get", "/v1/values/:entity/:field", TAG, ({ examples }) =>
    ENTITY_NAMES.map((entity): Operation => {
      const catalog = CATALOGS[entity];
      const fields = catalog.values.map((v) => v.field);
      // The captured example where it is this entity's; else the first enumeration, whole (its answer is fixed).
      const fixed = catalog.values.find((v) => v.values !== undefined)!;
      const example =
        examples.values.data.entity === entity
          ? examples.values
          : { data: { entity, field: fixed.field, values: [...fixed.values!] } };
      const schema = T.Object(
        {
          data: T.Object(
            { entity: T.Literal(entity), field: T.Union(fields.map((f) => T.Literal(f))), values: T.Array(T.String()) },
            { title: `${capitalised[entity]}FieldValues`, additionalProperties: false },
          ),
        },
        { additionalProperties: false },
      );
      const other = ENTITY_NAMES.find((e) => e !== entity)!;
      const foreign = CATALOGS[other].values.map((v) => v.field).find((f) => !fields.includes(f)) ?? "city";
      return {
        path: `/v1/values/${entity}/{field}`,
        operationId: `list${capitalised[entity]}FieldValues`,
        summary: `List the values a filterable field of ${entity} takes`,
        description:
          (entity === "properties"
            ? "Enumerations come back whole, in their documented order, to every client; `propertyType` and `highlight` " +
              "list the distinct values among your published properties, sorted (scope `properties:read`); `city`, " +
              "`neighborhood`, `uf` and `amenities` list each value once whatever its accents and case (its most frequent " +
              "spelling), in Portuguese alphabetical order, and `neighborhood` takes `city` (comma-separated) to narrow it."
            : "Enumerations come back whole, in their documented order, to every client; `createdBy` lists the clients " +
              "whose leads you may read (scope `leads:read:own` or `leads:read`).") +
          " The path's entity is `properties` or `leads` (another answers 400 INVALID_ENTITY); each has its own fields.",
        access: "bearer",
        parameters: [
          {
            name: "field",
            in: "path",
            required: true,
            description: `A queryable field of ${entity}; any other gives 400 INVALID_FIELD`,
            schema: { type: "string", enum: fields },
            example: example.data.field,
          },
          ...(entity === "properties"
            ? [
                {
                  name: "city",
                  in: "query" as const,
                  required: false,
                  description:
                    "For `neighborhood`: comma-separated cities (accents and case ignored) whose neighbourhoods to list; " +
                    "the other fields list all their values with or without it",
                  schema: { type: "string" },
                  example: "São Paulo",
                },
              ]
            : []),
        ],
        responses: protectedResponses(
          { "200": json(schema, example, "The values", "rateLimited") },
          // Places and amenities are read from every listing, in a reader thread: cut at the deadline.
          entity === "properties"
            ? ["INVALID_FIELD", "VALIDATION_ERROR", "QUERY_TOO_BROAD", "SERVICE_UNAVAILABLE"]
            : ["INVALID_FIELD", "VALIDATION_ERROR", "SERVICE_UNAVAILABLE"],
          {
            INVALID_FIELD: `Invalid field: ${foreign} for entity ${entity}. Queryable fields: ${fields.join(", ")}`,
            VALIDATION_ERROR: entity === "properties" ? "cidade: unknown parameter" : "city: unknown parameter",
          },
          // Values read from the records need the scope that reads them (fixed enumerations do not).
          SCOPES[entity],
        ),
      };
    }),
  ),
};
