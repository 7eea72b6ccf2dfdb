// The agency's side (docs/operators/console.md), without HTTP: admins and their set-up, sign-in
// with lockout, sessions, admin API tokens, partners made in the console, and the audit log.
// Every time comes from the runtime's clock; every write of a partner is served by this process
// at once and by the others within a poll of the control database (runtime.ts).
import type { Clock } from "../../clock.ts";
import type { ControlStore, Role } from "../../db/control/store.ts";
import { ApiError, type FieldProblem } from "../../errors.ts";
import type { Runtime } from "../../runtime.ts";
import { randomToken } from "../../security/secrets.ts";
import { hashPassword, passwordProblem, verifyPassword } from "./passwords.ts";
import { acceptedStep, newTotpSecret, otpauthUri, qrSvg } from "./totp.ts";

export const SETUP_LINK_TTL_MS = 24 * 3600_000;
export const SESSION_IDLE_MS = 30 * 60_000;
export const SESSION_MAX_MS = 12 * 3600_000;
export const LOCK_AFTER_FAILURES = 10;
export const LOCK_MS = 15 * 60_000;
export const ADMIN_TOKEN_PREFIX = "pa_admin_";

const ROLE_RANK: Record<Role, number> = { viewer: 0, admin: 1, owner: 2 };

/** Who is calling the admin API: a signed-in admin or an admin API token. */
export interface Actor {
  kind: "session" | "token";
  /** The admin's e-mail, or "token:<id>": what the audit log names. */
  name: string;
  role: Role;
  /** Database names the actor works on; empty: every one. */
  databases: string[];
  adminId: number | null;
  sessionHash: string | null;
  csrfToken: string | null;
}

export function sha256Hex(text: string): string {
  return new Bun.CryptoHasher("sha256").update(text).digest("hex");
}

export function hasRole(actor: Actor, role: Role): boolean {
  return ROLE_RANK[actor.role] >= ROLE_RANK[role];
}

export function requireRole(actor: Actor, role: Role): void {
  if (!hasRole(actor, role)) throw new ApiError("INSUFFICIENT_ROLE", `Your role (${actor.role}) does not allow this`);
}

/** Whether the actor works on the database named `name`. */
export function worksOn(actor: { databases: string[] }, name: string): boolean {
  return actor.databases.length === 0 || actor.databases.includes(name);
}

const EMAIL = /^[^\s@<>"]{1,64}@[A-Za-z0-9.-]{1,189}\.[A-Za-z]{2,63}$|^[^\s@<>"]{1,64}@[a-z0-9.-]+\.invalid$/;

export function isEmail(value: unknown): value is string {
  return typeof value === "string" && value.length <= 254 && EMAIL.test(value);
}

/** Makes an admin waiting for its set-up (or renews the link of one still waiting); returns the link's token. */
export function createAdmin(
  store: ControlStore,
  input: { email: string; role: Role; databases: string[] },
  now: number,
): { id: number; token: string } {
  const token = randomToken(43);
  const existing = store.adminByEmail(input.email);
  if (existing !== null) {
    if (existing.status !== "pending") throw new ApiError("ALREADY_EXISTS", `An admin ${input.email} already exists`);
    store.renewSetup(existing.id, sha256Hex(token), now + SETUP_LINK_TTL_MS);
    store.updateAdmin(existing.id, { role: input.role, databases: input.databases });
    return { id: existing.id, token };
  }
  const id = store.insertAdmin({
    email: input.email,
    role: input.role,
    databases: input.databases,
    status: "pending",
    setupTokenHash: sha256Hex(token),
    setupExpiresAt: now + SETUP_LINK_TTL_MS,
    createdAt: now,
  });
  return { id, token };
}

export function setupUrl(origin: string, token: string): string {
  return `${origin}/console/setup/${token}`;
}

export interface SignIn {
  cookie: string;
  csrfToken: string;
  admin: { email: string; role: Role };
}

