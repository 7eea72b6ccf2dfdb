// TOTP (RFC 6238) for admins' sign-in: otpauth computes and checks the codes, uqr draws the QR
// code of the otpauth:// URI as SVG (no request leaves the server). Each accepted code's time
// step is kept, so a code is never accepted twice. Both libraries load on first use, not at
// every server's start.

let otpauth: Promise<typeof import("otpauth")> | null = null;
const lib = () => {
  otpauth ??= import("otpauth");
  return otpauth;
};

const ISSUER = "partner-api";
const PERIOD_SECONDS = 30;

async function totpOf(secret: string, email: string) {
  const { Secret, TOTP } = await lib();
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
export async function newTotpSecret(): Promise<string> {
  const { Secret } = await lib();
  return new Secret({ size: 20 }).base32;
}

export async function otpauthUri(secret: string, email: string): Promise<string> {
  return (await totpOf(secret, email)).toString();
}

export async function qrSvg(text: string): Promise<string> {
  const { renderSVG } = await import("uqr");
  return renderSVG(text);
}

/** The code for `now` (tests, the sandbox). */
export async function totpCode(secret: string, now: number): Promise<string> {
  return (await totpOf(secret, "x")).generate({ timestamp: now });
}

/**
 * The time step of `code` when it is right for `now` (one step of drift either way) and later
 * than `lastStep`; else null.
 */
export async function acceptedStep(
  secret: string,
  code: string,
  now: number,
  lastStep: number,
): Promise<number | null> {
  if (!/^\d{6}$/.test(code)) return null;
  const delta = (await totpOf(secret, "x")).validate({ token: code, timestamp: now, window: 1 });
  if (delta === null) return null;
  const step = Math.floor(now / 1000 / PERIOD_SECONDS) + delta;
  return step > lastStep ? step : null;
}
