// The personal-data routes of the admin API (docs/operators/personal-data.md): find a person,
// export what is held and with whom it was shared, anonymize, correct a lead, and the register
// of requests. Owners and admins of the lead's database only; every call is in the audit log,
// which names the person by a digest of the identifier, never by the identifier.
import { Elysia } from "elysia";
import type { Tenant } from "../../../db/tenants.ts";
import { ApiError } from "../../../errors.ts";
import { readJsonObject } from "../../../plugins/body.ts";
import type { Runtime } from "../../../runtime.ts";
import { type AnswerSet, adminCaller, json } from "../caller.ts";
import { ADMIN_PREFIX } from "../openapi.ts";
import { type Actor, requireRole, worksOn } from "../service.ts";
import { type Subject, subjectHash, subjectOf } from "./identifiers.ts";
import { privacyMetricsOf } from "./metrics.ts";
import { readAnonymization, readCorrection } from "./model.ts";
import {
  createRequest,
  getRequest,
  listRequests,
  readNewRequest,
  readRequestPatch,
  updateRequest,
} from "./register.ts";
import { correctLead, leadsById } from "./repo.ts";
import { anonymizeInTenant, CUT_WAL_WITHIN_MS, exportLeads, type PersonFound, personQuery } from "./service.ts";

const PERSON_REQUIRED = "give exactly one of email or phone (a phone needs its digits)";

/** How long finding a person may take before the request gives up (it goes on reading a whole file of leads). */
const PERSON_DEADLINE_MS = 60_000;

