// HS256 JWTs (RFC 7519, verified per RFC 8725): only HS256, required claims, issuer and
// environment checked. Verified tokens are cached (bounded) because every request verifies one.
// A token carries a tag of the credentials that obtained it (`cred`), so that giving a client
// a new key or secret revokes every token issued under the old pair (docs/reference/behaviour.md §5).
// Verification is @elysiajs/jwt's (jose underneath), on the injected clock. Signing is not: its
// sign() stamps `iat` from the wall clock whatever it is given, and a token's times must come
// from the injected clock like every other time of the server (clock.ts).
import { createHmac } from "node:crypto";
import { jwt as jwtPlugin } from "@elysiajs/jwt";
import type { Clock } from "../clock.ts";
import type { NowOrLater } from "../lib/now-or-later.ts";

export const TOKEN_TTL_SECONDS = 3600;
export const ISSUER = "partner-api";
export const MIN_SECRET_BYTES = 32;
const MAX_TOKEN_LENGTH = 4096;
const CACHE_LIMIT = 10_000;

export type Environment = "sandbox" | "production";

export interface TokenClaims {
  iss: string;
  sub: string;
  env: Environment;
  iat: number;
  exp: number;
  jti: string;
  /** Tag of the API key and secret hash the token was issued for (credentialTag). */
  cred: string;
}

/** What a token is bound to: the client and the credentials it presented. */
export interface TokenSubject {
  id: string;
  apiKey: string;
  secretHash: string;
}

export class WeakSecretError extends Error {}

const HEADER = Buffer.from(JSON.stringify({ alg: "HS256", typ: "JWT" })).toString("base64url");
const BASE64URL = /^[A-Za-z0-9_-]+$/;
/**
 * An HS256 signature (32 bytes) spelled the one way: 43 characters, the last with its two unused
 * bits at zero. jose compares decoded bytes, which would accept four spellings of one
 * signature (a malleable token).
 */
const SIGNATURE = /^[A-Za-z0-9_-]{42}[AEIMQUYcgkosw048]$/;
/**
 * What jose checks: the algorithm (HS256 only: "none" and other HMAC sizes are refused even
 * when signed with our secret), the issuer, and the presence of the claims RFC 8725 requires.
 */
const VERIFY_OPTIONS = { algorithms: ["HS256"], issuer: ISSUER, requiredClaims: ["sub", "iat", "exp"] };

