// The documentation of the property routes, each passed on its route as its `detail`.
import { CATALOGS } from "../../catalog/index.ts";
import { EXAMPLE_QUERIES, exampleProperty } from "../../docs/examples.ts";
import { json, protectedResponses, route } from "../../docs/operation.ts";
import { fieldsParameter, idParameter, listParameters } from "../../docs/parameters.ts";
import { listMessages, recordMessages } from "../../docs/responses.ts";
import { dataOf, PropertyRecordSchema, pageOf } from "../../docs/schemas.ts";

const TAG = "Properties";

export const PROPERTY_ROUTES = {
  list: route("get", "/v1/properties", TAG, ({ examples }) => {
    const property = exampleProperty(examples);
    const sample = examples.propertyPage.data.find((p) => p.id === property.id)!;
    return {
      operationId: "listProperties",
      summary: "List published properties",
      description:
        "A page of published properties with only the fields you ask for. Use `updatedAfter` for incremental sync, " +
        "or the change feed (`GET /v1/changes`) to also learn of properties taken down. The search filters (places, price, " +
        "rooms, area, amenities, flags, words, a box or a radius on the map) combine with every other filter and apply " +
        "before paging and to `total`; they see only what you are shown of an address.",
      access: "bearer",
      parameters: listParameters(CATALOGS.properties, EXAMPLE_QUERIES.propertyPage, sample),
      responses: protectedResponses(
        { "200": json(pageOf(PropertyRecordSchema), examples.propertyPage, "A page of properties", "rateLimited") },
        ["VALIDATION_ERROR", "INVALID_FIELDS", "QUERY_TOO_BROAD", "SERVICE_UNAVAILABLE"],
        listMessages("bedrooms", "bedrooms: unknown parameter; did you mean minBedrooms?"),
        "properties:read",
      ),
    };
  }),
  get: route("get", "/v1/properties/:id", TAG, ({ examples }) => ({
    operationId: "getProperty",
    summary: "Get one published property",
    description:
      "One published property of yours; an unknown id, an unpublished property or another agency's is a 404.",
    access: "bearer",
    parameters: [
      idParameter("property", exampleProperty(examples).id),
      fieldsParameter(CATALOGS.properties, EXAMPLE_QUERIES.property.slice("fields=".length)),
    ],
    responses: protectedResponses(
      { "200": json(dataOf(PropertyRecordSchema), examples.property, "The property", "rateLimited") },
      ["VALIDATION_ERROR", "INVALID_FIELDS", "NOT_FOUND", "SERVICE_UNAVAILABLE"],
      recordMessages("property", "bedrooms"),
      "properties:read",
    ),
  })),
};
