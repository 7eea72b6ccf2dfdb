// The check of the HTTP Basic auth a portal sends with each lead it posts to POST
// /v1/inbound/{clientId} (docs/operators/portal-leads.md). Pure: no Elysia, no database.
//
// Every way of being wrong takes the same work (a password digest compared, a user compared),
// whether the id names no client, a client that takes no portal leads, or one whose password
// was wrong: the time of the answer tells nothing of which ids exist.
import { timingSafeEqual } from "node:crypto";
import type { InboundSettings } from "../config/model.ts";
import { basicCredentials, isBasicAuthorization } from "./basic-auth.ts";
import { hashSecret, verifySecret } from "./secrets.ts";

/** Compared against when there is nothing to compare with, so a refusal costs what a check costs. */
const NOBODY_HASH = hashSecret(`nobody-${crypto.randomUUID()}`);

function digest(text: string): Buffer {
  return new Bun.CryptoHasher("sha256").update(text).digest() as Buffer;
}

/** Constant-time equality of two texts of any lengths (their digests are compared). */
function sameText(a: string, b: string): boolean {
  return timingSafeEqual(digest(a), digest(b));
}

/**
 * Whether `authorization` carries the user and password of `inbound` (null: the client takes no
 * portal leads, or there is no such client, and the answer is no after the same work).
 */
export function inboundCredentialsMatch(
  inbound: InboundSettings | null,
  authorization: string | null,
  now: number = Date.now(),
): boolean {
  const credentials = isBasicAuthorization(authorization) ? basicCredentials(authorization) : "malformed";
  const user = credentials === "malformed" ? "" : credentials.apiKey;
  const password = credentials === "malformed" ? "" : credentials.apiSecret;
  // A rotation's overlap (docs/operators/console.md): the replaced password still opens until it ends.
  const previous = inbound?.previous ?? null;
  const previousOk = previous !== null && previous.validUntil > now && verifySecret(password, previous.passwordHash);
  const passwordOk = verifySecret(password, inbound?.passwordHash ?? NOBODY_HASH) || previousOk;
  const userOk = sameText(user, inbound?.username ?? user);
  return credentials !== "malformed" && inbound !== null && passwordOk && userOk;
}
