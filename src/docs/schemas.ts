// TypeBox schemas of every response body, built from the field catalogue and the error table.
// They feed the OpenAPI document, and the tests check real responses against them.
import { Type as T, type TSchema } from "@sinclair/typebox";
import { CATALOGS, ENTITY_NAMES, type EntityCatalog, type FieldSpec } from "../catalog/index.ts";
import { ERRORS, type ErrorCode } from "../errors.ts";

const DateTime = T.String({ format: "date-time" });
const literals = (values: readonly string[], options: object = {}) =>
  T.Union(
    values.map((v) => T.Literal(v)),
    options,
  );

/** A catalogue field's value schema carrying its description, sub-fields described too. */
function fieldSchema(field: FieldSpec): TSchema {
  if (field.fields === undefined) return { ...field.schema, description: field.description };
  const sub = T.Object(
    Object.fromEntries(
      Object.entries(field.fields).map(([name, s]) => [name, { ...s.schema, description: s.description }]),
    ),
    { additionalProperties: false },
  );
  return field.schema.type === "array"
    ? T.Array(sub, { description: field.description })
    : { ...sub, description: field.description };
}

/** A record as the read routes return it: only the requested fields, all optional here. */
export function recordSchema(catalog: EntityCatalog, title: string): TSchema {
  return T.Object(Object.fromEntries(catalog.fields.map((f) => [f.name, T.Optional(fieldSchema(f))])), {
    title,
    additionalProperties: false,
    description: "Only the fields named in `fields`, in the order they were requested",
  });
}

/** A lead with every readable field: what a lead event carries and PATCH answers. */
export const LeadSchema = T.Object(Object.fromEntries(CATALOGS.leads.fields.map((f) => [f.name, fieldSchema(f)])), {
  title: "Lead",
  additionalProperties: false,
});

/** The body of a 201: the lead as the specification lists it, without the `createdBy` the caller knows already. */
export const CreatedLeadSchema = T.Object(
  Object.fromEntries(CATALOGS.leads.fields.filter((f) => f.name !== "createdBy").map((f) => [f.name, fieldSchema(f)])),
  { title: "CreatedLead", additionalProperties: false },
);

/** A property with every readable field: what a property.upserted webhook carries. */
export const PropertySchema = T.Object(
  Object.fromEntries(CATALOGS.properties.fields.map((f) => [f.name, fieldSchema(f)])),
  {
    title: "Property",
    additionalProperties: false,
  },
);

export const PropertyRecordSchema = recordSchema(CATALOGS.properties, "PropertyRecord");
export const LeadRecordSchema = recordSchema(CATALOGS.leads, "LeadRecord");

export const PageMetaSchema = T.Object(
  {
    page: T.Integer({ minimum: 1, description: "The page returned" }),
    limit: T.Integer({ minimum: 1, description: "Page size used" }),
    total: T.Integer({ minimum: 0, description: "Records matching the filters" }),
    totalPages: T.Integer({ minimum: 0, description: "ceil(total / limit); 0 when nothing matches" }),
  },
  { title: "PageMeta", additionalProperties: false },
);

export const pageOf = (item: TSchema) =>
  T.Object({ data: T.Array(item), meta: PageMetaSchema }, { additionalProperties: false });
export const dataOf = (item: TSchema) => T.Object({ data: item }, { additionalProperties: false });

export const HealthSchema = T.Object(
  {
    status: literals(["ok", "degraded"], {
      description: "`degraded` (with 503) when a configured database cannot be read",
    }),
    version: T.String({ description: "Release of the running server" }),
    environment: literals(["sandbox", "production"]),
    uptimeSeconds: T.Integer({ minimum: 0 }),
  },
  { title: "Health", additionalProperties: false },
);

export const TokenSchema = dataOf(
  T.Object(
    {
      token: T.String({ description: "HS256 JWT; send it as `Authorization: Bearer <token>`" }),
      expiresIn: T.Integer({ description: "Seconds until the token expires (3600)" }),
      tokenType: T.Literal("Bearer"),
    },
    { title: "Token", additionalProperties: false },
  ),
);