export class AdminService {
  constructor(
    readonly runtime: Runtime,
    readonly store: ControlStore,
  ) {}

  get clock(): Clock {
    return this.runtime.clock;
  }

  audit(
    actor: string,
    ip: string | null,
    action: string,
    target: string | null,
    changes: Record<string, unknown> | null,
  ) {
    this.store.audit({ at: this.clock.now(), actor, ip, action, target, changes });
  }

  // Set-up: the one-time link's token, a password, then the first TOTP code.

  private pendingAdmin(token: unknown) {
    if (typeof token !== "string" || token.length > 200) throw new ApiError("INVALID_SETUP_LINK");
    const admin = this.store.adminBySetupToken(sha256Hex(token));
    if (admin === null || admin.status !== "pending" || (admin.setupExpiresAt ?? 0) <= this.clock.now())
      throw new ApiError("INVALID_SETUP_LINK");
    return admin;
  }

  async setup(token: unknown, password: unknown, ip: string | null) {
    const admin = this.pendingAdmin(token);
    if (typeof password !== "string") throw ApiError.validation([{ field: "password", message: "is required" }]);
    const problem = await passwordProblem(password, admin.email);
    if (problem !== null) throw ApiError.validation([{ field: "password", message: problem }]);
    const secret = await newTotpSecret();
    this.store.setPendingCredentials(admin.id, await hashPassword(password), secret);
    this.audit(admin.email, ip, "admin.setup.password", admin.email, null);
    const uri = await otpauthUri(secret, admin.email);
    return { totpSecret: secret, otpauthUri: uri, qrSvg: await qrSvg(uri) };
  }

  async confirmSetup(token: unknown, code: unknown, ip: string | null): Promise<{ email: string; role: Role }> {
    const admin = this.pendingAdmin(token);
    if (admin.totpSecret === null || admin.passwordHash === null)
      throw ApiError.validation([{ field: "token", message: "set a password first (POST /admin/v1/setup)" }]);
    const step = typeof code === "string" ? await acceptedStep(admin.totpSecret, code, this.clock.now(), 0) : null;
    // The link may have been spent meanwhile (two confirmations at once): only one activates.
    if (this.store.adminBySetupToken(admin.setupTokenHash!) === null) throw new ApiError("INVALID_SETUP_LINK");
    if (step === null) throw ApiError.validation([{ field: "code", message: "is not the current code of your app" }]);
    this.store.activate(admin.id, step);
    this.audit(admin.email, ip, "admin.setup.confirm", admin.email, null);
    return { email: admin.email, role: admin.role };
  }

  // Sign-in: every wrong part, and a locked account or address, answers the same 401.

  private locked(subject: string, now: number): boolean {
    return this.store.failures(subject).lockedUntil > now;
  }

  private fail(subject: string, now: number): void {
    const { failures, lockedUntil } = this.store.failures(subject);
    if (lockedUntil > now) return;
    const count = failures + 1;
    if (count >= LOCK_AFTER_FAILURES) this.store.setFailures(subject, 0, now + LOCK_MS);
    else this.store.setFailures(subject, count, 0);
  }

