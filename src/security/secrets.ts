// API secrets: stored only as SHA-256 digests, compared in constant time; fresh key pairs.
import { timingSafeEqual } from "node:crypto";

const PREFIX = "sha256:";
export const SECRET_HASH_PATTERN = "^sha256:[0-9a-f]{64}$";

function sha256(text: string): Buffer {
  return new Bun.CryptoHasher("sha256").update(text).digest() as Buffer;
}

/** The value to put in a client's `secretHash`. Secrets are high-entropy, so a plain digest suffices. */
export function hashSecret(secret: string): string {
  return PREFIX + sha256(secret).toString("hex");
}

/** Constant-time comparison of a presented secret with a stored hash. */
export function verifySecret(secret: string, secretHash: string): boolean {
  const expected = Buffer.from(secretHash.slice(PREFIX.length), "hex");
  const actual = sha256(secret);
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/** Random base62 text from the system's CSPRNG (rejection sampling keeps it unbiased). */
export function randomToken(length: number): string {
  let out = "";
  while (out.length < length) {
    for (const byte of crypto.getRandomValues(new Uint8Array(length * 2))) {
      if (byte < 248 && out.length < length) out += ALPHABET[byte % 62];
    }
  }
  return out;
}

/** A production key pair, prefixed so secret scanners recognise leaked values. */
export function newKeyPair(clientId: string): { apiKey: string; secret: string } {
  const slug = clientId
    .toLowerCase()
    .replace(/[^a-z0-9]/g, "")
    .slice(0, 16);
  return { apiKey: `pk_live_${slug ? slug + "_" : ""}${randomToken(16)}`, secret: `sk_live_${randomToken(40)}` };
}
