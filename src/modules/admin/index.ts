// The admin API under /admin/v1 (docs/operators/console.md) and its OpenAPI document at
// /admin/openapi.json. A server whose control database holds no admin answers 404 to all of it,
// as before the console existed.
import { Elysia } from "elysia";
import { requestOrigin } from "../../docs/origin.ts";
import { ApiError } from "../../errors.ts";
import { readJsonObject } from "../../plugins/body.ts";
import { stateOf } from "../../plugins/context.ts";
import type { Runtime } from "../../runtime.ts";
import { type AnswerSet, adminCaller, json } from "./caller.ts";
import { decideGuardedRun, feedRuns, listFeeds, runFeedNow } from "./feeds.ts";
import { CLEARED_COOKIE, requireSecureChannel, sessionCookie } from "./guard.ts";
import { ADMIN_PREFIX, adminOpenApiDocument } from "./openapi.ts";
import { createPartner, deletePartner, getPartner, listPartners, rotateSecret, updatePartner } from "./partners.ts";
import { requireRole } from "./service.ts";
import { leadOrigins, partnerUsage, portalFeedDownloads, requestLog } from "./usage.ts";
import {
  listSubscriptions,
  sendDeliveryAgain,
  sendFailedAgain,
  setSubscriptionEnabled,
  subscriptionDeliveries,
} from "./webhooks.ts";

