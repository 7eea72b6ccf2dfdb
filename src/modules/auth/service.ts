// Issuing tokens from API credentials, checked in docs/reference/behaviour.md §4's order (security/credentials.ts).
import type { ErrorCode } from "../../errors.ts";
import type { Runtime } from "../../runtime.ts";
import { checkCredentials } from "../../security/credentials.ts";

export type TokenResult =
  | { ok: true; clientId: string; token: string; expiresIn: number }
  | { ok: false; code: ErrorCode; claimedClientId?: string };

export function issueToken(
  runtime: Runtime,
  apiKey: string | null,
  apiSecret: string | null,
  ip: string | null,
): TokenResult {
  const checked = checkCredentials(
    runtime.config,
    apiKey,
    apiSecret,
    ip,
    (path) => runtime.tenants.get(path),
    runtime.clock.now(),
  );
  // A refusal of an existing key counts in that client's figures (docs/operators/console.md#what-the-agency-sees).
  if (!checked.ok)
    return checked.claimed === null
      ? { ok: false, code: checked.code }
      : { ok: false, code: checked.code, claimedClientId: checked.claimed.id };
  // Bound to the secret presented: during a rotation's overlap, the old one's tokens end with it.
  const { token, expiresIn } = runtime.tokens.issue(checked.subject);
  return { ok: true, clientId: checked.client.id, token, expiresIn };
}