  async signIn(body: Record<string, unknown>, ip: string | null): Promise<SignIn> {
    const email = typeof body.email === "string" ? body.email.trim().slice(0, 254) : "";
    const password = typeof body.password === "string" ? body.password.slice(0, 1024) : "";
    const code = typeof body.code === "string" ? body.code : "";
    const emailSubject = `email:${email.toLowerCase()}`;
    const ipSubject = `ip:${ip ?? "unknown"}`;
    const admin = email === "" ? null : this.store.adminByEmail(email);
    const active = admin !== null && admin.status === "active" ? admin : null;
    // The password is checked whatever else is wrong: every refusal costs the same Argon2id work.
    const passwordOk = await verifyPassword(password, active?.passwordHash ?? null);
    const now = this.clock.now();
    const step =
      active?.totpSecret != null ? await acceptedStep(active.totpSecret, code, now, active.totpLastStep) : null;
    const codeOk = active !== null && (active.totpSecret === null || step !== null);
    const lockedOut = this.locked(emailSubject, now) || this.locked(ipSubject, now);
    if (active === null || !passwordOk || !codeOk || lockedOut) {
      this.store.transaction(() => {
        this.fail(emailSubject, now);
        this.fail(ipSubject, now);
        this.audit(email || "-", ip, "sign-in.failed", null, null);
      });
      throw new ApiError("INVALID_CREDENTIALS");
    }
    const cookie = randomToken(43);
    const csrfToken = randomToken(32);
    this.store.transaction(() => {
      if (step !== null) this.store.setTotpStep(active.id, step);
      this.store.clearFailures(emailSubject);
      this.store.insertSession(
        { idHash: sha256Hex(cookie), adminId: active.id, csrfToken, createdAt: now, lastSeenAt: now },
        ip,
      );
      this.audit(active.email, ip, "sign-in", null, null);
    });
    return { cookie, csrfToken, admin: { email: active.email, role: active.role } };
  }

  /** The actor of a session cookie, when the session is alive (30 minutes idle, 12 hours at most). */
  sessionActor(cookie: string): Actor | null {
    const idHash = sha256Hex(cookie);
    const session = this.store.session(idHash);
    if (session === null) return null;
    const now = this.clock.now();
    const admin = this.store.adminById(session.adminId);
    if (
      admin === null ||
      admin.status !== "active" ||
      now - session.lastSeenAt > SESSION_IDLE_MS ||
      now - session.createdAt > SESSION_MAX_MS
    ) {
      this.store.deleteSession(idHash);
      return null;
    }
    this.store.touchSession(idHash, now);
    return {
      kind: "session",
      name: admin.email,
      role: admin.role,
      databases: admin.databases,
      adminId: admin.id,
      sessionHash: idHash,
      csrfToken: session.csrfToken,
    };
  }

  signOut(actor: Actor, ip: string | null): void {
    if (actor.sessionHash === null) return;
    this.store.deleteSession(actor.sessionHash);
    this.audit(actor.name, ip, "sign-out", null, null);
  }

  // Admin API tokens

  tokenActor(token: string): Actor | null {
    if (!token.startsWith(ADMIN_TOKEN_PREFIX) || token.length > 200) return null;
    const row = this.store.tokenByHash(sha256Hex(token));
    if (row === null || row.revokedAt !== null) return null;
    return {
      kind: "token",
      name: `token:${row.id}`,
      role: row.role,
      databases: row.databases,
      adminId: null,
      sessionHash: null,
      csrfToken: null,
    };
  }

  createToken(actor: Actor, body: Record<string, unknown>, ip: string | null) {
    requireRole(actor, "admin");
    const problems: FieldProblem[] = [];
    unknownKeys(body, ["name", "role", "databases"], problems);
    const name = text(body.name, "name", 100, problems);
    const role = body.role;
    if (role !== "owner" && role !== "admin" && role !== "viewer")
      problems.push({ field: "role", message: "must be owner, admin or viewer" });
    else if (ROLE_RANK[role] > ROLE_RANK[actor.role])
      problems.push({ field: "role", message: `cannot exceed your own role (${actor.role})` });
    const databases = this.databaseList(actor, body.databases, problems);
    if (problems.length > 0) throw ApiError.validation(problems);
    const id = `tok_${randomToken(12)}`;
    const token = `${ADMIN_TOKEN_PREFIX}${randomToken(40)}`;
    this.store.transaction(() => {
      this.store.insertToken({
        id,
        name: name!,
        tokenHash: sha256Hex(token),
        role: role as Role,
        databases,
        createdBy: actor.name,
        createdAt: this.clock.now(),
        lastUsedAt: null,
        revokedAt: null,
      });
      this.audit(actor.name, ip, "token.create", id, { name, role, databases });
    });
    return { id, token, name, role, databases };
  }

