// The documentation of GET /v1/facets/properties, passed on the route as its `detail`.
import { CATALOGS } from "../../catalog/index.ts";
import { exampleProperty } from "../../docs/examples.ts";
import { json, protectedResponses, route } from "../../docs/operation.ts";
import { filterParameters, type Parameter, query, searchParameters } from "../../docs/parameters.ts";
import { FacetsSchema } from "../../docs/schemas.ts";
import { FACETS, MAX_FACET_VALUES } from "../../query/facets.ts";

function facetsParameter(): Parameter {
  return {
    ...query(
      "facets",
      `Comma-separated facet names among ${FACETS.map((f) => `\`${f}\``).join(", ")}: each gets its values' counts, most frequent first, at most ${MAX_FACET_VALUES}; ` +
        "`bedrooms` in the buckets `0`, `1`, `2`, `3`, `4+`. Required",
      { type: "string", minLength: 1 },
      "neighborhood,bedrooms",
    ),
    required: true,
  };
}

export const SEARCH_ROUTES = {
  facets: route("get", "/v1/facets/properties", "Properties", ({ examples }) => {
    const property = exampleProperty(examples);
    const sample = examples.propertyPage.data.find((p) => p.id === property.id)!;
    return {
      operationId: "countPropertyFacets",
      summary: "Count published properties by facet under the list's filters",
      description:
        "What a search page shows beside its list: the number of published properties matching every filter given " +
        "(the filters of `GET /v1/properties`) and, for each facet asked for, how many of them take each value, most " +
        "frequent first. Places and amenities count once whatever their accents and case.",
      access: "bearer",
      parameters: [facetsParameter(), ...filterParameters(CATALOGS.properties, sample), ...searchParameters()],
      responses: protectedResponses(
        { "200": json(FacetsSchema, examples.facets, "The total and the counts", "rateLimited") },
        ["VALIDATION_ERROR", "QUERY_TOO_BROAD", "SERVICE_UNAVAILABLE"],
        { VALIDATION_ERROR: "facets: is required; minPrice: must be a number ≥ 0" },
        "properties:read",
      ),
    };
  }),
};
