// The control database's rows and the SQL that reads and writes them (no HTTP, no rules: those
// are in modules/admin/). One ControlStore per process; every process of `serve --workers N`
// opens the same file, and `changed()` tells when another one committed.
import type { Database } from "bun:sqlite";
import { closeDatabase } from "../open.ts";
import { openControlDatabase } from "./open.ts";

export type Role = "owner" | "admin" | "viewer";
export const ROLES: readonly Role[] = ["owner", "admin", "viewer"];

export interface AdminRow {
  id: number;
  email: string;
  role: Role;
  /** Database names this admin works on; empty: every database. */
  databases: string[];
  status: "pending" | "active" | "disabled";
  passwordHash: string | null;
  totpSecret: string | null;
  totpLastStep: number;
  setupTokenHash: string | null;
  setupExpiresAt: number | null;
  createdAt: number;
}

export interface SessionRow {
  idHash: string;
  adminId: number;
  csrfToken: string;
  createdAt: number;
  lastSeenAt: number;
}

export interface ApiTokenRow {
  id: string;
  name: string;
  tokenHash: string;
  role: Role;
  databases: string[];
  createdBy: string;
  createdAt: number;
  lastUsedAt: number | null;
  revokedAt: number | null;
}

export interface PartnerRow {
  id: string;
  name: string;
  contactEmail: string;
  useCase: string;
  database: string;
  scopes: string[];
  rateLimitPerMinute: number;
  allowedIps: string[];
  enabled: boolean;
  apiKey: string;
  secretHash: string;
  previousSecretHash: string | null;
  previousValidUntil: number | null;
  inboundFormat: string | null;
  inboundUsername: string | null;
  inboundPasswordHash: string | null;
  previousInboundPasswordHash: string | null;
  createdAt: number;
  updatedAt: number;
}

export interface AuditEntry {
  id: number;
  at: number;
  actor: string;
  ip: string | null;
  action: string;
  target: string | null;
  changes: Record<string, unknown> | null;
}

export interface AuditFilter {
  since?: number;
  until?: number;
  actor?: string;
  action?: string;
}

type Raw = Record<string, unknown>;

const json = (text: unknown): string[] => JSON.parse(String(text)) as string[];

function adminOf(r: Raw): AdminRow {
  return {
    id: r.id as number,
    email: r.email as string,
    role: r.role as Role,
    databases: json(r.databases),
    status: r.status as AdminRow["status"],
    passwordHash: r.password_hash as string | null,
    totpSecret: r.totp_secret as string | null,
    totpLastStep: r.totp_last_step as number,
    setupTokenHash: r.setup_token_hash as string | null,
    setupExpiresAt: r.setup_expires_at as number | null,
    createdAt: r.created_at as number,
  };
}

function tokenOf(r: Raw): ApiTokenRow {
  return {
    id: r.id as string,
    name: r.name as string,
    tokenHash: r.token_hash as string,
    role: r.role as Role,
    databases: json(r.databases),
    createdBy: r.created_by as string,
    createdAt: r.created_at as number,
    lastUsedAt: r.last_used_at as number | null,
    revokedAt: r.revoked_at as number | null,
  };
}

function partnerOf(r: Raw): PartnerRow {
  return {
    id: r.id as string,
    name: r.name as string,
    contactEmail: r.contact_email as string,
    useCase: r.use_case as string,
    database: r.database as string,
    scopes: json(r.scopes),
    rateLimitPerMinute: r.rate_limit_per_minute as number,
    allowedIps: json(r.allowed_ips),
    enabled: r.enabled === 1,
    apiKey: r.api_key as string,
    secretHash: r.secret_hash as string,
    previousSecretHash: r.previous_secret_hash as string | null,
    previousValidUntil: r.previous_valid_until as number | null,
    inboundFormat: r.inbound_format as string | null,
    inboundUsername: r.inbound_username as string | null,
    inboundPasswordHash: r.inbound_password_hash as string | null,
    previousInboundPasswordHash: r.previous_inbound_password_hash as string | null,
    createdAt: r.created_at as number,
    updatedAt: r.updated_at as number,
  };
}

