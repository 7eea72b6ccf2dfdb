// Who calls the admin API, shared by its routes (index.ts) and the personal-data routes
// (privacy/index.ts): the admin service while the server has an admin (a 404 otherwise, as
// before the console existed), and the signed-in admin or admin API token of a request.

import { ApiError } from "../../errors.ts";
import type { HeaderRecord } from "../../limits/headers.ts";
import { stateOf } from "../../plugins/context.ts";
import { sendJson } from "../../plugins/respond.ts";
import type { Runtime } from "../../runtime.ts";
import { authenticate } from "./guard.ts";
import { AdminService } from "./service.ts";

/** What a handler may set of its answer. */
export type AnswerSet = { headers: Record<string, unknown>; status?: unknown };

export const json = (set: AnswerSet, value: unknown, status = 200) => sendJson(set, JSON.stringify(value), status);

export function adminCaller(runtime: Runtime) {
  let service: AdminService | null = null;
  /** The service while the server has a control database with an admin in it; else a 404. */
  const open = (): AdminService => {
    const control = runtime.control;
    if (control === null || !control.hasAdmins()) throw new ApiError("NOT_FOUND", "No route matches this path");
    if (service === null || service.store !== control) service = new AdminService(runtime, control);
    return service;
  };
  /** The service, the authenticated caller and its address. */
  const who = async (request: Request, set: AnswerSet) => {
    const s = open();
    const state = stateOf(request);
    const actor = await authenticate(runtime, s, request, state, set.headers as HeaderRecord);
    return { s, actor, ip: state.ip };
  };
  return { open, who };
}
