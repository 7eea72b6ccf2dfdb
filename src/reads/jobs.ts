// What the event loop and a reader thread (reader-thread.ts) say to each other: a job names a
// service function and its plain arguments; the answer is the body it returned, or the error
// it threw, rebuilt on the event loop as the same ApiError.
import type { Reader } from "../catalog/types.ts";
import type { Generations } from "../db/tenants.ts";
import type { ErrorCode, FieldProblem } from "../errors.ts";
import type { Scope } from "../security/scopes.ts";

/**
 * One read, by the route it answers; each runs the very function that route ran on the event
 * loop before (reader-thread.ts holds the table).
 */
export type ReadJob =
  | { kind: "properties" | "leads" | "facets" | "changes"; rawQuery: string; reader: Reader }
  | {
      kind: "values";
      field: string;
      rawQuery: string;
      /** What valuesOf reads of the client: never its key or secret. */
      client: { id: string; scopes: ReadonlySet<Scope> };
    }
  /** Leads by origin for the agency (src/usage/origins.ts): `from=<ISO date-time>`. */
  | { kind: "lead-origins"; rawQuery: string }
  /** A person's leads and their deliveries for the agency (admin/privacy/service.ts personIn): `email=` or `phone=`. */
  | { kind: "person"; rawQuery: string };

/** The database a job reads, as the event loop holds it for this request. */
export interface TenantRef extends Generations {
  path: string;
  /** Tenant.id on the event loop: a new one means the file was reopened there, so here too. */
  id: number;
}

export interface JobMessage {
  id: number;
  tenant: TenantRef;
  job: ReadJob;
  /** Milliseconds left before the deadline, measured on the thread's own clock from arrival. */
  remainingMs: number;
}

/**
 * The first message to a thread: the databases open now, to prepare (open, and build whatever the
 * services keep per database) before any job. The thread answers ThreadReady once done.
 */
export interface PrepareMessage {
  prepare: TenantRef[];
  /** The thread's place in the pool, and the pool's size: which one-letter prefixes it keeps warm (affinity.ts). */
  place: number;
  places: number;
}

/** From a thread: it has loaded and prepared, and takes jobs from now on. */
export interface ThreadReady {
  ready: true;
}

export type JobAnswer =
  | { id: number; body: string }
  | {
      id: number;
      error: { code: ErrorCode; message: string; details?: FieldProblem[]; headers?: Record<string, string> };
    }
  /** Anything else thrown: the event loop logs it and answers 500, as it would have. */
  | { id: number; failure: { message: string; stack?: string } };
