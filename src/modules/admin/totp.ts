// TOTP (RFC 6238) for admins' sign-in: otpauth computes and checks the codes, uqr draws the QR
// code of the otpauth:// URI as SVG (no request leaves the server). Each accepted code's time
// step is kept, so a code is never accepted twice.
import { Secret, TOTP } from "otpauth";
import { renderSVG } from "uqr";

const ISSUER = "partner-api";
const PERIOD_SECONDS = 30;

function totpOf(secret: string, email: string): TOTP {
  return new TOTP({
    issuer: ISSUER,
    label: email,
    algorithm: "SHA1",
    digits: 6,
    period: PERIOD_SECONDS,
    secret: Secret.fromBase32(secret),
  });
}

/** A new 160-bit secret, in base32. */
export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

export function otpauthUri(secret: string, email: string): string {
  return totpOf(secret, email).toString();
}

export function qrSvg(text: string): string {
  return renderSVG(text);
}

/** The code for `now` (tests, the sandbox). */
export function totpCode(secret: string, now: number): string {
  return totpOf(secret, "x").generate({ timestamp: now });
}

/**
 * The time step of `code` when it is right for `now` (one step of drift either way) and later
 * than `lastStep`; else null.
 */
export function acceptedStep(secret: string, code: string, now: number, lastStep: number): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const delta = totpOf(secret, "x").validate({ token: code, timestamp: now, window: 1 });
  if (delta === null) return null;
  const step = Math.floor(now / 1000 / PERIOD_SECONDS) + delta;
  return step > lastStep ? step : null;
}
