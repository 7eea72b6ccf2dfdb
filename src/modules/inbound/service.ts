// A portal's lead post, without HTTP: read in the client's format, then created once per portal
// lead id (docs/operators/portal-leads.md).
import type { Clock } from "../../clock.ts";
import type { Client } from "../../config/model.ts";
import type { Tenant } from "../../db/tenants.ts";
import { createPortalLead } from "../leads/service.ts";
import { type InboundWarning, readInboundLead } from "./formats.ts";

export interface Received {
  id: string;
  /** False when the client already had a lead with this portal lead id: nothing was written. */
  created: boolean;
  originLeadId: string | null;
  warnings: InboundWarning[];
}

/** Takes `client`'s portal post; throws VALIDATION_ERROR when it cannot be a lead. Resolves once the lead is on disk. */
export async function receivePortalLead(
  tenant: Tenant,
  client: Client,
  body: Record<string, unknown>,
  clock: Clock,
): Promise<Received> {
  const { input, portal, warnings } = readInboundLead(client.inbound!.format, body);
  const { id, created } = await createPortalLead(tenant, client.id, input, portal, clock);
  return { id, created, originLeadId: portal.originLeadId, warnings };
}
