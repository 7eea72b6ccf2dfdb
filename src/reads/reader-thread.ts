// A reader thread of the pool (pool.ts): read-only connections of its own to the tenant
// databases, and the dear reads run here, so the event loop stays free for everyone else. Each
// job calls the same service function its route called on the event loop; nothing here knows
// how a search is made. An entry point of the build, like main.ts above every module.
import { Database } from "bun:sqlite";
import { readlinkSync } from "node:fs";
import { setPriority } from "node:os";
import { LEAD_CATALOG } from "../catalog/leads.ts";
import { PROPERTY_CATALOG } from "../catalog/properties.ts";
import { Tenant } from "../db/tenants.ts";
import { personIn } from "../modules/admin/privacy/service.ts";
import { valuesOf } from "../modules/catalog/service.ts";
import { changesPage, parseChangesQuery } from "../modules/changes/service.ts";
import { facetsOf } from "../query/facets.ts";
import { listOf } from "../query/lists.ts";
import { searchEngineOf } from "../query/search-engine.ts";
import { leadOriginCounts } from "../usage/origins.ts";
import { warmPrefixesOf } from "./affinity.ts";
import { answer } from "./answer.ts";
import { currentDeadline } from "./deadline.ts";
import type { JobMessage, PrepareMessage, ReadJob, ThreadReady } from "./jobs.ts";
import { READER_NICE } from "./settings.ts";

declare const self: Worker;

// This thread below the event loop (settings.ts, READER_NICE): Linux takes a thread's id where
// setpriority wants a process's, and /proc/thread-self names it. Elsewhere it stays as it is.
try {
  setPriority(Number(readlinkSync("/proc/thread-self").split("/").pop()), READER_NICE);
} catch {
  // Not Linux, or no /proc: the thread keeps the process's priority.
}

/** Every kind of job: the route's own service call, with a body as its answer. */
function run(tenant: Tenant, job: ReadJob): string {
  switch (job.kind) {
    case "properties":
      return listOf(tenant, PROPERTY_CATALOG).page(job.rawQuery, job.reader, currentDeadline());
    case "leads":
      return listOf(tenant, LEAD_CATALOG).page(job.rawQuery, job.reader, currentDeadline());
    case "facets":
      return facetsOf(tenant, job.rawQuery, job.reader, currentDeadline());
    case "values":
      return JSON.stringify({
        data: valuesOf(tenant, job.client, "properties", job.field, new URLSearchParams(job.rawQuery)),
      });
    case "lead-origins":
      return leadOriginCounts(tenant.read, new URLSearchParams(job.rawQuery).get("from") ?? "");
    case "person":
      return personIn(tenant.read, job.rawQuery);
    case "changes": {
      // A reader thread's tenant never waits for a sync (Tenant.onDisk): the event loop does.
      const body = changesPage(tenant, job.rawQuery, parseChangesQuery(new URLSearchParams(job.rawQuery)), job.reader);
      if (typeof body !== "string") throw new Error("a change-feed page waited for a sync in a reader thread");
      return body;
    }
  }
}

/**
 * Per file, this thread's tenants of it by the event loop's Tenant.id they stand for: a file the
 * event loop reopened has a new tenant there (new generations), so a new one here. The one it
 * replaced serves its last requests for a while: the two newest are kept, older ones closed.
 */
const tenants = new Map<string, Map<number, Tenant>>();

function tenantFor({ path, id }: JobMessage["tenant"]): Tenant {
  let byId = tenants.get(path);
  if (byId === undefined) {
    byId = new Map();
    tenants.set(path, byId);
  }
  const open = byId.get(id);
  if (open !== undefined) return open;
  const db = new Database(path, { readonly: true, strict: true });
  db.run("PRAGMA busy_timeout = 5000");
  db.run("PRAGMA cache_size = -16384");
  db.run("PRAGMA temp_store = MEMORY");
  const tenant = Tenant.forReaderThread(path, db);
  byId.set(id, tenant);
  for (const old of [...byId.keys()].sort((a, b) => b - a).slice(2)) {
    byId.get(old)!.read.close();
    byId.delete(old);
  }
  return tenant;
}

/**
 * What a database needs before this thread's first job on it: its connection opened, the list
 * of properties made (its statements prepared), the search engine's listing index built (a
 * thread's own, in its memory) and the one-letter prefixes this thread is sent read, before the
 * thread says it is ready, never inside a job.
 */
function prepare(tenant: Tenant, warmPrefixes: readonly string[]): void {
  listOf(tenant, PROPERTY_CATALOG).repo.snapshot(() => searchEngineOf(tenant).keepWarm(warmPrefixes));
}

self.onmessage = (event: MessageEvent<JobMessage | PrepareMessage>) => {
  if ("prepare" in event.data) {
    for (const ref of event.data.prepare) {
      try {
        const tenant = tenantFor(ref);
        tenant.useGenerations(ref);
        prepare(tenant, warmPrefixesOf(event.data.place, event.data.places));
      } catch {
        // A file that cannot be opened here now is tried again by the first job that names it.
      }
    }
    // Building an index leaves rows and strings behind (a third of the thread's memory at a
    // million listings): collected now, once, rather than whenever the heap next grows.
    Bun.gc(true);
    self.postMessage({ ready: true } satisfies ThreadReady);
    return;
  }
  const { tenant: ref, job } = event.data;
  self.postMessage(
    answer(event.data, () => {
      const tenant = tenantFor(ref);
      tenant.useGenerations(ref);
      return run(tenant, job);
    }),
  );
};
