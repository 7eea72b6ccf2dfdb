// The property field catalogue: names, descriptions, SQL and value schemas of every readable field.
import { Type as T } from "@sinclair/typebox";
import { ADDRESS_VISIBILITIES, HIGHLIGHT_TIERS, OPERATION_TYPES, PROPERTY_STATUSES } from "./enums.ts";
import { DateTime, NullableInteger, NullableNumber, NullableString, oneOf } from "./schemas.ts";
import { jsonBool, jsonObject } from "./sql.ts";
import type { EntityCatalog, FieldSpec, SubField } from "./types.ts";

type GroupMember = SubField & { sql: string; partnerSql?: string };

function group(description: string, fields: Record<string, GroupMember>): Omit<FieldSpec, "name"> {
  const sub: Record<string, SubField> = {};
  const sql: Record<string, string> = {};
  const partnerSql: Record<string, string> = {};
  const schemas: Record<string, SubField["schema"]> = {};
  for (const [name, field] of Object.entries(fields)) {
    sub[name] = { description: field.description, schema: field.schema };
    sql[name] = field.sql;
    partnerSql[name] = field.partnerSql ?? field.sql;
    schemas[name] = field.schema;
  }
  const hides = Object.values(fields).some((field) => field.partnerSql !== undefined);
  return {
    description,
    sql: jsonObject(sql),
    ...(hides ? { partnerSql: jsonObject(partnerSql) } : {}),
    schema: T.Object(schemas),
    fields: sub,
  };
}

/**
 * What partners see of the address (docs/reference/behaviour-extensions.md §16): `STREET` hides the number and complement and
 * gives coordinates to 3 decimals (about 100 m); `NEIGHBORHOOD` also hides the street and the
 * coordinates. Clients with `fullAddress` read the stored values.
 */
const shownFrom = (visibility: string, column: string) =>
  `CASE WHEN p.display_address IN (${visibility}) THEN ${column} END`;
/** A coordinate as partners are shown it (map searches compare this too). */
export const shownCoordinate = (column: string) =>
  `CASE p.display_address WHEN 'ALL' THEN ${column} WHEN 'STREET' THEN round(${column}, 3) END`;

const PHOTO_FIELDS = {
  id: { description: "Photo identifier", schema: T.String(), sql: "ph.id" },
  url: { description: "Absolute URL of the image", schema: T.String(), sql: "ph.url" },
  alt: { description: "Alternative text, or null", schema: NullableString, sql: "ph.alt" },
  order: { description: "Position in the gallery, starting at 1", schema: T.Integer(), sql: "ph.position" },
  isMain: {
    description: "True for the cover photo (exactly one per gallery)",
    schema: T.Boolean(),
    sql: jsonBool("ph.is_main"),
  },
};

