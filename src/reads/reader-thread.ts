// A reader thread of the pool (pool.ts): read-only connections of its own to the tenant
// databases, and the dear reads run here, so the event loop stays free for everyone else. Each
// job calls the same service function its route called on the event loop; nothing here knows
// how a search is made. An entry point of the build, like main.ts above every module.
import { Database } from "bun:sqlite";
import { LEAD_CATALOG } from "../catalog/leads.ts";
import { PROPERTY_CATALOG } from "../catalog/properties.ts";
import { Tenant } from "../db/tenants.ts";
import { ApiError } from "../errors.ts";
import { valuesOf } from "../modules/catalog/service.ts";
import { changesPage, parseChangesQuery } from "../modules/changes/service.ts";
import { listingFor } from "../modules/lists/service.ts";
import { facetsOf } from "../modules/search/service.ts";
import { Deadline, within } from "./deadline.ts";
import type { JobAnswer, JobMessage, ReadJob } from "./jobs.ts";

declare const self: Worker;

/** Every kind of job: the route's own service call, with a body as its answer. */
function run(tenant: Tenant, job: ReadJob): string {
  switch (job.kind) {
    case "properties":
      return listingFor(tenant, PROPERTY_CATALOG).page(job.rawQuery, job.reader);
    case "leads":
      return listingFor(tenant, LEAD_CATALOG).page(job.rawQuery, job.reader);
    case "facets":
      return facetsOf(tenant, job.rawQuery, job.reader);
    case "values":
      return JSON.stringify({
        data: valuesOf(tenant, job.client, "properties", job.field, new URLSearchParams(job.rawQuery)),
      });
    case "changes": {
      // A reader thread's tenant never waits for a sync (Tenant.onDisk): the event loop does.
      const body = changesPage(tenant, job.rawQuery, parseChangesQuery(new URLSearchParams(job.rawQuery)), job.reader);
      if (typeof body !== "string") throw new Error("a change-feed page waited for a sync in a reader thread");
      return body;
    }
  }
}

/** Per file, this thread's tenant of it (the event loop's Tenant.id it stands for). */
const tenants = new Map<string, { id: number; tenant: Tenant }>();

function tenantFor({ path, id }: JobMessage["tenant"]): Tenant {
  const open = tenants.get(path);
  if (open !== undefined && open.id === id) return open.tenant;
  if (open !== undefined) open.tenant.read.close();
  const db = new Database(path, { readonly: true, strict: true });
  db.run("PRAGMA busy_timeout = 5000");
  db.run("PRAGMA cache_size = -16384");
  db.run("PRAGMA temp_store = MEMORY");
  const tenant = Tenant.forReaderThread(path, db);
  tenants.set(path, { id, tenant });
  return tenant;
}

function answer({ id, tenant: ref, job, remainingMs }: JobMessage): JobAnswer {
  const deadline = Deadline.in(remainingMs);
  try {
    deadline.check();
    const tenant = tenantFor(ref);
    tenant.useGenerations(ref);
    return { id, body: within(deadline, () => run(tenant, job)) };
  } catch (error) {
    if (error instanceof ApiError) {
      const { code, message, details, headers } = error;
      return { id, error: { code, message, details, headers } };
    }
    const { message, stack } = error as Error;
    return { id, failure: { message: String(message), stack } };
  }
}

self.onmessage = (event: MessageEvent<JobMessage>) => {
  self.postMessage(answer(event.data));
};
