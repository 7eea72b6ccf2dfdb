// Partners from the admin API (docs/operators/console.md): the list of every client (the config
// file's read-only), a new one from the use case's preset, a rotation with overlap, disabling and
// deleting. A write is served by this process at once (refreshConsoleClients) and by the others
// within a poll of the control database.
import type { Client } from "../../config/model.ts";
import { INBOUND_FORMATS } from "../../config/schema.ts";
import type { PartnerRow } from "../../db/control/store.ts";
import { UsageStore } from "../../db/control/usage.ts";
import { ApiError, type FieldProblem } from "../../errors.ts";
import { parseRange } from "../../security/ip.ts";
import { isScope, SCOPES, type Scope } from "../../security/scopes.ts";
import { hashSecret, newKeyPair, randomToken } from "../../security/secrets.ts";
import { partnerText } from "./partner-text.ts";
import { presetOf, USE_CASES, type UseCase } from "./presets.ts";
import { type Actor, type AdminService, isEmail, iso, requireRole, text, unknownKeys, worksOn } from "./service.ts";

export const OVERLAPS = { none: 0, "1h": 3600_000, "24h": 24 * 3600_000, "7d": 7 * 24 * 3600_000 } as const;
const ID = /^[a-z0-9][a-z0-9_-]{1,62}$/;
const MAX_RATE = 100_000;
const MAX_IPS = 100;

/** The database name a config client serves, found back from its resolved path. */
function databaseName(service: AdminService, client: Client): string | null {
  for (const [name, path] of service.runtime.config.databases) if (path === client.databasePath) return name;
  return null;
}

function configView(service: AdminService, client: Client) {
  return {
    id: client.id,
    name: client.name,
    source: "config" as const,
    useCase: null,
    contactEmail: null,
    database: databaseName(service, client),
    scopes: [...client.scopes],
    rateLimitPerMinute: client.rateLimitPerMinute,
    allowedIps: client.ipWhitelist === null ? [] : [...client.ipWhitelist.texts],
    enabled: client.enabled,
    inbound: client.inbound === null ? null : { format: client.inbound.format, username: client.inbound.username },
    createdAt: null,
    lastSeenAt: null as string | null,
    previousSecretValidUntil: null,
  };
}

export function partnerView(row: PartnerRow) {
  return {
    id: row.id,
    name: row.name,
    source: "console" as const,
    useCase: row.useCase,
    contactEmail: row.contactEmail,
    database: row.database,
    scopes: row.scopes,
    rateLimitPerMinute: row.rateLimitPerMinute,
    allowedIps: row.allowedIps,
    enabled: row.enabled,
    inbound: row.inboundFormat === null ? null : { format: row.inboundFormat, username: row.inboundUsername },
    createdAt: iso(row.createdAt),
    lastSeenAt: null as string | null,
    previousSecretValidUntil: row.previousValidUntil === null ? null : iso(row.previousValidUntil),
  };
}

export type PartnerView = ReturnType<typeof partnerView> | ReturnType<typeof configView>;

/** Every client the actor may see: the config file's and the console's, of its databases. */
export function listPartners(service: AdminService, actor: Actor): PartnerView[] {
  const out: PartnerView[] = [];
  const consoleIds = new Set<string>();
  for (const row of service.store.partners()) {
    consoleIds.add(row.id);
    if (worksOn(actor, row.database)) out.push(partnerView(row));
  }
  for (const client of service.runtime.config.clients.values()) {
    if (consoleIds.has(client.id) || client.source === "console") continue;
    const view = configView(service, client);
    if (actor.databases.length === 0 || (view.database !== null && worksOn(actor, view.database))) out.push(view);
  }
  const seen = lastSeenOf(service);
  for (const view of out) view.lastSeenAt = seen(view.id);
  return out.sort((a, b) => a.id.localeCompare(b.id));
}

/** When each client was last seen (docs/operators/console.md#what-the-agency-sees). */
function lastSeenOf(service: AdminService): (id: string) => string | null {
  const at = new UsageStore(service.store.db).allLastSeen();
  return (id) => {
    const ms = at.get(id);
    return ms === undefined ? null : iso(ms);
  };
}