const FieldInfo = (sub?: Record<string, unknown>) =>
  T.Object(
    sub
      ? {
          description: T.String(),
          fields: T.Object(Object.fromEntries(Object.keys(sub).map((k) => [k, T.Object({ description: T.String() })]))),
        }
      : { description: T.String() },
    { additionalProperties: false },
  );

export const FieldsSchema = dataOf(
  T.Object(
    Object.fromEntries(
      ENTITY_NAMES.map((e) => [
        e,
        T.Object(Object.fromEntries(CATALOGS[e].fields.map((f) => [f.name, FieldInfo(f.fields)])), {
          description: `Selectable fields of ${e}`,
          additionalProperties: false,
        }),
      ]),
    ),
    { title: "FieldCatalogue", additionalProperties: false },
  ),
);

export const FacetsSchema = dataOf(
  T.Object(
    {
      total: T.Integer({ minimum: 0, description: "Published properties matching every filter given" }),
      facets: T.Record(
        T.String(),
        T.Array(T.Object({ value: T.String(), count: T.Integer({ minimum: 1 }) }, { additionalProperties: false }), {
          maxItems: 50,
        }),
        { description: "Each facet asked for: its values under the filters, most frequent first" },
      ),
    },
    { title: "Facets", additionalProperties: false },
  ),
);

export const ChangesSchema = T.Object(
  {
    data: T.Array(
      T.Object(
        {
          sequence: T.Integer({
            minimum: 1,
            description:
              "Grows with every change you may read: properties and leads are numbered apart, and with `leads:read:own` your leads count alone",
          }),
          entity: literals(ENTITY_NAMES),
          id: T.String({ format: "uuid", description: "Id of the changed record" }),
          change: literals(["upsert", "remove"], {
            description: "`upsert`: visible or changed, read it again; `remove`: unpublished or deleted, drop it",
          }),
          at: DateTime,
        },
        { title: "Change", additionalProperties: false },
      ),
    ),
    meta: T.Object(
      {
        after: T.Integer({ minimum: 0, description: "The `after` asked for" }),
        nextAfter: T.Integer({ minimum: 0, description: "Send this as `after` next time" }),
        hasMore: T.Boolean({ description: "True when more changes follow at once" }),
        head: T.Integer({ minimum: 0, description: "Latest sequence of the stream you read of this entity" }),
      },
      { additionalProperties: false },
    ),
  },
  { title: "ChangePage", additionalProperties: false },
);

export const FieldProblemSchema = T.Object(
  { field: T.String(), message: T.String() },
  { title: "FieldProblem", additionalProperties: false },
);

/** The contract's error body, its `code` narrowed to the codes one response can carry. */
export function errorSchema(codes: readonly ErrorCode[]): TSchema {
  const withDetails = codes.includes("VALIDATION_ERROR");
  return T.Object(
    {
      error: T.String({ description: "Readable message" }),
      code: literals(codes, { description: "Programmatic code" }),
      ...(withDetails
        ? {
            details: T.Optional(
              T.Array(FieldProblemSchema, { description: "One entry per failed input (VALIDATION_ERROR)" }),
            ),
          }
        : {}),
    },
    { additionalProperties: false },
  );
}

/** Every code of the error table, grouped by HTTP status. */
export function codesByStatus(codes: readonly ErrorCode[]): Map<number, ErrorCode[]> {
  const groups = new Map<number, ErrorCode[]>();
  for (const code of codes) {
    const status = ERRORS[code].status;
    groups.set(status, [...(groups.get(status) ?? []), code]);
  }
  return new Map([...groups].sort(([a], [b]) => a - b));
}

/** Just enough of an OpenAPI document to say what GET /openapi.json returns. */
export const OpenApiDocumentSchema = T.Object(
  {
    openapi: T.String(),
    info: T.Object({ title: T.String(), version: T.String() }),
    paths: T.Record(T.String(), T.Unknown()),
  },
  { description: "An OpenAPI 3.1 document" },
);
