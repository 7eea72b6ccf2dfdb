// The documentation of GET /health (docs/reference/behaviour.md §10), passed on the route as its `detail`.
import { json, route } from "../../docs/operation.ts";
import { errorResponses } from "../../docs/responses.ts";
import { HealthSchema } from "../../docs/schemas.ts";

export const HEALTH_ROUTES = {
  health: route("get", "/health", "Health", ({ version }) => ({
    operationId: "getHealth",
    summary: "Health check",
    description: "Whether the API is up and every configured database can be read. No authentication, no rate limit.",
    access: "public",
    parameters: [],
    responses: {
      "200": json(
        HealthSchema,
        { status: "ok", version, environment: "sandbox", uptimeSeconds: 86400 },
        "The API is online",
        "plain",
      ),
      "503": json(
        HealthSchema,
        { status: "degraded", version, environment: "production", uptimeSeconds: 86400 },
        "A configured database cannot be read",
        "plain",
      ),
      ...errorResponses(["INTERNAL_ERROR"], "plain"),
    },
  })),
};
