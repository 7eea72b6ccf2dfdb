// The admin API's own guard (docs/operators/console.md): a console session (its __Host- cookie,
// and its CSRF token on every state-changing call) or an admin API token. A partner's token is
// no admin token, and an admin token is never a partner's (plugins/guard.ts knows only JWTs).
import { timingSafeEqual } from "node:crypto";
import { ApiError } from "../../errors.ts";
import { settle } from "../../lib/now-or-later.ts";
import type { HeaderRecord } from "../../limits/headers.ts";
import type { RequestState } from "../../plugins/context.ts";
import { failAuthentication } from "../../plugins/guard.ts";
import type { Runtime } from "../../runtime.ts";
import { parseAddress } from "../../security/ip.ts";
import { type Actor, type AdminService, SESSION_MAX_MS } from "./service.ts";

export const SESSION_COOKIE = "__Host-partner-api-session";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

export function cookieValue(header: string | null, name: string): string | null {
  if (header === null) return null;
  for (const part of header.split(";")) {
    const at = part.indexOf("=");
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return null;
}

/** The session cookie: __Host- (no Domain, Path=/), HttpOnly, Secure, SameSite=Strict. */
export function sessionCookie(value: string): string {
  return `${SESSION_COOKIE}=${value}; Path=/; Max-Age=${SESSION_MAX_MS / 1000}; HttpOnly; Secure; SameSite=Strict`;
}

export const CLEARED_COOKIE = `${SESSION_COOKIE}=; Path=/; Max-Age=0; HttpOnly; Secure; SameSite=Strict`;

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * Signing in and setting up go over HTTPS (the request's own scheme, or X-Forwarded-Proto from
 * a trusted proxy), or plain HTTP from this machine's loopback address.
 */
export function requireSecureChannel(request: Request, state: RequestState): void {
  const forwarded = state.viaTrustedProxy ? request.headers.get("x-forwarded-proto") : null;
  const scheme = (forwarded?.split(",")[0]?.trim() ?? new URL(request.url).protocol.slice(0, -1)).toLowerCase();
  if (scheme === "https") return;
  const address = state.ip === null ? null : parseAddress(state.ip);
  if (address !== null && address.range() === "loopback") return;
  throw new ApiError("HTTPS_REQUIRED");
}

/** The caller of an admin route, or a 401 (which drains the address's failed-auth bucket, as partners' do). */
export async function authenticate(
  runtime: Runtime,
  service: AdminService,
  request: Request,
  state: RequestState,
  headers: HeaderRecord,
): Promise<Actor> {
  headers["cache-control"] = "no-store";
  const authorization = request.headers.get("authorization");
  let actor: Actor | null = null;
  if (authorization !== null) {
    const bearer = /^bearer\s+(.+)$/i.exec(authorization.trim());
    actor = bearer === null ? null : service.tokenActor(bearer[1]!.trim());
  } else {
    const cookie = cookieValue(request.headers.get("cookie"), SESSION_COOKIE);
    actor = cookie === null || cookie.length > 200 ? null : service.sessionActor(cookie);
  }
  if (actor === null) {
    await settle(failAuthentication(runtime, state.ip, headers, "ADMIN_AUTH_REQUIRED"), () => undefined);
    throw new ApiError("ADMIN_AUTH_REQUIRED");
  }
  if (actor.kind === "session" && !SAFE_METHODS.has(request.method)) {
    const sent = request.headers.get("x-csrf-token");
    if (sent === null || actor.csrfToken === null || !sameText(sent, actor.csrfToken))
      throw new ApiError("INVALID_CSRF_TOKEN");
  }
  if (!SAFE_METHODS.has(request.method)) service.touchToken(actor);
  return actor;
}