export function getPartner(service: AdminService, actor: Actor, id: string): PartnerView {
  const view = visiblePartner(service, actor, id);
  if (view === null) throw new ApiError("NOT_FOUND");
  view.lastSeenAt = lastSeenOf(service)(id);
  return view;
}

/** The partner `id` when the actor may see it, else null. */
export function visiblePartner(service: AdminService, actor: Actor, id: string): PartnerView | null {
  const row = service.store.partner(id);
  if (row !== null && worksOn(actor, row.database)) return partnerView(row);
  const client = service.runtime.config.clients.get(id);
  if (client !== undefined && client.source !== "console") {
    const view = configView(service, client);
    if (actor.databases.length === 0 || (view.database !== null && worksOn(actor, view.database))) return view;
  }
  return null;
}

function scopesOf(value: unknown, problems: FieldProblem[]): Scope[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.length > SCOPES.length * 2 || !value.every((s) => typeof s === "string")) {
    problems.push({ field: "scopes", message: `must be a list of scopes (${SCOPES.join(", ")})` });
    return undefined;
  }
  const unknown = (value as string[]).filter((s) => !isScope(s));
  if (unknown.length > 0) {
    problems.push({
      field: "scopes",
      message: `unknown scope ${JSON.stringify(unknown[0]!.slice(0, 40))}; scopes are ${SCOPES.join(", ")}`,
    });
    return undefined;
  }
  return [...new Set(value as Scope[])];
}

function rateOf(value: unknown, problems: FieldProblem[]): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1 || value > MAX_RATE) {
    problems.push({ field: "rateLimitPerMinute", message: `must be an integer between 1 and ${MAX_RATE}` });
    return undefined;
  }
  return value;
}

function ipsOf(value: unknown, problems: FieldProblem[]): string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.length > MAX_IPS || !value.every((s) => typeof s === "string")) {
    problems.push({ field: "allowedIps", message: `must be a list of at most ${MAX_IPS} addresses or CIDR ranges` });
    return undefined;
  }
  const bad = (value as string[]).find((range) => range.length > 64 || parseRange(range) === null);
  if (bad !== undefined) {
    problems.push({
      field: "allowedIps",
      message: `${JSON.stringify(bad.slice(0, 64))} is not an IP address or CIDR range`,
    });
    return undefined;
  }
  return [...new Set(value as string[])];
}

function requireConsolePartner(service: AdminService, actor: Actor, id: string): PartnerRow {
  const row = service.store.partner(id);
  if (row === null || !worksOn(actor, row.database)) {
    const client = service.runtime.config.clients.get(id);
    if (client !== undefined && client.source !== "console") throw new ApiError("READ_ONLY");
    throw new ApiError("NOT_FOUND");
  }
  return row;
}

function handover(origin: string, row: PartnerRow, apiSecret: string, inboundPassword: string | null) {
  const inbound =
    inboundPassword === null
      ? null
      : { url: `${origin}/v1/inbound/${row.id}`, username: row.inboundUsername ?? row.id, password: inboundPassword };
  const docsUrl = `${origin}/docs`;
  return {
    partner: partnerView(row),
    apiKey: row.apiKey,
    apiSecret,
    ...(inbound === null ? {} : { inbound }),
    baseUrl: origin,
    docsUrl,
    message: partnerText({ name: row.name, baseUrl: origin, docsUrl, apiKey: row.apiKey, apiSecret, inbound }),
  };
}