export function adminModule(runtime: Runtime) {
  const { open, who } = adminCaller(runtime);
  /** What a step of set-up or sign-in starts with: never cached, over a secure channel, its JSON body read. */
  const credentialsStep = async (request: Request, set: AnswerSet) => {
    const s = open();
    const state = stateOf(request);
    set.headers["cache-control"] = "no-store";
    requireSecureChannel(request, state);
    return { s, ip: state.ip, body: await readJsonObject(request) };
  };
  // No usable Host (malformed or missing): links relative to the server, as the partners' document's are.
  const origin = (request: Request) => requestOrigin(request, stateOf(request).viaTrustedProxy) ?? "";

  return (
    new Elysia({ name: "admin" })
      .get("/admin/openapi.json", ({ request, set }) => {
        open();
        return json(set, adminOpenApiDocument(origin(request)));
      })
      .post(
        `${ADMIN_PREFIX}/setup`,
        async ({ request, set }) => {
          const { s, ip, body } = await credentialsStep(request, set);
          return json(set, { data: await s.setup(body.token, body.password, ip) });
        },
        { parse: "none" },
      )
      .post(
        `${ADMIN_PREFIX}/setup/confirm`,
        async ({ request, set }) => {
          const { s, ip, body } = await credentialsStep(request, set);
          return json(set, { data: { admin: await s.confirmSetup(body.token, body.code, ip) } });
        },
        { parse: "none" },
      )
      .post(
        `${ADMIN_PREFIX}/sessions`,
        async ({ request, set }) => {
          const { s, ip, body } = await credentialsStep(request, set);
          const signedIn = await s.signIn(body, ip);
          set.headers["set-cookie"] = sessionCookie(signedIn.cookie);
          return json(set, { data: { csrfToken: signedIn.csrfToken, admin: signedIn.admin } }, 201);
        },
        { parse: "none" },
      )
      .delete(`${ADMIN_PREFIX}/sessions/current`, async ({ request, set }) => {
        const { s, actor, ip } = await who(request, set);
        s.signOut(actor, ip);
        set.headers["set-cookie"] = CLEARED_COOKIE;
        set.status = 204;
        return "";
      })
      .get(`${ADMIN_PREFIX}/me`, async ({ request, set }) => {
        const { actor } = await who(request, set);
        return json(set, {
          data: {
            kind: actor.kind,
            name: actor.name,
            role: actor.role,
            databases: actor.databases,
            // The databases this caller may name (the console's forms offer them).
            serverDatabases: [...runtime.config.databases.keys()].filter(
              (name) => actor.databases.length === 0 || actor.databases.includes(name),
            ),
            // A console session's pages read their CSRF token here (same-origin only: SameSite=Strict).
            ...(actor.csrfToken === null ? {} : { csrfToken: actor.csrfToken }),
          },
        });
      })
      .get(`${ADMIN_PREFIX}/partners`, async ({ request, set }) => {
        const { s, actor } = await who(request, set);
        return json(set, { data: listPartners(s, actor) });
      })
      .post(
        `${ADMIN_PREFIX}/partners`,
        async ({ request, set }) => {
          const { s, actor, ip } = await who(request, set);
          requireRole(actor, "admin");
          const body = await readJsonObject(request);
          return json(set, { data: createPartner(s, actor, body, ip, origin(request)) }, 201);
        },
        { parse: "none" },
      )
      .get(`${ADMIN_PREFIX}/partners/:id`, async ({ request, set, params }) => {
        const { s, actor } = await who(request, set);
        return json(set, { data: getPartner(s, actor, params.id) });
      })
      .patch(
        `${ADMIN_PREFIX}/partners/:id`,
        async ({ request, set, params }) => {
          const { s, actor, ip } = await who(request, set);
          requireRole(actor, "admin");
          const body = await readJsonObject(request);
          return json(set, { data: updatePartner(s, actor, params.id, body, ip) });
        },
        { parse: "none" },
      )
      .delete(`${ADMIN_PREFIX}/partners/:id`, async ({ request, set, params }) => {
        const { s, actor, ip } = await who(request, set);
        deletePartner(s, actor, params.id, ip);
        set.status = 204;
        return "";
      })
      .post(
        `${ADMIN_PREFIX}/partners/:id/rotate-secret`,
        async ({ request, set, params }) => {
          const { s, actor, ip } = await who(request, set);
          requireRole(actor, "admin");
          const body = await readJsonObject(request);
          return json(set, { data: rotateSecret(s, actor, params.id, body, ip) });
        },
        { parse: "none" },
      )
      // What the agency sees (docs/operators/console.md#what-the-agency-sees).
      .get(`${ADMIN_PREFIX}/partners/:id/usage`, async ({ request, set, params }) => {
        const { s, actor } = await who(request, set);
        return json(set, { data: partnerUsage(s, actor, params.id, new URL(request.url).searchParams) });
      })
      .get(`${ADMIN_PREFIX}/requests`, async ({ request, set }) => {
        const { s, actor } = await who(request, set);
        return json(set, await requestLog(s, actor, new URL(request.url).searchParams));
      })
      .get(`${ADMIN_PREFIX}/portal-feed/downloads`, async ({ request, set }) => {
        const { s, actor } = await who(request, set);
        return json(set, { data: portalFeedDownloads(s, actor, new URL(request.url).searchParams) });
      })
      .get(`${ADMIN_PREFIX}/leads/origins`, async ({ request, set }) => {
        const { s, actor } = await who(request, set);
        return json(set, { data: await leadOrigins(s, actor, new URL(request.url).searchParams) });
      })
      .get(`${ADMIN_PREFIX}/webhooks/subscriptions`, async ({ request, set }) => {
        const { s, actor } = await who(request, set);
        return json(set, { data: listSubscriptions(s, actor) });
      })
      .get(`${ADMIN_PREFIX}/webhooks/subscriptions/:id/deliveries`, async ({ request, set, params }) => {
        const { s, actor } = await who(request, set);
        return json(set, subscriptionDeliveries(s, actor, params.id, new URL(request.url).searchParams));
      })
      .patch(
        `${ADMIN_PREFIX}/webhooks/subscriptions/:id`,
        async ({ request, set, params }) => {
          const { s, actor, ip } = await who(request, set);
          requireRole(actor, "admin");
          const body = await readJsonObject(request);
          return json(set, { data: await setSubscriptionEnabled(s, actor, params.id, body, ip) });
        },
        { parse: "none" },
      )
      .post(
        `${ADMIN_PREFIX}/webhooks/subscriptions/:id/send-again`,
        async ({ request, set, params }) => {
          const { s, actor, ip } = await who(request, set);
          requireRole(actor, "admin");
          const body = await readJsonObject(request);
          return json(set, { data: await sendFailedAgain(s, actor, params.id, body, ip) });
        },
        { parse: "none" },
      )
      .post(`${ADMIN_PREFIX}/webhooks/deliveries/:id/send-again`, async ({ request, set, params }) => {
        const { s, actor, ip } = await who(request, set);
        requireRole(actor, "admin");
        return json(set, { data: await sendDeliveryAgain(s, actor, params.id, ip) });
      })
      .get(`${ADMIN_PREFIX}/feeds`, async ({ request, set }) => {
        const { s, actor } = await who(request, set);
        return json(set, { data: listFeeds(s, actor) });
      })
      .get(`${ADMIN_PREFIX}/feeds/:id/runs`, async ({ request, set, params }) => {
        const { s, actor } = await who(request, set);
        return json(set, feedRuns(s, actor, params.id, new URL(request.url).searchParams));
      })
      .post(`${ADMIN_PREFIX}/feeds/:id/run`, async ({ request, set, params }) => {
        const { s, actor, ip } = await who(request, set);
        requireRole(actor, "admin");
        return json(set, { data: await runFeedNow(s, actor, params.id, ip) }, 202);
      })
      .post(`${ADMIN_PREFIX}/feeds/runs/:id/apply`, async ({ request, set, params }) => {
        const { s, actor, ip } = await who(request, set);
        requireRole(actor, "admin");
        return json(set, { data: await decideGuardedRun(s, actor, params.id, "applied", ip) });
      })
      .post(`${ADMIN_PREFIX}/feeds/runs/:id/drop`, async ({ request, set, params }) => {
        const { s, actor, ip } = await who(request, set);
        requireRole(actor, "admin");
        return json(set, { data: await decideGuardedRun(s, actor, params.id, "dropped", ip) });
      })
      .get(`${ADMIN_PREFIX}/tokens`, async ({ request, set }) => {
        const { s } = await who(request, set);
        return json(set, { data: s.listTokens() });
      })
      .post(
        `${ADMIN_PREFIX}/tokens`,
        async ({ request, set }) => {
          const { s, actor, ip } = await who(request, set);
          requireRole(actor, "admin");
          const body = await readJsonObject(request);
          return json(set, { data: s.createToken(actor, body, ip) }, 201);
        },
        { parse: "none" },
      )
      .delete(`${ADMIN_PREFIX}/tokens/:id`, async ({ request, set, params }) => {
        const { s, actor, ip } = await who(request, set);
        s.revokeToken(actor, params.id, ip);
        set.status = 204;
        return "";
      })
      .get(`${ADMIN_PREFIX}/admins`, async ({ request, set }) => {
        const { s, actor } = await who(request, set);
        requireRole(actor, "owner");
        return json(set, { data: s.listAdmins() });
      })
      .post(
        `${ADMIN_PREFIX}/admins`,
        async ({ request, set }) => {
          const { s, actor, ip } = await who(request, set);
          requireRole(actor, "owner");
          const body = await readJsonObject(request);
          return json(set, { data: s.inviteAdmin(actor, body, ip, origin(request)) }, 201);
        },
        { parse: "none" },
      )
      .patch(
        `${ADMIN_PREFIX}/admins/:id`,
        async ({ request, set, params }) => {
          const { s, actor, ip } = await who(request, set);
          requireRole(actor, "owner");
          const body = await readJsonObject(request);
          if (typeof body.disabled !== "boolean" || Object.keys(body).length !== 1)
            throw ApiError.validation([
              { field: "disabled", message: "is required: true or false (and nothing else)" },
            ]);
          const id = /^\d{1,15}$/.test(params.id) ? Number(params.id) : -1;
          s.setAdminStatus(actor, id, body.disabled, ip);
          return json(set, { data: s.listAdmins().find((a) => a.id === id) });
        },
        { parse: "none" },
      )
      .delete(`${ADMIN_PREFIX}/admins/:id/sessions`, async ({ request, set, params }) => {
        const { s, actor, ip } = await who(request, set);
        s.revokeSessions(actor, /^\d{1,15}$/.test(params.id) ? Number(params.id) : -1, ip);
        set.status = 204;
        return "";
      })
      .get(`${ADMIN_PREFIX}/audit`, async ({ request, set }) => {
        const { s } = await who(request, set);
        return json(set, s.auditPage(new URL(request.url).searchParams));
      })
      .get(`${ADMIN_PREFIX}/audit/export`, async ({ request, set }) => {
        const { s } = await who(request, set);
        set.headers["content-type"] = "application/x-ndjson; charset=utf-8";
        return [...s.auditExport(new URL(request.url).searchParams)].join("");
      })
  );
}
