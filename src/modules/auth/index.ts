// POST /v1/auth/token: API key and secret headers in, a one-hour bearer token out.
import { Elysia } from "elysia";
import { writeAuthRateLimitHeaders, type HeaderRecord } from "../../limits/headers.ts";
import { stateOf } from "../../plugins/context.ts";
import { failAuthentication, refuseThrottledAddress } from "../../plugins/guard.ts";
import { sendJson } from "../../plugins/respond.ts";
import { settle } from "../../maybe.ts";
import type { Runtime } from "../../runtime.ts";
import { issueToken } from "./service.ts";

export function authModule(runtime: Runtime) {
  return new Elysia({ name: "auth" }).post(
    "/v1/auth/token",
    ({ request, set }) => {
      const state = stateOf(request);
      const headers = set.headers as HeaderRecord;
      headers["cache-control"] = "no-store";
      const ip = state.ip ?? "unknown";
      return settle(refuseThrottledAddress(runtime, state.ip, headers), () => {
        const result = issueToken(runtime, request.headers.get("x-api-key"), request.headers.get("x-api-secret"), state.ip);
        if (!result.ok) return failAuthentication(runtime, state.ip, headers, result.code);
        state.clientId = result.clientId;
        return settle(runtime.authStanding(ip), (standing) => {
          writeAuthRateLimitHeaders(headers, standing);
          return sendJson(
            set,
            `{"data":{"token":${JSON.stringify(result.token)},"expiresIn":${result.expiresIn},"tokenType":"Bearer"}}`,
          );
        });
      });
    },
    { parse: "none", detail: { summary: "Obtain a bearer token", tags: ["Authentication"] } },
  );
}