export class ControlStore {
  private lastDataVersion: number;
  private lastPartnersVersion: number;

  constructor(
    readonly db: Database,
    readonly path: string,
  ) {
    this.lastDataVersion = this.dataVersion();
    this.lastPartnersVersion = this.partnersVersion();
  }

  static open(path: string, options: { create: boolean }): ControlStore {
    return new ControlStore(openControlDatabase(path, options), path);
  }

  close(): void {
    closeDatabase(this.db);
  }

  private dataVersion(): number {
    return (this.db.query("PRAGMA data_version").get() as { data_version: number }).data_version;
  }

  /**
   * True once after another connection (another process) changed the partners. The figures
   * every process writes in batches commit to the same file: a commit is first seen by its
   * data_version, then the partners' own count of changes tells whether it touched them.
   */
  changed(): boolean {
    const version = this.dataVersion();
    if (version === this.lastDataVersion) return false;
    this.lastDataVersion = version;
    const partners = this.partnersVersion();
    if (partners === this.lastPartnersVersion) return false;
    this.lastPartnersVersion = partners;
    return true;
  }

  private partnersVersion(): number {
    return (this.db.query("SELECT version FROM partners_version").get() as { version: number }).version;
  }

  transaction<T>(work: () => T): T {
    return this.db.transaction(work).immediate();
  }

  // Admins

  hasAdmins(): boolean {
    return this.db.query("SELECT 1 FROM admins LIMIT 1").get() !== null;
  }

  admins(): AdminRow[] {
    return (this.db.query("SELECT * FROM admins ORDER BY id").all() as Raw[]).map(adminOf);
  }

  adminById(id: number): AdminRow | null {
    const row = this.db.query("SELECT * FROM admins WHERE id = ?").get(id) as Raw | null;
    return row === null ? null : adminOf(row);
  }

  adminByEmail(email: string): AdminRow | null {
    const row = this.db.query("SELECT * FROM admins WHERE email = ?").get(email) as Raw | null;
    return row === null ? null : adminOf(row);
  }

  adminBySetupToken(tokenHash: string): AdminRow | null {
    const row = this.db.query("SELECT * FROM admins WHERE setup_token_hash = ?").get(tokenHash) as Raw | null;
    return row === null ? null : adminOf(row);
  }