  listTokens() {
    return this.store.tokens().map((t) => ({
      id: t.id,
      name: t.name,
      role: t.role,
      databases: t.databases,
      createdBy: t.createdBy,
      createdAt: iso(t.createdAt),
      lastUsedAt: t.lastUsedAt === null ? null : iso(t.lastUsedAt),
      revokedAt: t.revokedAt === null ? null : iso(t.revokedAt),
    }));
  }

  revokeToken(actor: Actor, id: string, ip: string | null): void {
    requireRole(actor, "admin");
    if (!this.store.revokeToken(id, this.clock.now())) throw new ApiError("NOT_FOUND");
    this.audit(actor.name, ip, "token.revoke", id, null);
  }

  /** A token's state-changing call: its last use is kept (the audit entry says what it did). */
  touchToken(actor: Actor): void {
    if (actor.kind === "token") this.store.touchToken(actor.name.slice("token:".length), this.clock.now());
  }

  /** `databases` of a body: names of the config, within the actor's own. */
  databaseList(actor: Actor, value: unknown, problems: FieldProblem[]): string[] {
    if (value === undefined) return actor.databases;
    if (!Array.isArray(value) || value.length > 100 || !value.every((v) => typeof v === "string")) {
      problems.push({ field: "databases", message: "must be a list of database names" });
      return [];
    }
    for (const name of value as string[]) {
      if (!this.runtime.config.databases.has(name))
        problems.push({ field: "databases", message: `no database named ${JSON.stringify(name.slice(0, 64))}` });
      else if (!worksOn(actor, name))
        problems.push({ field: "databases", message: `you do not work on ${JSON.stringify(name)}` });
    }
    if (value.length === 0 && actor.databases.length > 0)
      problems.push({ field: "databases", message: "must name databases you work on" });
    return [...new Set(value as string[])];
  }

  // Admins (owner only)

  listAdmins() {
    return this.store.admins().map((a) => ({
      id: a.id,
      email: a.email,
      role: a.role,
      databases: a.databases,
      status: a.status,
      totp: a.totpSecret !== null,
      createdAt: iso(a.createdAt),
    }));
  }

  inviteAdmin(actor: Actor, body: Record<string, unknown>, ip: string | null, origin: string) {
    requireRole(actor, "owner");
    const problems: FieldProblem[] = [];
    unknownKeys(body, ["email", "role", "databases"], problems);
    if (!isEmail(body.email)) problems.push({ field: "email", message: "must be an e-mail address" });
    const role = body.role;
    if (role !== "owner" && role !== "admin" && role !== "viewer")
      problems.push({ field: "role", message: "must be owner, admin or viewer" });
    const databases = this.databaseList(actor, body.databases ?? [], problems);
    if (problems.length > 0) throw ApiError.validation(problems);
    const email = body.email as string;
    const made = this.store.transaction(() => {
      const made = createAdmin(this.store, { email, role: role as Role, databases }, this.clock.now());
      this.audit(actor.name, ip, "admin.invite", email, { role, databases });
      return made;
    });
    return { id: made.id, email, role, databases, setupUrl: setupUrl(origin, made.token) };
  }

  revokeSessions(actor: Actor, id: number, ip: string | null): void {
    requireRole(actor, "owner");
    const admin = this.store.adminById(id);
    if (admin === null) throw new ApiError("NOT_FOUND");
    this.store.transaction(() => {
      const ended = this.store.deleteSessionsOf(id);
      this.audit(actor.name, ip, "admin.sessions.revoke", admin.email, { sessions: ended });
    });
  }

