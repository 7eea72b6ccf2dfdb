// Properties of the retry schedule and of the signatures, checked with fast-check: every
// retry within ±20 % of the contract's delay and none past the last; every signature the one
// the standardwebhooks library computes and accepts, for any id, time, body and secret.
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { Webhook } from "standardwebhooks";
import { JITTER, MAX_ATTEMPTS, nextAttemptAt, RETRY_DELAYS_MS } from "../../../src/modules/webhooks/schedule.ts";
import { newSecret, SECRET_PREFIX, signature, signatureHeader } from "../../../src/modules/webhooks/signing.ts";

const SECOND = 1000;
const CONTRACT_DELAYS = [5, 30, 120, 600, 1800, 3600, 3 * 3600, 6 * 3600, 12 * 3600, 24 * 3600].map((s) => s * SECOND);

describe("retry schedule", () => {
  test("is the contract's: 5 s, 30 s, 2 min, 10 min, 30 min, 1 h, 3 h, 6 h, 12 h, 24 h, then no more", () => {
    expect(RETRY_DELAYS_MS).toEqual(CONTRACT_DELAYS);
    expect(MAX_ATTEMPTS).toBe(11);
  });

  test("every retry falls within ±20 % of its delay; none after the 11th attempt or before the first", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 4_000_000_000_000 }),
        fc.integer({ min: -3, max: 20 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (now, attempts, r) => {
          const next = nextAttemptAt(now, attempts, () => r);
          if (attempts < 1 || attempts >= MAX_ATTEMPTS) return next === null;
          const base = CONTRACT_DELAYS[attempts - 1]!;
          return (
            next !== null &&
            next - now >= Math.floor(base * (1 - JITTER)) &&
            next - now <= Math.ceil(base * (1 + JITTER))
          );
        },
      ),
    );
  });

  test("jitter spreads: the extremes of the random source reach both ends of the window", () => {
    for (let attempts = 1; attempts < MAX_ATTEMPTS; attempts++) {
      const base = CONTRACT_DELAYS[attempts - 1]!;
      expect(nextAttemptAt(0, attempts, () => 0)).toBe(Math.round(base * 0.8));
      expect(nextAttemptAt(0, attempts, () => 0.999999999)).toBe(Math.round(base * 1.2 - base * 0.4 * 1e-9));
    }
  });

  test("the whole schedule ends within a little over two days", () => {
    const total = CONTRACT_DELAYS.reduce((a, b) => a + b, 0);
    expect(total * (1 + JITTER)).toBeLessThan(3 * 24 * 3600 * SECOND);
  });
});

describe("signatures (Standard Webhooks 1.0)", () => {
  const secretArb = fc
    .uint8Array({ minLength: 24, maxLength: 64 })
    .map((bytes) => SECRET_PREFIX + Buffer.from(bytes).toString("base64"));
  const idArb = fc.string({ minLength: 1, maxLength: 60 }).filter((s) => !/\s/.test(s));
  const bodyArb = fc.oneof(fc.string({ maxLength: 500 }), fc.json(), fc.string({ unit: "grapheme", maxLength: 200 }));

  test("equal the library's signature for any secret, id, timestamp and body", () => {
    fc.assert(
      fc.property(
        secretArb,
        idArb,
        fc.integer({ min: 0, max: 4_000_000_000 }),
        bodyArb,
        (secret, id, seconds, body) => {
          expect(signature(secret, id, seconds, body)).toBe(
            new Webhook(secret).sign(id, new Date(seconds * 1000), body),
          );
        },
      ),
    );
  });

  test("the library verifies every header we send, with each secret in force, and refuses a changed body", () => {
    fc.assert(
      fc.property(secretArb, secretArb, idArb, bodyArb, (current, previous, id, body) => {
        fc.pre(current !== previous);
        const now = Math.floor(Date.now() / 1000);
        const headers = {
          "webhook-id": id,
          "webhook-timestamp": String(now),
          "webhook-signature": signatureHeader([current, previous], id, now, body),
        };
        expect(headers["webhook-signature"].split(" ")).toHaveLength(2);
        // jsonParse off: any text body, not only JSON, must verify.
        new Webhook(current).verify(body, headers, { jsonParse: false });
        new Webhook(previous).verify(body, headers, { jsonParse: false });
        expect(() => new Webhook(current).verify(`${body} `, headers, { jsonParse: false })).toThrow();
      }),
      { numRuns: 200 },
    );
  });

  test("new secrets are whsec_ + base64 of 32 random bytes, accepted by the library, never repeated", () => {
    const secrets = Array.from({ length: 200 }, newSecret);
    expect(new Set(secrets).size).toBe(200);
    for (const secret of secrets) {
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(() => new Webhook(secret)).not.toThrow();
    }
  });
});