export const PROPERTY_FIELDS: readonly FieldSpec[] = [
  { name: "id", description: "Unique identifier (UUID)", sql: "p.id", schema: T.String({ format: "uuid" }) },
  {
    name: "code",
    description: "The agency's own code for the listing, or null",
    sql: "p.code",
    schema: NullableString,
  },
  { name: "title", description: "Listing title", sql: "p.title", schema: T.String() },
  { name: "description", description: "Full description", sql: "p.description", schema: T.String() },
  {
    name: "operationType",
    description: `Kind of deal: ${OPERATION_TYPES.join(", ")}`,
    sql: "p.operation_type",
    schema: oneOf(OPERATION_TYPES),
  },
  {
    name: "status",
    description: `Availability: ${PROPERTY_STATUSES.join(", ")}`,
    sql: "p.status",
    schema: oneOf(PROPERTY_STATUSES),
  },
  {
    name: "propertyType",
    description: "Kind of property as free text (e.g. Apartamento, Casa), or null",
    sql: "p.property_type",
    schema: NullableString,
  },
  {
    name: "highlight",
    description: `Publication highlight level (the sandbox uses ${HIGHLIGHT_TIERS.join(", ")})`,
    sql: "p.highlight",
    schema: T.String(),
  },
  {
    name: "exclusive",
    description: "True when the agency holds the listing exclusively",
    sql: jsonBool("p.exclusive"),
    schema: T.Boolean(),
  },
  {
    name: "isPublished",
    description: "Always true: only published properties are exposed",
    sql: jsonBool("p.is_published"),
    schema: T.Boolean(),
  },
  { name: "createdAt", description: "Creation time (ISO 8601, UTC)", sql: "p.created_at", schema: DateTime },
  { name: "updatedAt", description: "Last update time (ISO 8601, UTC)", sql: "p.updated_at", schema: DateTime },
  {
    name: "address",
    ...group("Postal address (sub-fields are strings or null; `visibility` says what the agency lets partners show)", {
      street: {
        description: "Street name; null when `visibility` is NEIGHBORHOOD",
        schema: NullableString,
        sql: "p.street",
        partnerSql: shownFrom("'ALL', 'STREET'", "p.street"),
      },
      number: {
        description: "Street number; null unless `visibility` is ALL",
        schema: NullableString,
        sql: "p.number",
        partnerSql: shownFrom("'ALL'", "p.number"),
      },
      complement: {
        description: "Complement (apartment, block…); null unless `visibility` is ALL",
        schema: NullableString,
        sql: "p.complement",
        partnerSql: shownFrom("'ALL'", "p.complement"),
      },
      neighborhood: { description: "Neighbourhood (bairro)", schema: NullableString, sql: "p.neighborhood" },
      city: { description: "City", schema: NullableString, sql: "p.city" },
      state: { description: "State, full name", schema: NullableString, sql: "p.state" },
      uf: { description: "State abbreviation (UF)", schema: NullableString, sql: "p.uf" },
      cep: { description: "Postal code (CEP), NNNNN-NNN", schema: NullableString, sql: "p.cep" },
      visibility: {
        description:
          "How much of the address the agency lets partners show: ALL; STREET (number and complement hidden, " +
          "coordinates to 3 decimals, about 100 m); NEIGHBORHOOD (street and coordinates hidden too). Hidden values are null",
        schema: oneOf(ADDRESS_VISIBILITIES),
        sql: "p.display_address",
      },
    }),
  },
  {
    name: "coordinates",
    ...group("Geographic position (numbers or null)", {
      latitude: {
        description:
          "Latitude in decimal degrees (3 decimals when the address visibility is STREET, null when NEIGHBORHOOD)",
        schema: NullableNumber,
        sql: "p.latitude",
        partnerSql: shownCoordinate("p.latitude"),
      },
      longitude: {
        description:
          "Longitude in decimal degrees (3 decimals when the address visibility is STREET, null when NEIGHBORHOOD)",
        schema: NullableNumber,
        sql: "p.longitude",
        partnerSql: shownCoordinate("p.longitude"),
      },
    }),
  },
  {
    name: "features",
    ...group("Physical characteristics", {
      totalArea: { description: "Total area in m², or null", schema: NullableNumber, sql: "p.total_area" },
      builtArea: { description: "Built area in m², or null", schema: NullableNumber, sql: "p.built_area" },
      bedrooms: { description: "Bedrooms, or null", schema: NullableInteger, sql: "p.bedrooms" },
      bathrooms: { description: "Bathrooms, or null", schema: NullableInteger, sql: "p.bathrooms" },
      suites: { description: "Suites (bedrooms with a bathroom), or null", schema: NullableInteger, sql: "p.suites" },
      parkingSpaces: { description: "Parking spaces, or null", schema: NullableInteger, sql: "p.parking_spaces" },
      floor: { description: "Floor of the unit, or null", schema: NullableInteger, sql: "p.floor" },
      totalFloors: { description: "Floors of the building, or null", schema: NullableInteger, sql: "p.total_floors" },
      isFurnished: { description: "True when furnished", schema: T.Boolean(), sql: jsonBool("p.is_furnished") },
    }),
  },
  {
    name: "amenities",
    description:
      "Amenities as the agency's feed names them (VRSync Features, e.g. Pool, Gym, Furnished), in feed order; [] when none",
    // Stored as a JSON array text; json(…) keeps it an array inside the record's object.
    sql: "json(p.amenities)",
    schema: T.Array(T.String()),
  },
  {
    name: "pricing",
    ...group("Prices in BRL, plain numbers (null when not applicable)", {
      salePrice: { description: "Sale price", schema: NullableNumber, sql: "p.sale_price" },
      rentalPrice: { description: "Monthly rent", schema: NullableNumber, sql: "p.rental_price" },
      condominiumFee: { description: "Monthly condominium fee", schema: NullableNumber, sql: "p.condominium_fee" },
      iptu: { description: "Annual IPTU (property tax)", schema: NullableNumber, sql: "p.iptu" },
    }),
  },
  {
    name: "financing",
    ...group("Financing conditions", {
      acceptsFinancing: {
        description: "True when the seller accepts bank financing",
        schema: T.Boolean(),
        sql: jsonBool("p.accepts_financing"),
      },
    }),
  },
  {
    name: "photos",
    description: "Photo gallery, ordered by `order`",
    // Read only when requested: a correlated subquery over the photos primary key.
    // json(…) keeps the subquery's result a JSON array rather than text.
    sql:
      "json((SELECT json_group_array(json(o)) FROM " +
      `(SELECT ${jsonObject(Object.fromEntries(Object.entries(PHOTO_FIELDS).map(([k, f]) => [k, f.sql])))} AS o ` +
      "FROM photos ph WHERE ph.property_id = p.id ORDER BY ph.position, ph.id)))",
    schema: T.Array(T.Object(Object.fromEntries(Object.entries(PHOTO_FIELDS).map(([k, f]) => [k, f.schema])))),
    fields: Object.fromEntries(
      Object.entries(PHOTO_FIELDS).map(([k, f]) => [k, { description: f.description, schema: f.schema }]),
    ),
  },
];

export const PROPERTY_CATALOG: EntityCatalog = {
  entity: "properties",
  table: "properties",
  alias: "p",
  visible: "p.is_published = 1",
  searchable: true,
  fields: PROPERTY_FIELDS,
  filters: [
    {
      param: "status",
      column: "p.status",
      description: "Property status",
      values: PROPERTY_STATUSES,
      countColumn: "status",
      dayDimension: "status",
    },
    {
      param: "operationType",
      column: "p.operation_type",
      description: "Kind of deal",
      values: OPERATION_TYPES,
      countColumn: "operation_type",
      dayDimension: "operation_type",
    },
    {
      param: "propertyType",
      column: "p.property_type",
      description: "Kind of property, exact text (see /v1/values/properties/propertyType)",
      countColumn: "property_type",
      dayDimension: "property_type",
    },
    {
      param: "highlight",
      column: "p.highlight",
      description: "Highlight level, exact text (see /v1/values/properties/highlight)",
      countColumn: "highlight",
      dayDimension: "highlight",
    },
    { param: "code", column: "p.code", description: "The agency's code of the listing, exact" },
  ],
  values: [
    { field: "status", values: PROPERTY_STATUSES },
    { field: "operationType", values: OPERATION_TYPES },
    { field: "propertyType", column: "property_type" },
    { field: "highlight", column: "highlight" },
    { field: "city", search: "city" },
    { field: "neighborhood", search: "neighborhood" },
    { field: "uf", search: "uf" },
    { field: "amenities", search: "amenities" },
  ],
  countsTable: "property_counts",
  daysTable: "property_days",
  pairsTable: "property_date_pairs",
};