  setAdminStatus(actor: Actor, id: number, disabled: boolean, ip: string | null): void {
    requireRole(actor, "owner");
    const admin = this.store.adminById(id);
    if (admin === null) throw new ApiError("NOT_FOUND");
    if (admin.id === actor.adminId)
      throw ApiError.validation([{ field: "disabled", message: "you cannot disable yourself" }]);
    if (admin.status === "pending")
      throw ApiError.validation([{ field: "disabled", message: "this admin has not set up yet" }]);
    const status = disabled ? "disabled" : "active";
    this.store.transaction(() => {
      this.store.updateAdmin(id, { status });
      if (disabled) this.store.deleteSessionsOf(id);
      this.audit(actor.name, ip, disabled ? "admin.disable" : "admin.enable", admin.email, null);
    });
  }

  // The audit log

  auditPage(query: URLSearchParams) {
    const problems: FieldProblem[] = [];
    const time = (name: string): number | undefined => {
      const value = query.get(name);
      if (value === null || value === "") return undefined;
      const ms = Date.parse(value);
      if (Number.isNaN(ms) || !/^\d{4}-\d{2}-\d{2}/.test(value)) {
        problems.push({ field: name, message: "must be an ISO 8601 date or date-time" });
        return undefined;
      }
      return ms;
    };
    const since = time("since");
    const until = time("until");
    const page = whole(query.get("page"), "page", 1, 1_000_000, 1, problems);
    const limit = whole(query.get("limit"), "limit", 1, 100, 20, problems);
    if (problems.length > 0) throw ApiError.validation(problems);
    const filter = {
      since,
      until,
      actor: query.get("admin") || undefined,
      action: query.get("action") || undefined,
    };
    const { entries, total } = this.store.auditPage(filter, limit, (page - 1) * limit);
    return {
      data: entries.map(auditView),
      meta: { page, limit, total, totalPages: Math.ceil(total / limit) },
    };
  }

  *auditExport(query: URLSearchParams): Generator<string> {
    const filter = {
      since: query.get("since") ? Date.parse(query.get("since")!) || undefined : undefined,
      until: query.get("until") ? Date.parse(query.get("until")!) || undefined : undefined,
      actor: query.get("admin") || undefined,
      action: query.get("action") || undefined,
    };
    for (let offset = 0; ; offset += 1000) {
      const { entries } = this.store.auditPage(filter, 1000, offset);
      for (const entry of entries) yield `${JSON.stringify(auditView(entry))}\n`;
      if (entries.length < 1000) return;
    }
  }
}

export function auditView(e: {
  at: number;
  actor: string;
  ip: string | null;
  action: string;
  target: string | null;
  changes: unknown;
  id: number;
}) {
  return { id: e.id, at: iso(e.at), admin: e.actor, ip: e.ip, action: e.action, target: e.target, changes: e.changes };
}

export function iso(ms: number): string {
  return new Date(ms).toISOString();
}

export function unknownKeys(body: Record<string, unknown>, known: readonly string[], problems: FieldProblem[]): void {
  for (const key of Object.keys(body)) {
    if (!known.includes(key)) problems.push({ field: key.slice(0, 64), message: "unknown field" });
  }
}

/** A required (unless `optional`) single-line text of at most `max` characters, trimmed. */
export function text(
  value: unknown,
  field: string,
  max: number,
  problems: FieldProblem[],
  optional = false,
): string | undefined {
  if (value === undefined && optional) return undefined;
  if (typeof value !== "string" || value.trim() === "") {
    problems.push({ field, message: "is required" });
    return undefined;
  }
  const trimmed = value.trim();
  if ([...trimmed].length > max) {
    problems.push({ field, message: `must have at most ${max} characters` });
    return undefined;
  }
  if (/[\u0000-\u001f\u007f]/.test(trimmed)) {
    problems.push({ field, message: "must not contain control characters" });
    return undefined;
  }
  return trimmed;
}

export function whole(
  value: string | null,
  field: string,
  min: number,
  max: number,
  fallback: number,
  problems: FieldProblem[],
): number {
  if (value === null || value === "") return fallback;
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
    problems.push({ field, message: `must be an integer between ${min} and ${max}` });
    return fallback;
  }
  return Number(value);
}
