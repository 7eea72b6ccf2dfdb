// Standard Webhooks 1.0 signing: secrets are `whsec_` + base64 of random bytes, and a
// delivery's `webhook-signature` is `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`
// under each secret in force (space-separated: two during a rotation).
import { memo } from "../../lib/memo.ts";

export const SECRET_PREFIX = "whsec_";
/** Standard Webhooks asks for 24 to 64 bytes; 32 is the HMAC-SHA256 block's half and plenty. */
const SECRET_BYTES = 32;

export function newSecret(): string {
  return SECRET_PREFIX + Buffer.from(crypto.getRandomValues(new Uint8Array(SECRET_BYTES))).toString("base64");
}

/** A secret's key, decoded once: every attempt signs, and decoding showed in the worker's profile. */
const keyOf = memo((secret) => Buffer.from(secret.slice(SECRET_PREFIX.length), "base64"));

/** One `v1,` signature of a message under one secret. */
export function signature(secret: string, id: string, timestampSeconds: number, body: string): string {
  const hmac = new Bun.CryptoHasher("sha256", keyOf(secret));
  hmac.update(`${id}.${timestampSeconds}.${body}`);
  return `v1,${hmac.digest("base64")}`;
}

/** The `webhook-signature` header value: one entry per secret in force. */
export function signatureHeader(
  secrets: readonly string[],
  id: string,
  timestampSeconds: number,
  body: string,
): string {
  return secrets.map((secret) => signature(secret, id, timestampSeconds, body)).join(" ");
}
