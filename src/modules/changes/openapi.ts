// The documentation of GET /v1/changes, passed on the route as its `detail`.
import { ENTITY_NAMES } from "../../catalog/index.ts";
import { EXAMPLE_QUERIES } from "../../docs/examples.ts";
import { json, protectedResponses, route } from "../../docs/operation.ts";
import { type Parameter, queryValue } from "../../docs/parameters.ts";
import { ChangesSchema } from "../../docs/schemas.ts";
import { DEFAULT_CHANGES_LIMIT, MAX_CHANGES_LIMIT } from "./service.ts";

function changesParameters(query: string): Parameter[] {
  return [
    {
      name: "entity",
      in: "query",
      required: true,
      description: "Which entity's changes to read",
      schema: { type: "string", enum: [...ENTITY_NAMES] },
      example: queryValue(query, "entity"),
    },
    {
      name: "after",
      in: "query",
      required: false,
      description: "Return changes with a sequence greater than this: the `nextAfter` of your previous call",
      schema: { type: "integer", minimum: 0, default: 0 },
      example: Number(queryValue(query, "after") ?? 0),
    },
    {
      name: "limit",
      in: "query",
      required: false,
      description: `Changes per call, 1 to ${MAX_CHANGES_LIMIT}`,
      schema: { type: "integer", minimum: 1, maximum: MAX_CHANGES_LIMIT, default: DEFAULT_CHANGES_LIMIT },
      example: Number(queryValue(query, "limit") ?? DEFAULT_CHANGES_LIMIT),
    },
  ];
}

export const CHANGES_ROUTES = {
  changes: route("get", "/v1/changes", "Sync", ({ examples }) => ({
    operationId: "listChanges",
    summary: "Read the change feed",
    description:
      "What changed since a sequence number, oldest first. Store `meta.nextAfter` and pass it as `after` next " +
      "time: you miss nothing, and learn of every property unpublished or deleted (`change: remove`). Property " +
      "entries need scope `properties:read`; lead entries carry only the leads you may read (`leads:read:own`: " +
      "yours; `leads:read`: all), and `head` is the last of those. Sequences count only what you may read: properties " +
      "and leads are numbered apart, and with `leads:read:own` your leads are numbered 1, 2, 3… alone.",
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
