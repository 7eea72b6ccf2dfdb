// Creating leads: one group-committed transaction per batch, Idempotency-Key replay per client
// (IETF draft semantics), and a request racing the first with its key waits for it.

import type { Clock } from "../../clock.ts";
import type { Tenant } from "../../db/tenants.ts";
import { ApiError } from "../../errors.ts";
import type { InFlightLocks } from "../../redis/locks.ts";
import type { LeadAccess } from "../../security/scopes.ts";
import type { LeadInput, LeadPatch } from "./model.ts";
import { LeadsRepo, type PortalExtras, type StoredReplay } from "./repo.ts";

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
const PRUNE_EVERY_MS = 60 * 60 * 1000;

export interface Created {
  /** The whole response body, `{ data: lead }`. */
  body: string;
  replayed: boolean;
}

interface TenantLeads {
  repo: LeadsRepo;
  prunedAt: number;
}

const perTenant = new WeakMap<Tenant, TenantLeads>();
/** Creations under way, by tenant, client and Idempotency-Key. */
const inFlight = new Map<string, Promise<unknown>>();

function leadsOf(tenant: Tenant): TenantLeads {
  let state = perTenant.get(tenant);
  if (state === undefined) {
    state = { repo: new LeadsRepo(tenant.write, tenant.read), prunedAt: 0 };
    perTenant.set(tenant, state);
  }
  return state;
}

/** Fingerprint of the validated body: the same lead asked twice hashes the same. */
function requestHash(input: LeadInput): string {
  return new Bun.CryptoHasher("sha256").update(JSON.stringify(input)).digest("hex");
}

export async function createLead(
  tenant: Tenant,
  clientId: string,
  input: LeadInput,
  idempotencyKey: string | null,
  clock: Clock,
  /** Idempotency-Key locks shared with other processes (Redis); null in a single process. */
  locks: InFlightLocks | null = null,
): Promise<Created> {
  const state = leadsOf(tenant);
  const now = clock.now();
  if (now - state.prunedAt > PRUNE_EVERY_MS) {
    state.prunedAt = now;
    const cutoff = new Date(now - IDEMPOTENCY_TTL_MS).toISOString();
    void tenant.writer.submit(() => state.repo.pruneKeysBefore(cutoff)).catch(() => {});
  }

  const create = (key: string | null, hash: string) =>
    tenant.writer.submit((): Created => {
      const now = clock.now();
      // Under the write lock, which every process shares: another process may have created
      // the lead for this key since we looked. Then it is a replay, never a second lead.
      if (key !== null) {
        const stored = state.repo.findReplayWriting(clientId, key, new Date(now - IDEMPOTENCY_TTL_MS).toISOString());
        if (stored !== null) return replayOf(stored, hash);
      }
      const createdAt = new Date(now).toISOString();
      // Time-ordered (v7) ids append to the id indexes instead of landing at random pages of
      // them: on a million-row table that is the difference between a cached page and a miss.
      const lead = state.repo.create(input, Bun.randomUUIDv7("hex", now), createdAt, clientId);
      const body = `{"data":${JSON.stringify(lead)}}`;
      if (key !== null) state.repo.rememberKey(clientId, key, hash, lead.id, body, createdAt);
      return { body, replayed: false };
    });

  if (idempotencyKey === null) return await create(null, "");

  const hash = requestHash(input);
  const flightKey = `${tenant.path}\0${clientId}\0${idempotencyKey}`;
  for (let running = inFlight.get(flightKey); running !== undefined; running = inFlight.get(flightKey)) {
    await running.catch(() => {});
  }
  // From here to inFlight.set nothing awaits, so no second creation can start in this process.
  const creation = replayOrCreate();
  inFlight.set(flightKey, creation);
  try {
    return await creation;
  } finally {
    inFlight.delete(flightKey);
  }

  /** Other processes: wait for the one creating this key's lead (Redis lock), then look. */
  async function replayOrCreate(): Promise<Created> {
    const release = locks === null ? null : await locks.acquire(`${tenant.path}\0${clientId}\0${idempotencyKey}`);
    try {
      const stored = state.repo.findReplay(
        clientId,
        idempotencyKey!,
        new Date(clock.now() - IDEMPOTENCY_TTL_MS).toISOString(),
      );
      if (stored !== null) {
        const replay = replayOf(stored, hash);
        // Another process's lead is visible a sync before its own 201 (group-commit.ts): its
        // replay, a 201 too, waits for the disk the same way.
        await tenant.writer.synced();
        return replay;
      }
      return await create(idempotencyKey, hash);
    } finally {
      release?.();
    }
  }
}

/** A portal's lead: made now, or the one already made with its id. */
export interface PortalLeadOutcome {
  id: string;
  created: boolean;
}

/**
 * Creates `clientId`'s lead from a portal's post once: a post whose portal id (`originLeadId`)
 * this client already has, at any later time, gets that lead's id and writes nothing. Decided
 * inside the group-committed write by the unique index leads_origin (the insert does nothing on
 * a conflict, then the first lead is looked up): it sees every lead committed before it by any
 * process and the leads of its own batch, so two posts in flight together never make two
 * leads. No look before the write: it cost every new lead a query to spare the rare repeat a
 * slot in a batch. Resolves once the lead, new or found, is on disk.
 */
export async function createPortalLead(
  tenant: Tenant,
  clientId: string,
  input: LeadInput,
  portal: PortalExtras,
  clock: Clock,
): Promise<PortalLeadOutcome> {
  const { repo } = leadsOf(tenant);
  return await tenant.writer.submit((): PortalLeadOutcome => {
    const now = clock.now();
    const lead = repo.createOnce(input, Bun.randomUUIDv7("hex", now), new Date(now).toISOString(), clientId, portal);
    if (lead !== null) return { id: lead.id, created: true };
    return { id: repo.findByOriginWriting(clientId, portal.originLeadId!)!, created: false };
  });
}

/** The first response of a key again; the same key with another body is a conflict. */
function replayOf(stored: StoredReplay, hash: string): Created {
  if (stored.requestHash !== hash) throw new ApiError("IDEMPOTENCY_KEY_REUSED");
  return { body: stored.response, replayed: true };
}

/**
 * PATCH /v1/leads/{id}: the CRM's word on a lead. NOT_FOUND for an id the client cannot read
 * (another partner's lead looks missing); the same values again write nothing. Resolves once
 * a real change is on disk (the group commit's promise), so the change feed and `lead.updated`
 * follow from the triggers, with the answer `readBack(id)` gave inside the same write: the lead
 * as this request left it. Read after the batch committed, it could show what another PATCH of
 * the same batch wrote after this one.
 */
export async function updateLead(
  tenant: Tenant,
  access: LeadAccess,
  id: string | null,
  patch: LeadPatch,
  clock: Clock,
  readBack: (id: string) => string | null,
): Promise<string> {
  const owner = access.kind === "own" ? access.clientId : null;
  const readable = access.kind !== "none" && typeof id === "string" && id.length <= 64;
  const { repo } = leadsOf(tenant);
  const answer = readable
    ? await tenant.writer.submit(() =>
        repo.updateFunnelOf(id, patch, new Date(clock.now()).toISOString(), owner) === "missing" ? null : readBack(id),
      )
    : null;
  if (answer === null) throw new ApiError("NOT_FOUND", "No lead with this id");
  return answer;
}
