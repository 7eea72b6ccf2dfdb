// POST /v1/inbound/{clientId}: leads as portals post them by themselves, with HTTP Basic auth,
// in their own JSON (docs/operators/portal-leads.md). 201 once a new lead is on disk, 200 with
// the same id for a repeat of a portal lead id; portals retry anything else.
import { Elysia } from "elysia";
import type { RuntimeConfig } from "../../config/model.ts";
import { ApiError } from "../../errors.ts";
import type { Logger } from "../../logging.ts";
import type { MetricsRegistry } from "../../metrics/registry.ts";
import { CLIENT_CLOSED_REQUEST } from "../../metrics/requests.ts";
import { readJsonObject } from "../../plugins/body.ts";
import { stateOf } from "../../plugins/context.ts";
import { guard } from "../../plugins/guard.ts";
import { sendJson } from "../../plugins/respond.ts";
import type { Runtime } from "../../runtime.ts";
import { InboundMetrics, type InboundOutcome, NOT_AN_INBOUND_CLIENT } from "./metrics.ts";
import { INBOUND_ROUTES } from "./openapi.ts";
import { receivePortalLead } from "./service.ts";

export const INBOUND_PATH = INBOUND_ROUTES.post.path;

/** The configured ids that take portal leads. */
function* inboundClients(config: RuntimeConfig): Iterable<string> {
  for (const client of config.clients.values()) if (client.inbound !== null) yield client.id;
}

function outcomeOf(status: number, authenticated: boolean): InboundOutcome | null {
  if (!authenticated) return "unauthorised";
  if (status === 201) return "created";
  if (status === 200) return "duplicate";
  if (status === CLIENT_CLOSED_REQUEST) return null; // nobody heard an answer: the portal will send it again
  return status >= 500 ? "failed" : "refused";
}

export function inboundModule(runtime: Runtime, deps: { metrics: MetricsRegistry; logger: Logger }) {
  const metrics = new InboundMetrics(deps.metrics.registry, () => inboundClients(runtime.config));
  const { logger } = deps;
  return new Elysia({ name: "inbound" })
    .use(guard(runtime))
    .onAfterResponse(({ request, set, params, responseValue }) => {
      const state = stateOf(request);
      if (state === undefined) return;
      const status =
        state.errorStatus ?? (responseValue instanceof Response ? responseValue.status : Number(set.status) || 200);
      // The guard names the client only once its credentials were right.
      const authenticated = state.clientId !== undefined;
      const outcome = outcomeOf(status, authenticated);
      if (outcome === null) return;
      const id = (params as Record<string, string | undefined>).clientId ?? "";
      const label = runtime.config.clients.get(id)?.inbound != null ? id : NOT_AN_INBOUND_CLIENT;
      metrics.posted(label, outcome);
      // The right password from an address off the client's list: a portal that moved, or a
      // stolen password. The caller got the same 401 as any other; the operator must know.
      if (state.refusedFor === "address") {
        logger.warn(
          { reqId: state.requestId, clientId: id, ip: state.ip },
          "portal lead post with the right credentials from an address off the client's ipWhitelist: answered 401",
        );
      }
    })
    .post(
      INBOUND_PATH,
      async ({ request, client, tenant, set }) => {
        const { requestId: reqId } = stateOf(request);
        // A portal's lead id may be a number past 2^53: kept as the portal wrote it, digit for digit.
        const body = await readJsonObject(request, { anyMediaType: true, exactNumbers: true });
        let received: Awaited<ReturnType<typeof receivePortalLead>>;
        try {
          received = await receivePortalLead(tenant, client, body, runtime.clock);
        } catch (error) {
          if (error instanceof ApiError && error.code === "VALIDATION_ERROR") {
            logger.warn(
              { reqId, clientId: client.id, problems: error.details },
              "portal lead refused: it cannot be a lead",
            );
          }
          throw error;
        }
        const { id, created, originLeadId, warnings } = received;
        if (warnings.length > 0)
          logger.warn(
            { reqId, clientId: client.id, leadId: id, originLeadId, warnings },
            "portal lead taken with warnings",
          );
        return sendJson(set, `{"data":{"id":${JSON.stringify(id)}}}`, created ? 201 : 200);
      },
      { inbound: true, parse: "none", detail: INBOUND_ROUTES.post },
    );
}