function decodeJson(part: string): unknown {
  try {
    return JSON.parse(Buffer.from(part, "base64url").toString("utf8"));
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * What jose leaves to its caller, before a signature is checked: a bounded length, three
 * base64url parts, the one spelling of the signature, and a header that is a JWT's (no `typ`
 * but JWT, no critical extension).
 */
function wellFormed(token: string): boolean {
  if (token.length > MAX_TOKEN_LENGTH) return false;
  const parts = token.split(".");
  if (parts.length !== 3 || !parts.every((p) => BASE64URL.test(p))) return false;
  const [headerPart, , signaturePart] = parts as [string, string, string];
  if (!SIGNATURE.test(signaturePart)) return false;
  const header = decodeJson(headerPart);
  return isObject(header) && !("crit" in header) && (header.typ === undefined || header.typ === "JWT");
}

/** The plugin's sign and verify, as it decorates a request's context with them. */
const jwtFunctions = (secret: Uint8Array) => jwtPlugin({ secret }).decorator.jwt;

export class TokenService {
  private readonly secret: Buffer;
  private readonly jwt: ReturnType<typeof jwtFunctions>;
  private readonly verified = new Map<string, TokenClaims>();
  /** Tags per client entry: a reload makes new entries, so a changed key or secret gets a new tag. */
  private readonly tags = new WeakMap<TokenSubject, string>();

  constructor(
    secret: string,
    readonly environment: Environment,
    private readonly clock: Clock,
  ) {
    this.secret = Buffer.from(secret, "utf8");
    if (this.secret.length < MIN_SECRET_BYTES) {
      throw new WeakSecretError(`jwtSecret must be at least ${MIN_SECRET_BYTES} bytes`);
    }
    this.jwt = jwtFunctions(this.secret);
  }

  private sign(data: string): Buffer {
    return createHmac("sha256", this.secret).update(data).digest();
  }

  /**
   * A short keyed digest of the client's key and secret hash: equal while both are unchanged.
   * Keyed with the signing secret, so it tells a token's holder nothing about either.
   */
  credentialTag(subject: TokenSubject): string {
    let tag = this.tags.get(subject);
    if (tag === undefined) {
      tag = this.sign(`cred\n${subject.id}\n${subject.apiKey}\n${subject.secretHash}`)
        .subarray(0, 16)
        .toString("base64url");
      this.tags.set(subject, tag);
    }
    return tag;
  }

  /**
   * True when the claims were issued to this client under its current key and secret, or under
   * the secret a rotation replaced while its overlap lasts (docs/operators/console.md).
   */
  isBoundTo(
    claims: TokenClaims,
    subject: TokenSubject & { previous?: (TokenSubject & { validUntil: number }) | null },
  ): boolean {
    if (claims.sub !== subject.id) return false;
    if (claims.cred === this.credentialTag(subject)) return true;
    const previous = subject.previous;
    return (
      previous !== undefined &&
      previous !== null &&
      previous.validUntil > this.clock.now() &&
      claims.cred === this.credentialTag(previous)
    );
  }

  issue(subject: TokenSubject): { token: string; expiresIn: number } {
    const iat = Math.floor(this.clock.now() / 1000);
    const claims: TokenClaims = {
      iss: ISSUER,
      sub: subject.id,
      env: this.environment,
      iat,
      exp: iat + TOKEN_TTL_SECONDS,
      jti: crypto.randomUUID(),
      cred: this.credentialTag(subject),
    };
    const body = `${HEADER}.${Buffer.from(JSON.stringify(claims)).toString("base64url")}`;
    return { token: `${body}.${this.sign(body).toString("base64url")}`, expiresIn: TOKEN_TTL_SECONDS };
  }

  /**
   * The token's claims when it is genuine, current and meant for this environment; else null.
   * A token verified before answers at once; one seen for the first time, once jose has
   * checked its signature (a promise).
   */
  verify(token: string): NowOrLater<TokenClaims | null> {
    const now = this.clock.now();
    const cached = this.verified.get(token);
    if (cached) {
      if (cached.exp > now / 1000) return cached;
      this.verified.delete(token);
      return null;
    }
    if (!wellFormed(token)) return null;
    return this.jwt.verify(token, { ...VERIFY_OPTIONS, currentDate: new Date(now) }).then((payload) => {
      const claims = payload === false ? null : this.claimsOf(payload, now / 1000);
      if (claims) {
        if (this.verified.size >= CACHE_LIMIT) this.verified.delete(this.verified.keys().next().value!);
        this.verified.set(token, claims);
      }
      return claims;
    });
  }

  /** The claims of a payload jose verified, or null when it breaks a rule jose does not check. */
  private claimsOf(payload: Record<string, unknown>, nowSeconds: number): TokenClaims | null {
    const { iss, sub, env, iat, exp, jti, cred } = payload;
    if (iss !== ISSUER || env !== this.environment) return null;
    if (typeof sub !== "string" || sub === "" || typeof cred !== "string") return null;
    if (typeof iat !== "number" || typeof exp !== "number" || !Number.isFinite(iat) || !Number.isFinite(exp))
      return null;
    // jose compares exp with whole seconds; this, with the clock's own time, as the cache does.
    if (exp <= nowSeconds || iat > nowSeconds + 60) return null;
    // Never longer-lived than the tokens this server issues, whoever signed it.
    if (exp - iat > TOKEN_TTL_SECONDS) return null;
    return { iss, sub, env: this.environment, iat, exp, jti: typeof jti === "string" ? jti : "", cred };
  }
}