export function privacyModule(runtime: Runtime) {
  const caller = adminCaller(runtime);
  /** The caller, who must be an owner or an admin: a viewer never sees a lead's personal data. */
  const who = async (request: Request, set: AnswerSet) => {
    const called = await caller.who(request, set);
    requireRole(called.actor, "admin");
    return called;
  };
  /** The named database, open, that the actor works on. */
  const database = (actor: Actor, name: unknown): { name: string; tenant: Tenant } => {
    const known = [...runtime.config.databases.keys()];
    if (typeof name !== "string" || name === "")
      throw ApiError.validation([{ field: "database", message: `is required: one of ${known.join(", ") || "none"}` }]);
    const path = runtime.config.databases.get(name);
    if (path === undefined)
      throw ApiError.validation([
        {
          field: "database",
          message: `no database named ${JSON.stringify(name.slice(0, 64))}; the config names ${known.join(", ") || "none"}`,
        },
      ]);
    if (!worksOn(actor, name)) throw new ApiError("INSUFFICIENT_ROLE", `You do not work on the database "${name}"`);
    const tenant = runtime.tenants.get(path);
    if (tenant === null) throw new ApiError("SERVICE_UNAVAILABLE", `The database "${name}" is not open`);
    return { name, tenant };
  };
  const person = (query: URLSearchParams): Subject => {
    const subject = subjectOf(query.get("email") ?? undefined, query.get("phone") ?? undefined);
    if (subject === null) throw ApiError.validation([{ field: "email", message: PERSON_REQUIRED }]);
    return subject;
  };
  const clientsOf = (tenant: Tenant) =>
    [...runtime.config.clients.values()].filter((client) => client.databasePath === tenant.path);

  /**
   * The person's leads and their deliveries, found by a reader thread: a scan of every lead (a
   * second or two at a million, more with the file not yet in memory), not cut at the partners'
   * deadline, since the agency must get its answer.
   */
  const personFound = async (actorName: string, tenant: Tenant, subject: Subject): Promise<PersonFound> =>
    JSON.parse(
      await runtime.reads.run(
        `admin:${actorName}`,
        tenant,
        { kind: "person", rawQuery: personQuery(subject) },
        PERSON_DEADLINE_MS,
      ),
    );

  return new Elysia({ name: "privacy" })
    .get(`${ADMIN_PREFIX}/privacy/people`, async ({ request, set }) => {
      const { s, actor, ip } = await who(request, set);
      const query = new URL(request.url).searchParams;
      const { name, tenant } = database(actor, query.get("database"));
      const subject = person(query);
      const { leads } = await personFound(actor.name, tenant, subject);
      s.audit(actor.name, ip, "privacy.find", name, { subject: subjectHash(subject), leads: leads.length });
      return json(set, { data: leads });
    })
    .get(`${ADMIN_PREFIX}/privacy/export`, async ({ request, set }) => {
      const { s, actor, ip } = await who(request, set);
      const query = new URL(request.url).searchParams;
      const { name, tenant } = database(actor, query.get("database"));
      const subject = person(query);
      const found = await personFound(actor.name, tenant, subject);
      const leads = exportLeads(found.leads, found.deliveries, clientsOf(tenant));
      s.audit(actor.name, ip, "privacy.export", name, { subject: subjectHash(subject), leads: leads.length });
      return json(set, { data: { leads } });
    })
    .post(
      `${ADMIN_PREFIX}/privacy/anonymize`,
      async ({ request, set }) => {
        const { s, actor, ip } = await who(request, set);
        const body = await readJsonObject(request);
        const asked = readAnonymization(body);
        const { name, tenant } = database(actor, body.database);
        let ids: string[];
        let target: Record<string, unknown>;
        if ("leadIds" in asked) {
          ids = leadsById(tenant.read, asked.leadIds).map((lead) => lead.id);
          target = { leadIds: ids };
        } else {
          ids = (await personFound(actor.name, tenant, asked.subject)).leads.map((lead) => lead.id);
          target = { subject: subjectHash(asked.subject), leadIds: ids };
        }
        const anonymized = await anonymizeInTenant(tenant, ids, runtime.clock, (path) =>
          runtime.tenants.cutWal(path, CUT_WAL_WITHIN_MS),
        );
        privacyMetricsOf(runtime).anonymized(name, "request", anonymized);
        s.audit(actor.name, ip, "privacy.anonymize", name, { ...target, anonymized });
        return json(set, { data: { anonymized } });
      },
      { parse: "none" },
    )
    .patch(
      `${ADMIN_PREFIX}/leads/:database/:id`,
      async ({ request, set, params }) => {
        const { s, actor, ip } = await who(request, set);
        const { name, tenant } = database(actor, params.database);
        const correction = readCorrection(await readJsonObject(request));
        const id = params.id.length <= 64 ? params.id : "";
        const lead = await tenant.writer.submit(() =>
          correctLead(tenant.write, id, correction, new Date(runtime.clock.now()).toISOString()),
        );
        if (lead === null) throw new ApiError("NOT_FOUND", "No lead with this id in this database");
        s.audit(actor.name, ip, "privacy.correct", `${name}/${lead.id}`, { fields: Object.keys(correction).sort() });
        return json(set, { data: lead });
      },
      { parse: "none" },
    )
    .get(`${ADMIN_PREFIX}/privacy/requests`, async ({ request, set }) => {
      const { s, actor } = await who(request, set);
      return json(set, { data: listRequests(s.store, actor.databases, runtime.clock.now()) });
    })
    .post(
      `${ADMIN_PREFIX}/privacy/requests`,
      async ({ request, set }) => {
        const { s, actor, ip } = await who(request, set);
        const body = await readJsonObject(request);
        const { database: named, ...rest } = body;
        const now = runtime.clock.now();
        const fields = readNewRequest(rest, now);
        const { name } = database(actor, named);
        const created = createRequest(s.store, { ...fields, database: name }, actor.name, now);
        s.audit(actor.name, ip, "privacy.request.create", String(created.id), {
          kind: created.kind,
          database: name,
          subject: created.subjectHash,
        });
        return json(set, { data: created }, 201);
      },
      { parse: "none" },
    )
    .patch(
      `${ADMIN_PREFIX}/privacy/requests/:id`,
      async ({ request, set, params }) => {
        const { s, actor, ip } = await who(request, set);
        const patch = readRequestPatch(await readJsonObject(request));
        const id = /^\d{1,15}$/.test(params.id) ? Number(params.id) : -1;
        const now = runtime.clock.now();
        const current = getRequest(s.store, id, now);
        if (current === null || !worksOn(actor, current.database))
          throw new ApiError("NOT_FOUND", "No personal-data request with this id");
        const updated = updateRequest(s.store, id, patch, actor.name, now)!;
        s.audit(actor.name, ip, "privacy.request.update", String(id), {
          ...(patch.status !== undefined ? { status: patch.status } : {}),
          ...(patch.handledBy !== undefined ? { handledBy: patch.handledBy } : {}),
        });
        return json(set, { data: updated });
      },
      { parse: "none" },
    );
}
