// The documentation of GET /v1/changes, passed on the route as its `detail`.
import { EXAMPLE_QUERIES } from "../../docs/examples.ts";
import { json, protectedResponses, route } from "../../docs/operation.ts";
import { changesParameters } from "../../docs/parameters.ts";
import { ChangesSchema } from "../../docs/schemas.ts";

export const CHANGES_ROUTES = {
  changes: route("get", "/v1/changes", "Sync", ({ examples }) => ({
    operationId: "listChanges",
    summary: "Read the change feed",
    description:
      "What changed since a sequence number, oldest first. Store `meta.nextAfter` and pass it as `after` next " +
      "time: you miss nothing, and learn of every property unpublished or deleted (`change: remove`). Property " +
      "entries need scope `properties:read`; lead entries carry only the leads you may read (`leads:read:own`: " +
      "yours; `leads:read`: all), and `head` is the last of those.",
    access: "bearer",
    parameters: changesParameters(EXAMPLE_QUERIES.changes),
    responses: protectedResponses(
      { "200": json(ChangesSchema, examples.changes, "A page of changes", "rateLimited") },
      ["VALIDATION_ERROR", "QUERY_TOO_BROAD", "SERVICE_UNAVAILABLE"],
      { VALIDATION_ERROR: "entity: must be one of: properties, leads" },
      "leads:read:own",
    ),
  })),
};
