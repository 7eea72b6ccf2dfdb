// What each partner may do (docs/partners/scopes.md): the scopes a client is given in the
// config, and which leads those let it read. Pure: no Elysia, no database.
import type { Stream } from "../db/change-streams.ts";
import { ApiError } from "../errors.ts";

export const SCOPES = [
  "properties:read",
  "feed:read",
  "leads:create",
  "leads:read:own",
  "leads:read",
  "leads:update",
  "webhooks",
] as const;
export type Scope = (typeof SCOPES)[number];

/** A client whose config names no scopes: a portal or a website. */
export const DEFAULT_SCOPES: readonly Scope[] = [
  "properties:read",
  "feed:read",
  "leads:create",
  "leads:read:own",
  "webhooks",
];

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

/**
 * Which leads a client reads: every lead of its database, only the leads it created, or none.
 * Leads stored without an owner (the seed, an import) are read only with `leads:read`.
 */
export type LeadAccess = { kind: "all" } | { kind: "own"; clientId: string } | { kind: "none" };

export function leadAccessOf(client: { id: string; scopes: ReadonlySet<Scope> }): LeadAccess {
  if (client.scopes.has("leads:read")) return { kind: "all" };
  if (client.scopes.has("leads:read:own")) return { kind: "own", clientId: client.id };
  return { kind: "none" };
}

/**
 * The stream of the change log whose numbers a client with this lead access is shown for an
 * entity (db/change-streams.ts), or null when it reads none of it: every property reader the
 * properties' stream; `leads:read` every lead's, `leads:read:own` its own leads'.
 */
export function streamOf(entity: "properties" | "leads", leads: LeadAccess): Stream | null {
  if (entity === "properties" || leads.kind === "all") return { entity, owner: null };
  return leads.kind === "own" ? { entity, owner: leads.clientId } : null;
}

/** Whether the client holds `scope`; `leads:read` includes `leads:read:own`. */
export function hasScope(client: { scopes: ReadonlySet<Scope> }, scope: Scope): boolean {
  return client.scopes.has(scope) || (scope === "leads:read:own" && client.scopes.has("leads:read"));
}

/** Whether the client reads an entity's records at all: the scope its read routes and events need. */
export function readsEntity(client: { scopes: ReadonlySet<Scope> }, entity: "properties" | "leads"): boolean {
  return hasScope(client, entity === "leads" ? "leads:read:own" : "properties:read");
}

/**
 * The scope step: a client without `scope` gets 403 INSUFFICIENT_SCOPE. The guard takes it after
 * every other step (so the refusal counts in the client's window like any answer after the
 * guard); routes whose scope depends on their parameters (the change feed, values) call it once
 * those are read.
 */
export function requireScope(client: { scopes: ReadonlySet<Scope> }, scope: Scope): void {
  if (!hasScope(client, scope)) throw missingScope(scope);
}

/** The refusal of a client without `scope`: 403 INSUFFICIENT_SCOPE, naming it. */
export function missingScope(scope: Scope): ApiError {
  return new ApiError("INSUFFICIENT_SCOPE", `Missing scope: ${scope}`);
}