export function createPartner(
  service: AdminService,
  actor: Actor,
  body: Record<string, unknown>,
  ip: string | null,
  origin: string,
) {
  requireRole(actor, "admin");
  const problems: FieldProblem[] = [];
  unknownKeys(
    body,
    ["id", "name", "contactEmail", "useCase", "database", "allowedIps", "scopes", "rateLimitPerMinute", "inbound"],
    problems,
  );
  const name = text(body.name, "name", 120, problems);
  if (!isEmail(body.contactEmail)) problems.push({ field: "contactEmail", message: "must be an e-mail address" });
  const useCase = body.useCase as UseCase;
  if (typeof useCase !== "string" || !USE_CASES.includes(useCase))
    problems.push({ field: "useCase", message: `must be one of ${USE_CASES.join(", ")}` });
  const database = body.database;
  if (typeof database !== "string" || !service.runtime.config.databases.has(database))
    problems.push({
      field: "database",
      message: `no database named ${JSON.stringify(String(database ?? "").slice(0, 64))}; the config names ${[...service.runtime.config.databases.keys()].join(", ") || "none"}`,
    });
  else if (!worksOn(actor, database)) problems.push({ field: "database", message: `you do not work on "${database}"` });
  else if (service.runtime.tenants.get(service.runtime.config.databases.get(database)!) === null)
    problems.push({ field: "database", message: `the database "${database}" cannot be opened on this server` });
  let id: string | undefined;
  if (body.id !== undefined) {
    if (typeof body.id !== "string" || !ID.test(body.id))
      problems.push({ field: "id", message: "must be 2 to 63 lowercase letters, digits, - or _" });
    else id = body.id;
  }
  const allowedIps = ipsOf(body.allowedIps, problems) ?? [];
  let scopes = scopesOf(body.scopes, problems);
  let rate = rateOf(body.rateLimitPerMinute, problems);
  let inboundFormat: string | null = null;
  if (USE_CASES.includes(useCase)) {
    const preset = presetOf(useCase);
    if (preset === null) {
      if (body.scopes === undefined) problems.push({ field: "scopes", message: "is required for the use case other" });
      if (body.rateLimitPerMinute === undefined)
        problems.push({ field: "rateLimitPerMinute", message: "is required for the use case other" });
    } else {
      scopes ??= [...preset.scopes];
      rate ??= preset.rateLimitPerMinute;
    }
    if (preset?.inbound === true) {
      const format = (body.inbound as { format?: unknown } | undefined)?.format ?? "grupozap";
      if (
        (body.inbound !== undefined && (typeof body.inbound !== "object" || body.inbound === null)) ||
        typeof format !== "string" ||
        !(INBOUND_FORMATS as readonly string[]).includes(format)
      )
        problems.push({ field: "inbound.format", message: `must be one of ${INBOUND_FORMATS.join(", ")}` });
      else inboundFormat = format;
      if (scopes !== undefined && !scopes.includes("leads:create"))
        problems.push({ field: "scopes", message: "a portal that pushes leads needs leads:create" });
    } else if (body.inbound !== undefined) {
      problems.push({ field: "inbound", message: "only for the use case portal-leads" });
    }
  }
  if (problems.length > 0) throw ApiError.validation(problems);
  const partnerId =
    id ??
    `${
      (name as string)
        .toLowerCase()
        .normalize("NFD")
        .replace(/[\u0300-\u036f]/g, "")
        .replace(/[^a-z0-9]+/g, "-")
        .replace(/^-+|-+$/g, "")
        .slice(0, 40) || "partner"
    }-${randomToken(4).toLowerCase()}`;
  if (service.runtime.config.clients.has(partnerId) || service.store.partner(partnerId) !== null)
    throw new ApiError("ALREADY_EXISTS", `A partner with the id "${partnerId}" already exists`);
  const { apiKey, secret } = newKeyPair(partnerId);
  const inboundPassword = inboundFormat === null ? null : randomToken(32);
  const now = service.clock.now();
  const row: PartnerRow = {
    id: partnerId,
    name: name!,
    contactEmail: body.contactEmail as string,
    useCase,
    database: database as string,
    scopes: scopes!,
    rateLimitPerMinute: rate!,
    allowedIps,
    enabled: true,
    apiKey,
    secretHash: hashSecret(secret),
    previousSecretHash: null,
    previousValidUntil: null,
    inboundFormat,
    inboundUsername: inboundFormat === null ? null : partnerId,
    inboundPasswordHash: inboundPassword === null ? null : hashSecret(inboundPassword),
    previousInboundPasswordHash: null,
    createdAt: now,
    updatedAt: now,
  };
  service.store.transaction(() => {
    service.store.insertPartner(row);
    service.audit(actor.name, ip, "partner.create", row.id, {
      name: row.name,
      contactEmail: row.contactEmail,
      useCase,
      database: row.database,
      scopes: row.scopes,
      rateLimitPerMinute: row.rateLimitPerMinute,
      allowedIps,
      inbound: inboundFormat,
    });
  });
  service.runtime.refreshConsoleClients();
  return handover(origin, row, secret, inboundPassword);
}