  insertAdmin(admin: {
    email: string;
    role: Role;
    databases: string[];
    status: AdminRow["status"];
    passwordHash?: string | null;
    setupTokenHash: string | null;
    setupExpiresAt: number | null;
    createdAt: number;
  }): number {
    const result = this.db
      .query(
        `INSERT INTO admins (email, role, databases, status, password_hash, setup_token_hash, setup_expires_at, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        admin.email,
        admin.role,
        JSON.stringify(admin.databases),
        admin.status,
        admin.passwordHash ?? null,
        admin.setupTokenHash,
        admin.setupExpiresAt,
        admin.createdAt,
      );
    return Number(result.lastInsertRowid);
  }

  /** A new set-up link for an existing admin (`admin new` for an address already there but pending). */
  renewSetup(id: number, tokenHash: string, expiresAt: number): void {
    this.db
      .query("UPDATE admins SET setup_token_hash = ?, setup_expires_at = ? WHERE id = ?")
      .run(tokenHash, expiresAt, id);
  }

  setPendingCredentials(id: number, passwordHash: string, totpSecret: string): void {
    this.db
      .query("UPDATE admins SET password_hash = ?, totp_secret = ? WHERE id = ?")
      .run(passwordHash, totpSecret, id);
  }

  activate(id: number, totpStep: number): void {
    this.db
      .query(
        "UPDATE admins SET status = 'active', setup_token_hash = NULL, setup_expires_at = NULL, totp_last_step = ? WHERE id = ?",
      )
      .run(totpStep, id);
  }

  setTotpStep(id: number, step: number): void {
    this.db.query("UPDATE admins SET totp_last_step = ? WHERE id = ?").run(step, id);
  }

  updateAdmin(id: number, change: { role?: Role; databases?: string[]; status?: AdminRow["status"] }): void {
    if (change.role !== undefined) this.db.query("UPDATE admins SET role = ? WHERE id = ?").run(change.role, id);
    if (change.databases !== undefined)
      this.db.query("UPDATE admins SET databases = ? WHERE id = ?").run(JSON.stringify(change.databases), id);
    if (change.status !== undefined) this.db.query("UPDATE admins SET status = ? WHERE id = ?").run(change.status, id);
  }

  // Sign-in failures

  failures(subject: string): { failures: number; lockedUntil: number } {
    const row = this.db.query("SELECT failures, locked_until FROM sign_in_failures WHERE subject = ?").get(subject) as {
      failures: number;
      locked_until: number;
    } | null;
    return row === null ? { failures: 0, lockedUntil: 0 } : { failures: row.failures, lockedUntil: row.locked_until };
  }

  setFailures(subject: string, failures: number, lockedUntil: number): void {
    this.db
      .query(
        `INSERT INTO sign_in_failures (subject, failures, locked_until) VALUES (?, ?, ?)
         ON CONFLICT (subject) DO UPDATE SET failures = excluded.failures, locked_until = excluded.locked_until`,
      )
      .run(subject, failures, lockedUntil);
  }

  clearFailures(subject: string): void {
    this.db.query("DELETE FROM sign_in_failures WHERE subject = ?").run(subject);
  }

  // Sessions

  insertSession(session: SessionRow, ip: string | null): void {
    this.db
      .query(
        "INSERT INTO admin_sessions (id_hash, admin_id, csrf_token, created_at, last_seen_at, ip) VALUES (?, ?, ?, ?, ?, ?)",
      )
      .run(session.idHash, session.adminId, session.csrfToken, session.createdAt, session.lastSeenAt, ip);
  }

  session(idHash: string): SessionRow | null {
    const r = this.db.query("SELECT * FROM admin_sessions WHERE id_hash = ?").get(idHash) as Raw | null;
    if (r === null) return null;
    return {
      idHash: r.id_hash as string,
      adminId: r.admin_id as number,
      csrfToken: r.csrf_token as string,
      createdAt: r.created_at as number,
      lastSeenAt: r.last_seen_at as number,
    };
  }

  touchSession(idHash: string, at: number): void {
    this.db.query("UPDATE admin_sessions SET last_seen_at = ? WHERE id_hash = ?").run(at, idHash);
  }

  deleteSession(idHash: string): void {
    this.db.query("DELETE FROM admin_sessions WHERE id_hash = ?").run(idHash);
  }

  deleteSessionsOf(adminId: number): number {
    return this.db.query("DELETE FROM admin_sessions WHERE admin_id = ?").run(adminId).changes;
  }

  // Admin API tokens

  insertToken(token: ApiTokenRow): void {
    this.db
      .query(
        "INSERT INTO api_tokens (id, name, token_hash, role, databases, created_by, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
      )
      .run(
        token.id,
        token.name,
        token.tokenHash,
        token.role,
        JSON.stringify(token.databases),
        token.createdBy,
        token.createdAt,
      );
  }

  tokenByHash(tokenHash: string): ApiTokenRow | null {
    const row = this.db.query("SELECT * FROM api_tokens WHERE token_hash = ?").get(tokenHash) as Raw | null;
    return row === null ? null : tokenOf(row);
  }

  tokens(): ApiTokenRow[] {
    return (this.db.query("SELECT * FROM api_tokens ORDER BY created_at DESC, id").all() as Raw[]).map(tokenOf);
  }

  revokeToken(id: string, at: number): boolean {
    return (
      this.db.query("UPDATE api_tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL").run(at, id).changes > 0
    );
  }

  touchToken(id: string, at: number): void {
    this.db.query("UPDATE api_tokens SET last_used_at = ? WHERE id = ?").run(at, id);
  }

  // Partners made in the console

  partners(): PartnerRow[] {
    return (this.db.query("SELECT * FROM partners ORDER BY created_at, id").all() as Raw[]).map(partnerOf);
  }

  partner(id: string): PartnerRow | null {
    const row = this.db.query("SELECT * FROM partners WHERE id = ?").get(id) as Raw | null;
    return row === null ? null : partnerOf(row);
  }

  insertPartner(p: PartnerRow): void {
    this.db
      .query(
        `INSERT INTO partners (id, name, contact_email, use_case, database, scopes, rate_limit_per_minute, allowed_ips,
           enabled, api_key, secret_hash, previous_secret_hash, previous_valid_until, inbound_format, inbound_username,
           inbound_password_hash, previous_inbound_password_hash, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        p.id,
        p.name,
        p.contactEmail,
        p.useCase,
        p.database,
        JSON.stringify(p.scopes),
        p.rateLimitPerMinute,
        JSON.stringify(p.allowedIps),
        p.enabled ? 1 : 0,
        p.apiKey,
        p.secretHash,
        p.previousSecretHash,
        p.previousValidUntil,
        p.inboundFormat,
        p.inboundUsername,
        p.inboundPasswordHash,
        p.previousInboundPasswordHash,
        p.createdAt,
        p.updatedAt,
      );
  }

  updatePartner(p: PartnerRow): void {
    this.db
      .query(
        `UPDATE partners SET name = ?, scopes = ?, rate_limit_per_minute = ?, allowed_ips = ?, enabled = ?,
           secret_hash = ?, previous_secret_hash = ?, previous_valid_until = ?, inbound_password_hash = ?,
           previous_inbound_password_hash = ?, updated_at = ?
         WHERE id = ?`,
      )
      .run(
        p.name,
        JSON.stringify(p.scopes),
        p.rateLimitPerMinute,
        JSON.stringify(p.allowedIps),
        p.enabled ? 1 : 0,
        p.secretHash,
        p.previousSecretHash,
        p.previousValidUntil,
        p.inboundPasswordHash,
        p.previousInboundPasswordHash,
        p.updatedAt,
        p.id,
      );
  }

  deletePartner(id: string): boolean {
    return this.db.query("DELETE FROM partners WHERE id = ?").run(id).changes > 0;
  }

  // The audit log: appended to, never changed (its triggers refuse UPDATE and DELETE).

  audit(entry: Omit<AuditEntry, "id">): void {
    this.db
      .query("INSERT INTO audit_log (at, actor, ip, action, target, changes) VALUES (?, ?, ?, ?, ?, ?)")
      .run(
        entry.at,
        entry.actor,
        entry.ip,
        entry.action,
        entry.target,
        entry.changes === null ? null : JSON.stringify(entry.changes),
      );
  }

  private auditWhere(filter: AuditFilter): { sql: string; args: (string | number)[] } {
    const clauses: string[] = [];
    const args: (string | number)[] = [];
    if (filter.since !== undefined) {
      clauses.push("at >= ?");
      args.push(filter.since);
    }
    if (filter.until !== undefined) {
      clauses.push("at < ?");
      args.push(filter.until);
    }
    if (filter.actor !== undefined) {
      clauses.push("actor = ? COLLATE NOCASE");
      args.push(filter.actor);
    }
    if (filter.action !== undefined) {
      clauses.push("action = ?");
      args.push(filter.action);
    }
    return { sql: clauses.length === 0 ? "" : `WHERE ${clauses.join(" AND ")}`, args };
  }

  auditPage(filter: AuditFilter, limit: number, offset: number): { entries: AuditEntry[]; total: number } {
    const { sql, args } = this.auditWhere(filter);
    const total = (this.db.query(`SELECT count(*) AS n FROM audit_log ${sql}`).get(...args) as { n: number }).n;
    const rows = this.db
      .query(`SELECT * FROM audit_log ${sql} ORDER BY at DESC, id DESC LIMIT ? OFFSET ?`)
      .all(...args, limit, offset) as Raw[];
    return {
      total,
      entries: rows.map((r) => ({
        id: r.id as number,
        at: r.at as number,
        actor: r.actor as string,
        ip: r.ip as string | null,
        action: r.action as string,
        target: r.target as string | null,
        changes: r.changes === null ? null : (JSON.parse(r.changes as string) as Record<string, unknown>),
      })),
    };
  }
}