export function updatePartner(
  service: AdminService,
  actor: Actor,
  id: string,
  body: Record<string, unknown>,
  ip: string | null,
) {
  requireRole(actor, "admin");
  const row = requireConsolePartner(service, actor, id);
  const problems: FieldProblem[] = [];
  unknownKeys(body, ["name", "scopes", "rateLimitPerMinute", "allowedIps", "enabled"], problems);
  const name = text(body.name, "name", 120, problems, true);
  const scopes = scopesOf(body.scopes, problems);
  const rate = rateOf(body.rateLimitPerMinute, problems);
  const allowedIps = ipsOf(body.allowedIps, problems);
  if (body.enabled !== undefined && typeof body.enabled !== "boolean")
    problems.push({ field: "enabled", message: "must be true or false" });
  if (scopes !== undefined && row.inboundFormat !== null && !scopes.includes("leads:create"))
    problems.push({ field: "scopes", message: "a portal that pushes leads needs leads:create" });
  if (problems.length > 0) throw ApiError.validation(problems);
  const next: PartnerRow = {
    ...row,
    name: name ?? row.name,
    scopes: scopes ?? row.scopes,
    rateLimitPerMinute: rate ?? row.rateLimitPerMinute,
    allowedIps: allowedIps ?? row.allowedIps,
    enabled: (body.enabled as boolean | undefined) ?? row.enabled,
    updatedAt: service.clock.now(),
  };
  const changes: Record<string, { from: unknown; to: unknown }> = {};
  for (const key of ["name", "scopes", "rateLimitPerMinute", "allowedIps", "enabled"] as const) {
    if (JSON.stringify(row[key]) !== JSON.stringify(next[key])) changes[key] = { from: row[key], to: next[key] };
  }
  if (Object.keys(changes).length > 0) {
    service.store.transaction(() => {
      service.store.updatePartner(next);
      service.audit(actor.name, ip, "partner.update", id, changes);
    });
    service.runtime.refreshConsoleClients();
  }
  return partnerView(next);
}

export function deletePartner(service: AdminService, actor: Actor, id: string, ip: string | null): void {
  requireRole(actor, "admin");
  const row = requireConsolePartner(service, actor, id);
  service.store.transaction(() => {
    service.store.deletePartner(id);
    service.audit(actor.name, ip, "partner.delete", id, { name: row.name, database: row.database });
  });
  service.runtime.refreshConsoleClients();
}

export function rotateSecret(
  service: AdminService,
  actor: Actor,
  id: string,
  body: Record<string, unknown>,
  ip: string | null,
) {
  requireRole(actor, "admin");
  const row = requireConsolePartner(service, actor, id);
  const problems: FieldProblem[] = [];
  unknownKeys(body, ["overlap"], problems);
  const overlap = body.overlap;
  if (typeof overlap !== "string" || !Object.hasOwn(OVERLAPS, overlap))
    problems.push({ field: "overlap", message: `must be one of ${Object.keys(OVERLAPS).join(", ")}` });
  if (problems.length > 0) throw ApiError.validation(problems);
  const ms = OVERLAPS[overlap as keyof typeof OVERLAPS];
  const now = service.clock.now();
  const secret = newKeyPair(id).secret;
  // A portal that pushes leads gets a new Basic password too, with the same overlap.
  const inboundPassword = row.inboundPasswordHash === null ? null : randomToken(32);
  const next: PartnerRow = {
    ...row,
    secretHash: hashSecret(secret),
    previousSecretHash: ms === 0 ? null : row.secretHash,
    previousValidUntil: ms === 0 ? null : now + ms,
    inboundPasswordHash: inboundPassword === null ? null : hashSecret(inboundPassword),
    previousInboundPasswordHash: ms === 0 || inboundPassword === null ? null : row.inboundPasswordHash,
    updatedAt: now,
  };
  service.store.transaction(() => {
    service.store.updatePartner(next);
    service.audit(actor.name, ip, "partner.rotate-secret", id, {
      overlap,
      previousValidUntil: next.previousValidUntil === null ? null : iso(next.previousValidUntil),
    });
  });
  service.runtime.refreshConsoleClients();
  return {
    apiSecret: secret,
    ...(inboundPassword === null
      ? {}
      : { inbound: { username: row.inboundUsername ?? row.id, password: inboundPassword } }),
    previousValidUntil: next.previousValidUntil === null ? null : iso(next.previousValidUntil),
  };
}
